"""Each decision of a game judged by the advisor: what was played, the best alternative, the points it lost.

At each decision the advisor (``oklasim.advise``) is run on what the seat knew then (its hand, the upcard, the
hand's history as it saw it) against the opponent actually played, every discard weighed. The budget is a number
of worlds, never seconds, so that the same game, seed and budget give the same review on any machine; a knock
decision (the question people bring) gets ``KNOCK_BOOST`` times the budget, because a history most worlds do not
explain leaves few effective ones.

The verdicts: ``best`` (the play is the advisor's best, or beats its choice on the fresh sample), ``mistake``
(the best beats it with confidence: the points lost and their interval), ``close`` (the difference is inside the
noise), ``not judged`` (too little evidence, or the play was not among the actions weighed).
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass

from oklasim.advise.result import HISTORY_KNOCK_BIAS, LATE_STOCK
from oklasim.analysis.stats import Estimate
from oklasim.errors import OklasimError
from oklasim.game.cards import format_card
from oklasim.review.game import DRAW, KNOCK, UPCARD, Decision, PlayedGame

REVIEW_SAMPLES = 40_000  # worlds per decision (most weigh nothing where few explain the history: they cost little)
KNOCK_BOOST = 8  # a knock decision's budget is this many times the others', and 4 times more if that is too little
BOOSTS = {False: (1,), True: (KNOCK_BOOST, 4 * KNOCK_BOOST)}
MAX_DISCARDS = 11  # every card of the hand is weighed as a discard: the one played must be among the actions
BEST, MISTAKE, CLOSE, NOT_JUDGED = "best", "mistake", "close", "not judged"
DECISIONS_PER_SEED = 1 << 16  # each decision samples its own streams: seed * this + its number,
CONFIRM_STREAM = 1 << 15  # and this added for the fresh sample (a game has far fewer decisions)


@dataclass(frozen=True)
class Judgement:
    """The advisor's word on one decision."""

    number: int
    hand: int
    kind: str
    stock_left: int
    cards: str  # the seat's hand as it decided (11 cards after a draw)
    upcard: str
    history: str  # the hand so far, as the seat saw it (``oklasim.advise.history``)
    played: str
    best: str | None
    verdict: str
    lost: Estimate | None  # points lost by the play against the best (0 when it is the best)
    reason: str  # for 'not judged' and 'close': why, in a few words
    samples: int
    ess: float
    knock_offered: bool  # a knock was legal at this decision
    knocked: bool
    best_knocks: bool | None  # the best play is a knock (None: no best)

    def to_dict(self) -> dict:
        out = asdict(self)
        out["lost"] = None if self.lost is None else self.lost.as_dict()
        return out

    @classmethod
    def from_dict(cls, data: dict) -> Judgement:
        return cls(**{**data, "lost": None if data["lost"] is None else Estimate.from_dict(data["lost"])})


def played_label(d: Decision) -> str:
    if d.kind in (UPCARD, DRAW):
        return {"upcard": "take the upcard", "pass": "pass the upcard", "pile": "take the pile top",
                "stock": "draw from the stock"}[d.draw]
    if d.big_gin:
        return "big gin"
    if d.discard is None:
        return "decline the last discard: the hand is void"
    return f"{'knock, discarding' if d.knock else 'discard'} {format_card(d.discard)}"


def _played_candidates(d: Decision, candidates) -> list:
    """The advisor's candidates that are the play (a draw: every candidate starting with it)."""
    if d.kind in (UPCARD, DRAW):
        return [c for c in candidates if c.draw == d.draw]
    if d.big_gin:
        return [c for c in candidates if c.big_gin]
    if d.discard is None:
        return [c for c in candidates if c.action == "decline"]
    action, card = ("knock" if d.knock else "continue"), format_card(d.discard)
    return [c for c in candidates if c.draw is None and c.action == action and c.discard == card and not c.big_gin]


