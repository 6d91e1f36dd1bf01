"""The answer: estimates per candidate action, the advice as a table for people and as JSON for tools."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from oklasim.advise.position import Position, seat_name
from oklasim.analysis.stats import Estimate
from oklasim.game.cards import format_hand


@dataclass(frozen=True)
class Candidate:
    """One action, its estimates over the worlds it was played in."""

    action: str  # "knock", "continue" or "decline" (the fiftieth card: the hand is void)
    discard: str | None  # None: big gin, or decided later (a stock draw, a pass)
    draw: str | None  # before the action: None (already drawn), "pile", "upcard", "stock", "pass"
    big_gin: bool
    arrangement: tuple[str, ...] | None  # the knocker's melds, best for it on average
    deadwood: int | None  # knocks: the knocker's deadwood (0 = gin)
    samples: int
    points: Estimate
    win: Estimate | None  # chance to win the game, when scores were given
    undercut: Estimate | None  # knocks only: chance that the opponent scores
    hand_outcomes: dict[str, float]  # share of worlds where I score / the opponent scores / nobody
    # This action minus the best (the recommended or leading one): the difference of their printed values, with the
    # interval of their paired difference over the worlds both were played in.
    vs_best: Estimate | None
    status: str  # "recommended", "leading" (the best estimate, too little evidence), "beaten" (worse with confidence)
    # or "open"

    @property
    def label(self) -> str:
        took = {"pile": "take the pile top, then ", "upcard": "take the upcard, then "}.get(self.draw, "")
        if self.draw == "stock":
            return "draw from the stock"
        if self.draw == "pass":
            return "pass the upcard"
        if self.action == "decline":
            return "decline the last discard: the hand is void"
        if self.big_gin:
            return took + "big gin"
        verb = "knock, discarding" if self.action == "knock" else "discard"
        return f"{took}{verb} {self.discard}"

    def recommendation(self) -> dict[str, Any]:
        return {
            "action": self.action,
            "discard": self.discard,
            "draw": self.draw,
            "big_gin": self.big_gin,
            "arrangement": list(self.arrangement) if self.arrangement is not None else None,
            "deadwood": self.deadwood,
            "label": self.label,
        }

    def to_dict(self) -> dict[str, Any]:
        out = self.recommendation()
        out.update(samples=self.samples, status=self.status, points=_estimate(self.points))
        out["win_chance"] = _estimate(self.win)
        out["undercut_risk"] = _estimate(self.undercut)
        out["hand_outcomes"] = dict(self.hand_outcomes)
        out["vs_recommended"] = _estimate(self.vs_best)
        return out


def _estimate(e: Estimate | None) -> dict[str, float] | None:
    if e is None:
        return None
    return {"mean": round(e.mean, 4), "low": round(e.low, 4), "high": round(e.high, 4),
            "half_width": round(e.half_width, 4)}


@dataclass(frozen=True)
class Advice:
    recommendation: Candidate | None  # None: too little evidence, ``no_recommendation`` says why
    candidates: tuple[Candidate, ...]
    objective: str
    stop_reason: str  # "separated", "precision", "samples" or "time"
    samples: int
    seconds: float  # in all, setup included
    workers: int
    seed: int
    confidence: float
    precision: float | None
    position: Position
    me: str
    opponent: str
    # "played" (its latest turn weighed, when it has played one), "uniform" or "history" (uniform hands weighted by
    # the opponent's play)
    prior: str = "played"
    opponent_draws: int = 0
    opponent_turns: int = 0  # turns of the opponent replayed to weigh the worlds
    ess: float = 0.0  # effective sample size of the recommendation's estimate
    plan: str | None = None  # the plan for playing on, when given in place of ``me``
    window: int | None = None  # with a history: the opponent's turns weighed (0: all), and the slip
    slip: float | None = None
    played_draws: int | None = None  # with a history: the most least-deadwood draws before the window
    setup_seconds: float = 0.0  # before sampling: reading the request, loading (on a first run compiling) strategies
    no_recommendation: str | None = None  # why there is no recommendation, in one line
    min_ess: int = 100  # the effective sample a recommendation needs

    @property
    def rules_text(self) -> str:
        """'default rules', or the rules that differ from them: 'rules knock_limit_max=9, ...'."""
        rules = self.position.describe()["rules"]
        return "default rules" if not rules else "rules " + ", ".join(f"{k}={v}" for k, v in rules.items())

    @property
    def assumptions(self) -> str:
        """What the figures assume, in one line."""
        rules_text = self.rules_text
        mine = f"your plan '{self.plan}'" if self.plan else f"you as {self.me}"
        if self.position.players == 2:
            return (f"assumes the opponent plays {self.opponent} and {mine} plays on; {rules_text}; "
                    f"{self.model_note}")
        return (f"assumes every opponent plays {self.opponent} and {mine} plays on; points are yours minus the "
                f"opponents' together; {rules_text}; intervals cover the sampling only, and this model of "
                f"{self.position.players} players is not calibrated")

    @property
    def model_note(self) -> str:
        """What the intervals leave out: the model's bias, as measured for these worlds (two players)."""
        late = self.position.stock <= LATE_STOCK
        if self.prior == "played" and self.opponent_turns:
            return (f"intervals cover the sampling only, not the model's {AS_PLAYED_BIAS[late]}: the history is "
                    f"closer ({CALIBRATION})")
        if self.prior != "history":
            return (f"intervals cover the sampling only; {UNCONDITIONED_BIAS}: give the history "
                    f"({AS_PLAYED_CALIBRATION})")
        if (self.window, self.slip, self.played_draws) != CALIBRATED:
            window, slip, draws = CALIBRATED
            return (f"intervals cover the sampling only; the model is calibrated at window {window}, slip {slip}, "
                    f"played draws {draws}, not at this setting ({CALIBRATION})")
        return f"intervals cover the sampling only, not the model's {HISTORY_BIAS[late]} ({CALIBRATION})"

    @property
    def worlds_text(self) -> str:
        if self.prior == "history":
            return (f"weighted by how likely {self.opponent} was to play its {self.opponent_turns} turns as it did "
                    f"(effective sample {int(self.ess):,} of {self.samples:,})")
        if self.prior == "uniform" and self.position.players > 2:
            return ("every opponent's unknown cards uniform among the unseen ones (with 3-4 players: the played "
                    "prior and the history model two)")
        if self.prior == "uniform":
            return "the opponent's unknown cards uniform among the unseen ones"
        if self.opponent_turns:
            return (f"as played: improved by {self.opponent_draws} least-deadwood draws, weighted by how likely "
                    f"{self.opponent} was to make its latest discard and not knock (effective sample {int(self.ess):,} "
                    f"of {self.samples:,}); the history would weigh every turn")
        return (f"as played: improved by {self.opponent_draws} least-deadwood draws, fitting its last discard; "
                "give the history to weigh them by its own play")

    @property
    def evidence_text(self) -> str:
        """What the effective sample means, in one line."""
        return (f"effective sample {int(self.ess):,} of {self.samples:,} worlds drawn: the estimates are as precise "
                f"as {int(self.ess):,} equally weighted worlds would make them (a recommendation needs {self.min_ess})")

    @property
    def setup_text(self) -> str:
        """Why a first run took long: said only when the setup took more than a second."""
        if self.setup_seconds <= 1:
            return ""
        return (f" (and {self.setup_seconds:.0f} s before it: reading the position and loading the strategies, which "
                "compiles them on a first run)")

    def to_dict(self) -> dict[str, Any]:
        return {
            "recommendation": self.recommendation.recommendation() if self.recommendation else None,
            "no_recommendation": self.no_recommendation,
            "candidates": [c.to_dict() for c in self.candidates],
            "objective": self.objective,
            "stop_reason": self.stop_reason,
            "stop": STOP_TEXT[self.stop_reason],
            "samples": self.samples,
            "seconds": round(self.seconds, 3),
            "setup_seconds": round(self.setup_seconds, 3),
            "workers": self.workers,
            "seed": self.seed,
            "confidence": self.confidence,
            "precision": self.precision,
            "strategies": {"me": self.me, "opponent": self.opponent, "plan": self.plan},
            "assumptions": self.assumptions,
            "prior": self.prior,
            "opponent_draws": self.opponent_draws,
            "worlds": {"prior": self.prior, "opponent_turns": self.opponent_turns, "window": self.window,
                       "slip": self.slip, "played_draws": self.played_draws, "effective_samples": round(self.ess, 1),
                       "min_effective_samples": self.min_ess, "text": self.worlds_text, "evidence": self.evidence_text},
            "position": self.position.describe(),
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2)

    def lines(self) -> list[str]:
        """The advice as text for people."""
        p = self.position
        d = p.describe()
        limit = "gin only" if p.knock_limit == 0 else f"knock limit {p.knock_limit}"
        up = f" (upcard {d['upcard']})" if d["upcard"] else ""
        out = [f"hand      {d['hand']}  ({d['cards']} cards)",
               f"limit     {limit}{up}; stock {p.stock}; pile {d['pile'] or 'empty'}"]
        size = p.rules.hand_size
        for seat, (held, took) in enumerate(zip(p.opponents_known, p.opponents_took), 1):
            who = "opponent " if p.players == 2 else f"{seat_name(seat, p.players):<10}"
            known = format_hand(held, by_rank=True)
            # A card it took that is on the pile or in your hand now: it threw it back (said, as it holds it no more).
            back = f"; took {format_hand(took & ~held, by_rank=True)} and threw it back" if took & ~held else ""
            out.append(f"{who}holds {known + ' and ' if known else ''}{size - held.bit_count()} unseen cards (of "
                       f"{d['unseen']}){back}; plays {self.opponent}"
                       + ("; you play on as " + self.me if seat == 1 else ""))
        if p.scores is not None:
            others = ", ".join(f"{seat_name(seat, p.players)} {score}" for seat, score in enumerate(p.scores[1:], 1))
            out.append(f"scores    you {p.scores[0]}, {others} (game to {p.rules.target_score})")
        out.append(f"worlds    {self.worlds_text}")
        out.append(f"note      {self.assumptions}")
        out.append(f"sampled   {self.samples:,} worlds in {self.seconds - self.setup_seconds:.2f} s on "
                   f"{self.workers} worker{'s' if self.workers > 1 else ''}: {STOP_TEXT[self.stop_reason]}"
                   f"{self.setup_text}")
        out.append(f"evidence  {self.evidence_text}")
        out.append("")
        pct = int(round(self.confidence * 100))
        header = f"  {'action':<36} {'points (' + str(pct) + '% CI)':>24}"
        if self.objective == "win" or any(c.win for c in self.candidates):
            header += f" {'win chance':>20}"
        header += f" {'undercut':>9}  {'vs best (' + self.objective + ')':>18}"
        out.append(header)
        for c in self.candidates:
            line = f"{'*' if c.status == 'recommended' else ' '} {c.label:<36} {_fmt(c.points, '+.1f'):>24}"
            if self.objective == "win" or any(x.win for x in self.candidates):
                line += f" {_fmt(c.win, '.1%'):>20}"
            line += f" {c.undercut.mean:>9.1%}" if c.undercut is not None else f" {'':>9}"
            if c.status in ("recommended", "leading"):
                line += f"  {'best' if c.status == 'recommended' else 'leader':>18}"
            elif c.vs_best is not None:
                spec = "+.1%" if self.objective == "win" else "+.1f"
                line += f"  {_fmt(c.vs_best, spec):>18}"
            out.append(line)
        out.append(self.versus_legend)
        out.append("")
        out.append(self.recommendation_line)
        return out

    @property
    def versus_legend(self) -> str:
        """What the "vs best" column is, in one line under the table."""
        value = "chance to win" if self.objective == "win" else "points"
        best = "starred" if self.recommendation is not None else "leading"
        return (f"  vs best: the row's {value} minus the {best} action's; its interval is that of their paired "
                "difference, over the worlds both were played in")

    @property
    def recommendation_line(self) -> str:
        rec = self.recommendation
        if rec is None:
            return f"no recommendation: {self.no_recommendation}"
        if rec.action == "knock":
            melds = f" (lay {' | '.join(rec.arrangement)})" if rec.arrangement else ""
            what = "BIG GIN" if rec.big_gin else ("GO GIN" if rec.deadwood == 0 else "KNOCK")
            prefix = {"pile": "take the pile top, then ", "upcard": "take the upcard, then "}.get(rec.draw, "")
            discard = "" if rec.big_gin else f", discarding {rec.discard}"
            return f"recommendation: {prefix}{what}{discard}{melds}"
        if any(c.action == "knock" for c in self.candidates):
            return f"recommendation: DON'T KNOCK: {rec.label}"
        return f"recommendation: {rec.label} (no knock is possible)"


