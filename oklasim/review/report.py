"""A reviewed game told to its player: the summary a teacher gives after a game, and the file it is kept in.

The review file (JSON) holds the game's source, the settings that fix the review (seed, worlds per decision,
the version) and every decision judged so far; a review interrupted and run again with the same settings goes on
from it, and one run with other settings starts afresh.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from oklasim import __version__
from oklasim._kernels import layout as L
from oklasim.advise.result import CALIBRATED_OPPONENTS, CALIBRATION, HISTORY_KNOCK_BIAS, LATE_STOCK
from oklasim.errors import OklasimError, read_text
from oklasim.game.cards import parse_hand
from oklasim.review.game import DISCARD, DRAW, KNOCK, UPCARD, PlayedGame
from oklasim.review.judge import BEST, CLOSE, KNOCK_BOOST, MISTAKE, NOT_JUDGED, Judgement
from oklasim.table.terminal import arranged, rules_label

REVIEW_FORMAT = 1
KINDS = (UPCARD, DRAW, DISCARD, KNOCK)
KIND_WORDS = {UPCARD: "the upcard offer", DRAW: "draws", DISCARD: "discards", KNOCK: "knock decisions"}
COSTLIEST = 3


@dataclass(frozen=True)
class Review:
    game: PlayedGame
    judgements: tuple[Judgement, ...]
    samples: int
    seed: int

    # -- the figures ----------------------------------------------------------------------------

    @property
    def hands(self) -> int:
        return max(len(self.game.hands), 1 + max((j.hand for j in self.judgements), default=-1))

    def mistakes(self) -> list[Judgement]:
        return [j for j in self.judgements if j.verdict == MISTAKE]

    def lost(self, kind: str | None = None) -> float:
        """Points lost in all by the mistakes (of one kind of decision)."""
        return sum(j.lost.mean for j in self.mistakes() if kind is None or j.kind == kind)

    def by_kind(self) -> dict[str, dict]:
        out = {}
        for kind in KINDS:
            mine = [j for j in self.judgements if j.kind == kind]
            verdicts = Counter(j.verdict for j in mine)
            out[kind] = {"decisions": len(mine), **{v: verdicts[v] for v in (BEST, CLOSE, MISTAKE, NOT_JUDGED)},
                         "points_lost": round(self.lost(kind), 2),
                         "lost_per_decision": round(self.lost(kind) / len(mine), 3) if mine else None}
        return out

    def knock_summary(self) -> dict:
        """The knock decisions on their own: how often a legal knock was held or taken, and how often the other
        choice was better (with confidence), by how much on average."""
        offered = [j for j in self.judgements if j.knock_offered]
        held = [j for j in offered if not j.knocked]
        knocked = [j for j in offered if j.knocked]
        knock_better = [j for j in held if j.verdict == MISTAKE and j.best_knocks]
        hold_better = [j for j in knocked if j.verdict == MISTAKE and not j.best_knocks]
        return {"offered": len(offered), "held": len(held), "knocked": len(knocked),
                "judged": sum(j.verdict != NOT_JUDGED for j in offered),
                "knocking_better": len(knock_better), "knocking_better_by": _mean_lost(knock_better),
                "holding_better": len(hold_better), "holding_better_by": _mean_lost(hold_better)}

    def assumptions(self) -> str:
        """Against whom and under which rules the estimates hold, and what their intervals leave out."""
        g = self.game
        measured = (f"the advisor's calibration with the history against {g.opponent}" if g.opponent in
                    CALIBRATED_OPPONENTS else f"the advisor's calibration was measured against "
                    f"{', '.join(CALIBRATED_OPPONENTS)}, not {g.opponent}")
        return (f"Estimates assume the opponent plays {g.opponent} (the strategy it played) and that you play on as "
                f"expert after each decision; {rules_label(g.rules)} rules; hand points (the game score is not "
                f"weighed). Intervals cover the sampling, and for a knock weighed against playing on also the "
                f"model's measured bias of a knock ({HISTORY_KNOCK_BIAS[False]} points, "
                f"{HISTORY_KNOCK_BIAS[True]} with {LATE_STOCK} or fewer stock cards left): {measured} "
                f"({CALIBRATION}). {self.samples:,} worlds per decision ({KNOCK_BOOST * self.samples:,} at a knock), "
                f"seed {self.seed}: the same game, seed and worlds give the same review.")

    def to_dict(self, complete: bool = True) -> dict:
        g = self.game
        return {"format": REVIEW_FORMAT, "version": __version__, "source": g.source, "fingerprint": fingerprint(g),
                "seat": g.seat,
                "player": g.player, "opponent": g.opponent, "rules": g.rules.to_dict(), "game_seed": g.seed,
                "samples": self.samples, "seed": self.seed, "complete": complete,
                "decisions": len(g.decisions), "hands": self.hands, "result": g.result,
                "assumptions": self.assumptions(),
                "summary": {"points_lost": round(self.lost(), 2),
                            "points_lost_per_hand": round(self.lost() / self.hands, 2),
                            "by_kind": self.by_kind(), "knocks": self.knock_summary()},
                "judgements": [j.to_dict() for j in self.judgements]}

    # -- told as text ---------------------------------------------------------------------------

    def lines(self) -> list[str]:
        g = self.game
        who = "your" if g.player == "you" else f"{g.player}'s"
        out = [f"review of {g.source}: {who} {len(self.judgements)} decisions in {self.hands} hands against "
               f"{g.opponent}", ""]
        out += [f"points lost: {self.lost():.1f} in all, {self.lost() / self.hands:.1f} per hand", ""]
        out.append(f"  {'decision':<18}{'made':>6}{'best':>6}{'close':>7}{'mistake':>9}{'not judged':>12}"
                   f"{'points lost':>13}")
        for kind, row in self.by_kind().items():
            if row["decisions"]:
                out.append(f"  {KIND_WORDS[kind]:<18}{row['decisions']:>6}{row[BEST]:>6}{row[CLOSE]:>7}"
                           f"{row[MISTAKE]:>9}{row[NOT_JUDGED]:>12}{row['points_lost']:>13.1f}")
        out += ["", *self.knock_lines(), ""]
        costliest = sorted(self.mistakes(), key=lambda j: -j.lost.mean)[:COSTLIEST]
        if costliest:
            out.append(f"the {len(costliest)} costliest decision{'s' if len(costliest) > 1 else ''}:")
            for j in costliest:
                out += [""] + [f"  {line}" for line in position_lines(j)]
            out.append("")
        out.append(self.assumptions())
        return out

    def knock_lines(self) -> list[str]:
        k = self.knock_summary()
        if not k["offered"]:
            return ["no knock was legal at any decision"]
        you = "you" if self.game.player == "you" else self.game.player
        lines = []
        if k["held"]:
            better = (f"knocking was better in {k['knocking_better']}, by {k['knocking_better_by']:.1f} points on "
                      "average" if k["knocking_better"] else "knocking was never better with confidence")
            lines.append(f"{you} held {_times(k['held'])} with a legal knock; {better}")
        if k["knocked"]:
            better = (f"holding was better in {k['holding_better']}, by {k['holding_better_by']:.1f} points on "
                      "average" if k["holding_better"] else "holding on was never better with confidence")
            lines.append(f"{you} knocked {_times(k['knocked'])}; {better}")
        not_judged = k["offered"] - k["judged"]
        if not_judged:
            lines.append(f"({not_judged} of the {k['offered']} knock decisions not judged: too little evidence)")
        return lines


def position_lines(j: Judgement) -> list[str]:
    """A decision drawn as cards: the hand sorted into melds, the upcard, the history, the play and the best."""
    lost = j.lost
    return [f"hand {j.hand + 1}, {j.stock_left} stock cards left ({j.kind}): lost {lost.mean:.1f} points "
            f"[{lost.low:.1f}, {lost.high:.1f}]",
            f"your cards  {arranged(parse_hand(j.cards))}",
            f"upcard      {j.upcard}",
            f"so far      {j.history or '(nothing yet)'}",
            f"played      {j.played}",
            f"best        {j.best}"]


def _times(n: int) -> str:
    return "once" if n == 1 else "twice" if n == 2 else f"{n} times"


def _mean_lost(judged: list[Judgement]) -> float | None:
    return sum(j.lost.mean for j in judged) / len(judged) if judged else None


# -- the review file ---------------------------------------------------------------------------


def fingerprint(game: PlayedGame) -> str:
    """The game's rules, seed and every reviewed decision (the hand held, the play), in 16 hex digits: a review
    file is taken up again only for the very game it was written for."""
    plays = [game.rules.to_dict(), game.seed, game.seat, game.opponent]
    plays += [[d.kind, int(d.view[L.V_HAND]), d.draw, d.knock, d.discard, d.big_gin] for d in game.decisions]
    return hashlib.sha256(json.dumps(plays).encode()).hexdigest()[:16]


def write_review(path: Path, review: Review, complete: bool) -> None:
    """Written whole to a temporary name and renamed: an interruption never leaves half a file."""
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(json.dumps(review.to_dict(complete), indent=1) + "\n")
    os.replace(temporary, path)


def judged_before(path: Path, game: PlayedGame, samples: int, seed: int) -> dict[int, Judgement]:
    """The decisions a review file at ``path`` already judged with these settings, on this game (none if the file
    is missing or was written with other settings, another version, or for another game: the fingerprint says, not
    the path the game was read from)."""
    if not path.exists():
        return {}
    try:
        kept = json.loads(read_text(path))
    except ValueError:
        raise OklasimError(f"{path} is not a review file (not JSON): give another --out, or remove it") from None
    if not isinstance(kept, dict) or kept.get("format") != REVIEW_FORMAT:
        raise OklasimError(f"{path} is not a review file of this oklasim: give another --out, or remove it")
    same = {"version": __version__, "fingerprint": fingerprint(game), "samples": samples, "seed": seed}
    if any(kept.get(k) != v for k, v in same.items()):
        return {}
    try:
        judged = [Judgement.from_dict(d) for d in kept["judgements"]]
    except (KeyError, TypeError, ValueError):
        raise OklasimError(f"the review file {path} is damaged: remove it to review the game anew") from None
    return {j.number: j for j in judged}