def judge(game: PlayedGame, d: Decision, samples: int, seed: int) -> Judgement:
    """The advisor run on decision ``d`` of ``game`` and its verdict. The best action is chosen on one sample and
    the points lost measured on a fresh one: the best of many noisy estimates is biased upward."""
    from oklasim.advise import advise
    from oklasim.table.coach import position_told

    told = position_told(d.view, d.seen)
    stream = seed * DECISIONS_PER_SEED + d.number

    def ask(boost: int, fresh: bool = False):
        return advise(**told, rules=game.rules, opponent=game.opponent, max_samples=samples * boost,
                      max_seconds=None, discards=MAX_DISCARDS, seed=stream + fresh * CONFIRM_STREAM, workers=1)

    for boost in BOOSTS[d.kind == KNOCK]:
        advice = ask(boost)
        if advice.recommendation is not None:
            break
    common = {"number": d.number, "hand": d.hand, "kind": d.kind, "stock_left": d.stock_left,
              "cards": told["hand"], "upcard": told["upcard"], "history": told.get("history", ""),
              "played": played_label(d), "samples": advice.samples, "ess": round(float(advice.ess), 1),
              "knock_offered": d.kind == KNOCK, "knocked": d.knock}
    best = advice.recommendation
    if best is None:
        return Judgement(**common, best=None, verdict=NOT_JUDGED, lost=None, best_knocks=None,
                         reason=advice.no_recommendation or "too little evidence")
    mine = _played_candidates(d, advice.candidates)
    verdict = {"best": best.label, "best_knocks": _knocks(best)}
    if best in mine:
        return Judgement(**common, **verdict, verdict=BEST, lost=Estimate(0.0, 0.0, 0.0, advice.samples), reason="")
    if not mine:
        return Judgement(**common, **verdict, verdict=NOT_JUDGED, lost=None,
                         reason="the play was not among the actions weighed")
    confirmed = ask(boost, fresh=True)
    gap = _gap(d, best, confirmed)
    if gap is None:
        return Judgement(**common, **verdict, verdict=NOT_JUDGED, lost=None,
                         reason=confirmed.no_recommendation or "the fresh sample did not weigh the best action")
    nearest = max(_played_candidates(d, confirmed.candidates), key=lambda c: c.points.mean)
    margin = _model_margin(d, best, nearest)
    lost = Estimate(-gap.mean, -gap.high - margin, -gap.low + margin, gap.n)
    if lost.low > 0:
        return Judgement(**common, **verdict, verdict=MISTAKE, lost=lost, reason="")
    if lost.high < 0:  # the fresh sample prefers the play to the first sample's choice, with confidence
        return Judgement(**common, **verdict, verdict=BEST, lost=lost,
                         reason="on a fresh sample the play beats the first choice")
    return Judgement(**common, **verdict, verdict=CLOSE, lost=lost, reason="inside the noise")


def _gap(d: Decision, chosen, fresh) -> Estimate | None:
    """The play minus the ``chosen`` best, on the fresh sample: paired where one of them is that sample's own best
    (its ``vs_best``), else the difference of their two paired differences with their widths combined."""
    top = fresh.recommendation
    same = [c for c in fresh.candidates if c.label == chosen.label]
    mine = _played_candidates(d, fresh.candidates)
    if top is None or not same or not mine:
        return None
    best, nearest = same[0], max(mine, key=lambda c: c.points.mean)  # a draw is judged by its best follow-up
    if best is top:
        return nearest.vs_best
    if nearest is top:
        return Estimate(-best.vs_best.mean, -best.vs_best.high, -best.vs_best.low, best.vs_best.n)
    mean = nearest.vs_best.mean - best.vs_best.mean
    half = math.hypot(nearest.vs_best.half_width, best.vs_best.half_width)
    return Estimate(mean, mean - half, mean + half, min(nearest.vs_best.n, best.vs_best.n))


def _model_margin(d: Decision, best, nearest) -> float:
    """Where a knock is weighed against playing on, the model's measured bias of a knock's points widens the
    interval: it is known uncertainty, not noise (``advise.result.HISTORY_KNOCK_BIAS``)."""
    if _knocks(best) == _knocks(nearest):
        return 0.0
    return HISTORY_KNOCK_BIAS[d.stock_left <= LATE_STOCK]


def _knocks(candidate) -> bool:
    return candidate.action == "knock" or candidate.big_gin


def judge_all(game: PlayedGame, samples: int = REVIEW_SAMPLES, seed: int = 0, workers: int | None = None,
              done: dict[int, Judgement] | None = None,
              on_judged: Callable[[Judgement], None] | None = None) -> list[Judgement]:
    """Every decision of ``game`` judged (those in ``done`` kept), one per core at a time; ``on_judged`` is told of
    each new one as it ends (to save it, to move a progress bar)."""
    if samples < 1:
        raise OklasimError(f"samples {samples}: judge each decision on at least one world")
    done = dict(done or {})
    todo = [d for d in game.decisions if d.number not in done]
    workers = max(1, min(int(workers or os.cpu_count() or 1), len(todo) or 1))
    pool = ThreadPoolExecutor(max_workers=workers)  # the advisor's kernels leave the interpreter's lock
    try:
        jobs = [pool.submit(judge, game, d, samples, seed) for d in todo]
        for job in jobs:
            judged = job.result()
            done[judged.number] = judged
            if on_judged is not None:
                on_judged(judged)
    finally:  # interrupted: the decisions being judged end, the others are not started
        pool.shutdown(wait=True, cancel_futures=True)
    return [done[d.number] for d in game.decisions]