def _fmt(e: Estimate | None, spec: str) -> str:
    if e is None:
        return "-"
    return f"{format(e.mean, spec)} [{format(e.low, spec)}, {format(e.high, spec)}]"


# The model's bias, measured by benchmarks/advise_calibration.py for a knock (worst over its four opponents,
# stages with at least 60 positions), early and late in the hand: it differs that much.
CALIBRATION = "reports/advise_calibration"
AS_PLAYED_CALIBRATION = f"{CALIBRATION}/previous_default"  # the worlds without a history, unchanged since
CALIBRATED = (3, 0.003, 3)  # the window, slip and played draws calibrated: the defaults
CALIBRATED_OPPONENTS = ("greedy", "defensive", "threshold:gin_only", "expert")  # the opponents it was measured with
LATE_STOCK = 13
# A knock's points off by up to this on average, with the history, early (False) and late (True) in the hand.
HISTORY_KNOCK_BIAS = {False: 1.0, True: 1.3}
HISTORY_BIAS = {
    False: f"measured bias of a knock with {LATE_STOCK + 1} or more stock cards left: its points off by up to "
           f"{HISTORY_KNOCK_BIAS[False]} on average, its undercut risk by up to 2 pp",
    True: f"measured bias of a knock late in the hand ({LATE_STOCK} or fewer stock cards): its points off by up to "
          f"{HISTORY_KNOCK_BIAS[True]} on average, its undercut risk up to 6 pp too high with 7 or fewer",
}
AS_PLAYED_BIAS = {
    False: f"measured bias without a history with {LATE_STOCK + 1} or more stock cards left: a knock's points off by up "
           "to 2.8 on average, its undercut risk by up to 6 pp",
    True: f"measured bias without a history late in the hand ({LATE_STOCK} or fewer stock cards): a knock's points "
          "off by up to 3.3 on average, its undercut risk up to 7 pp too high, up to 19 with 7 or fewer",
}
UNCONDITIONED_BIAS = ("without a history a knock's points were measured up to 7.9 too high on average against "
                      "gin-holders (its undercut risk 27 pp too low)")

STOP_TEXT = {
    "separated": "the best action is ahead of every other with confidence",
    "precision": "every action still in contention is estimated to the requested precision; none is ahead with "
                 "confidence",
    "samples": "stopped at the sample budget",
    "time": "stopped at the time budget",
    "single": "only one action is possible",
}
