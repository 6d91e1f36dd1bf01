"""Should I knock now? Monte Carlo advice for one concrete two-player situation.

>>> advice = advise("2h 3h 4h 7s 7d 7h Jc Qc Kc 5d Ks", upcard="9c", pile="9c 8d 4s",
...                 max_samples=2048, precision=None, seed=1)              # doctest: +SKIP
>>> advice.recommendation.action, advice.recommendation.discard        # doctest: +SKIP
('knock', 'Ks')

What you know (your hand, the knock limit, the discard pile, the cards the
opponent took from it, the scores) fixes a set of *worlds*: the opponent's
hand and the stock order. ``advise`` samples worlds consistent with what
you know, plays every candidate action in the same worlds (common random
numbers) with the chosen continuation strategies, and stops when the best
action is separated from the others with confidence, when every remaining
estimate is within ``precision`` points, or at the sample or time budget;
``Advice.stop_reason`` says which.

Which worlds (``prior``): ``uniform`` deals the opponent's unknown cards
uniformly from the unseen ones. A real opponent has improved its hand
turn after turn, so uniform worlds overrate a knock by some 30 points
(``experiments/advise_prior_calibration.py``). The default, ``played``,
improves a uniform hand by the opponent's stock draws (each followed by
the discard leaving least deadwood) and keeps only worlds where its last
discard was such a discard and it could not have knocked: within about a
point of the truth for opponents that play like simple or greedy. Nothing
else is inferred from its earlier choices.
"""

from __future__ import annotations

import json
import math
import os
import time
import tomllib
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from statistics import NormalDist
from typing import Any

import numpy as np

from ._kernels import advise_nb as A
from ._kernels import engine_nb as E
from ._kernels import layout as L
from .cards import N_CARDS, format_card, format_hand, mask_of, parse_cards
from .engine import IllegalDecision, raise_illegal, stream_key
from .rules import Rules
from .strategy import Strategy, resolve

FIRST_STOCK = 31  # the stock after the deal and the upcard (two players)
OBJECTIVES = ("points", "win")
PRIORS = ("played", "uniform")
FIRST_BATCH = 1024
BATCH_CAP = {False: 8192, True: 1024}  # worlds per batch, without / with the game played on
LOOKS = 20  # the separation test is Bonferroni-corrected for this many looks at the data


# -- what the player knows ------------------------------------------------------------------


@dataclass(frozen=True)
class Position:
    """A checked description of the decision: everything the player knows."""

    hand: int  # mask, 10 or 11 cards
    knock_limit: int
    upcard: int | None
    pile: tuple[int, ...]  # bottom first
    opponent_took: int  # mask, as given
    opponent_known: int  # mask of cards the opponent must hold now
    took: int | None  # the card the player just took from the pile
    stock: int
    scores: tuple[int, int] | None
    passed: int  # first turn: seats that passed the upcard before this decision
    dealer: int  # 0 = me, 1 = the opponent
    rules: Rules
    moment: str  # "after_draw", "draw", "offer" or "forced_stock"

    @property
    def unseen(self) -> int:
        """Cards the player cannot place: the opponent's unknown cards and the stock."""
        return ((1 << N_CARDS) - 1) & ~self.hand & ~mask_of(self.pile) & ~self.opponent_known

    @property
    def kind(self) -> int:
        """The engine decision the position is at."""
        return {"after_draw": L.D_KNOCK, "draw": L.D_DRAW, "offer": L.D_TAKE_UPCARD, "forced_stock": L.D_DRAW}[
            self.moment
        ]

    def describe(self) -> dict[str, Any]:
        return {
            "hand": format_hand(self.hand, by_rank=True),
            "cards": self.hand.bit_count(),
            "moment": self.moment,
            "knock_limit": self.knock_limit,
            "upcard": format_card(self.upcard) if self.upcard is not None else None,
            "pile": " ".join(format_card(c) for c in self.pile),
            "opponent_known": format_hand(self.opponent_known, by_rank=True),
            "took": format_card(self.took) if self.took is not None else None,
            "stock": self.stock,
            "scores": list(self.scores) if self.scores is not None else None,
            "dealer": "me" if self.dealer == 0 else "opponent",
            "unseen": self.unseen.bit_count(),
            "rules": {k: v for k, v in self.rules.to_dict().items() if v != getattr(Rules(), k)},  # beside the default
        }


def _cards(value, what: str) -> list[int]:
    """Cards from text ("As 2s"), a card index, or a list of either."""
    if value is None:
        return []
    if isinstance(value, str):
        try:
            return parse_cards(value)
        except ValueError as exc:
            raise ValueError(f"{what}: {exc}") from None
    if isinstance(value, (int, np.integer)):
        return [int(value)]
    cards: list[int] = []
    for item in value:
        for card in _cards(item, what):
            if card in cards:
                raise ValueError(f"{what}: {format_card(card)} is listed twice")
            cards.append(card)
    return cards


def _one_card(value, what: str) -> int | None:
    cards = _cards(value, what)
    if len(cards) > 1:
        raise ValueError(f"{what}: one card expected, got {len(cards)}")
    return cards[0] if cards else None


def _rules(rules) -> Rules:
    if rules is None:
        return Rules()
    if isinstance(rules, Rules):
        return rules
    if isinstance(rules, str):
        return Rules.load(rules)
    if isinstance(rules, dict):
        return Rules.from_dict(rules)
    raise ValueError(f"rules: give a preset name, a TOML file or a table of fields, not {rules!r}")


def read_position(
    hand,
    upcard=None,
    limit: int | None = None,
    pile=(),
    opponent_took=(),
    took=None,
    stock: int | None = None,
    scores: Sequence[int] | None = None,
    rules=None,
    passed: int = 0,
    dealer: str | None = None,
) -> Position:
    """Check what the player says it knows and work out the moment of the hand; ``ValueError`` if impossible."""
    rules = _rules(rules)
    if rules.players != 2:
        raise ValueError(f"advise handles two players; the rules have {rules.players}")
    size = rules.hand_size
    mine = _cards(hand, "hand")
    if len(mine) not in (size, size + 1):
        raise ValueError(
            f"a hand of {len(mine)} cards fits no moment of the game: hold {size} cards before your draw "
            f"or {size + 1} after it"
        )
    hand_mask = mask_of(mine)
    pile_cards = tuple(_cards(pile, "pile"))
    pile_mask = mask_of(pile_cards)
    if hand_mask & pile_mask:
        raise ValueError(f"{format_hand(hand_mask & pile_mask)} cannot be both in your hand and on the pile")
    up = _one_card(upcard, "upcard")
    took_card = _one_card(took, "took")
    opp_took = mask_of(_cards(opponent_took, "opponent took"))
    drawn = len(mine) == size + 1

    # The knock limit: from the upcard, or given, or both when they agree.
    if limit is not None:
        if isinstance(limit, bool) or not isinstance(limit, (int, np.integer)) or not 0 <= limit <= 10:
            raise ValueError(f"knock limit {limit!r}: use 0 (gin only) to 10")
        limit = int(limit)
        possible = {rules.knock_limit(c) for c in range(N_CARDS)}
        if limit not in possible:
            raise ValueError(f"a knock limit of {limit} cannot happen under these rules (possible: "
                             f"{', '.join(str(p) for p in sorted(possible))})")
    if up is None and limit is None:
        raise ValueError("give the upcard that set the knock limit, or the limit itself")
    if up is not None and limit is not None and rules.knock_limit(up) != limit:
        raise ValueError(f"upcard {format_card(up)} sets a knock limit of {rules.knock_limit(up)}, not {limit}")
    knock_limit = rules.knock_limit(up) if up is not None else limit
    if up is None and rules.spade_double:
        raise ValueError("with spade doubling on, give the upcard (its suit matters), not just the limit")

    # The stock follows from the cards: the opponent holds `size` between and during your turns.
    derived = N_CARDS - len(mine) - len(pile_cards) - size
    if stock is not None and stock != derived:
        raise ValueError(
            f"a stock of {stock} does not fit: with {len(mine)} cards in your hand, {len(pile_cards)} on the "
            f"pile and {size} in the opponent's, the stock holds {derived}"
        )
    if drawn and derived < 2:
        raise ValueError(f"{len(pile_cards)} cards on the pile leave {derived} in the stock; a hand ends at 2")
    if not drawn and derived < 3:
        raise ValueError(
            f"{len(pile_cards)} cards on the pile leave {derived} in the stock: the hand has ended at the wall"
        )
    if not drawn and not pile_cards:
        raise ValueError("the discard pile cannot be empty before your draw")

    # The moment, and what it says about the first upcard.
    if passed not in (0, 1, 2):
        raise ValueError(f"passed = {passed!r}: 0, 1 or 2 players passed the first upcard")
    # The moment. A full stock means nobody has drawn from it yet; cards may still have changed hands
    # through the pile. `passed` (passes of the first upcard) matters only where the first turn is certain.
    inferred_dealer = None
    fresh = derived == FIRST_STOCK and not opp_took
    if drawn:
        moment = "after_draw"
        if took_card is None and derived == FIRST_STOCK:  # the 11th card came from the pile
            if up is None or not hand_mask >> up & 1 or opp_took:
                raise ValueError("with 11 cards and a full stock you took a card from the pile: name it (took)")
            took_card = up
        if fresh and took_card == up and not pile_cards:  # I took the upcard on the first turn
            if passed > 1:
                raise ValueError("both players passed: the first draw is from the stock")
            inferred_dealer = 1 if passed == 0 else 0  # the non-dealer is offered the upcard first
        elif derived == FIRST_STOCK and opp_took == (1 << up if up is not None else -1) and not pile_cards:
            if passed > 1:  # the opponent took the upcard, and I its first discard
                raise ValueError("the opponent took the upcard: at most one player (you) passed it")
            inferred_dealer = 0 if passed == 0 else 1
        elif took_card is None and derived == FIRST_STOCK - 1 and up is not None and pile_cards == (up,) \
                and not opp_took:
            inferred_dealer = 1  # both passed and I, the non-dealer, drew the first card of the stock
    elif fresh and (up is None or pile_cards == (up,)):  # the upcard is on offer
        if up is None:
            up = pile_cards[0]  # before any draw, a one-card pile is taken to be the upcard
            if rules.knock_limit(up) != knock_limit:
                raise ValueError(f"before any draw the pile is the upcard {format_card(up)}, whose knock "
                                 f"limit is {rules.knock_limit(up)}, not {knock_limit}")
        moment = "offer" if passed < 2 else "forced_stock"
        inferred_dealer = 1 if passed in (0, 2) else 0
    else:
        moment = "draw"
        if derived == FIRST_STOCK and up is not None and opp_took == 1 << up and len(pile_cards) == 1:
            if passed > 1:  # the opponent took the upcard and discarded
                raise ValueError("the opponent took the upcard: at most one player (you) passed it")
            inferred_dealer = 0 if passed == 0 else 1
    if dealer is not None and dealer not in ("me", "opponent"):
        raise ValueError(f"dealer = {dealer!r}: 'me' or 'opponent'")
    dealer_seat = None if dealer is None else (0 if dealer == "me" else 1)
    if inferred_dealer is not None and dealer_seat is not None and inferred_dealer != dealer_seat:
        who = "you" if inferred_dealer == 0 else "the opponent"
        raise ValueError(f"at this moment of the first turn {who} must be the dealer")
    dealer_seat = inferred_dealer if inferred_dealer is not None else (1 if dealer_seat is None else dealer_seat)
    passed = passed if inferred_dealer is not None else 0

    if took_card is not None:
        if not drawn:
            raise ValueError("took names the card you just took from the pile: you then hold 11 cards")
        if not hand_mask >> took_card & 1:
            raise ValueError(f"you took {format_card(took_card)} from the pile: it must be in your hand")

    # What the opponent must hold: what it took and did not throw back, and an upcard found nowhere else.
    known = opp_took & ~hand_mask & ~pile_mask
    if up is not None and not (hand_mask | pile_mask) >> up & 1:
        known |= 1 << up
    if known.bit_count() > size:
        raise ValueError(f"the opponent would hold {known.bit_count()} known cards ({format_hand(known)}), more "
                         f"than {size}")
    score_pair = None
    if scores is not None:
        score_pair = tuple(int(s) for s in scores)
        if len(score_pair) != 2 or min(score_pair) < 0:
            raise ValueError(f"scores: two non-negative numbers (yours, the opponent's), got {list(scores)!r}")
        if rules.single_hand:
            raise ValueError("scores need a game, but these rules play a single hand")
        if max(score_pair) >= rules.target_score:
            raise ValueError(f"scores {score_pair[0]}-{score_pair[1]}: the game ended at {rules.target_score}")
    return Position(
        hand=hand_mask,
        knock_limit=knock_limit,
        upcard=up,
        pile=pile_cards,
        opponent_took=opp_took,
        opponent_known=known,
        took=took_card,
        stock=derived,
        scores=score_pair,
        passed=passed,
        dealer=dealer_seat,
        rules=rules,
        moment=moment,
    )


def placeholder_upcard(rules: Rules, limit: int) -> int:
    """Some card setting ``limit``, for a view whose upcard is unknown (only its limit matters)."""
    return next(c for c in range(N_CARDS) if rules.knock_limit(c) == limit)


def view_of(position: Position) -> np.ndarray:
    """Seat 0's view row at the position, as the engine would show it."""
    p = position
    view = np.zeros(L.V_SIZE, dtype=np.int64)
    rules = p.rules.to_array()
    view[L.V_SEAT] = 0
    view[L.V_PLAYERS] = 2
    view[L.V_DEALER] = p.dealer
    view[L.V_HAND] = p.hand
    upcard = p.upcard if p.upcard is not None else placeholder_upcard(p.rules, p.knock_limit)
    view[L.V_UPCARD] = upcard
    view[L.V_KNOCK_LIMIT] = p.knock_limit
    view[L.V_MULTIPLIER] = p.rules.score_multiplier(upcard) if p.upcard is not None else 1
    view[L.V_STOCK_LEFT] = p.stock
    view[L.V_PILE_SIZE] = len(p.pile)
    view[L.V_PILE : L.V_PILE + len(p.pile)] = p.pile
    view[L.V_PILE_MASK] = mask_of(p.pile)
    taken_by_me = 0 if p.took is None else 1 << p.took
    pile_draws = (p.opponent_took | p.opponent_known).bit_count() + taken_by_me.bit_count()
    view[L.V_DRAWS] = FIRST_STOCK - p.stock + pile_draws
    view[L.V_MY_DRAWS] = (view[L.V_DRAWS] + 1) // 2
    view[L.V_DRAWN] = L.NO_CARD  # the card drawn this turn: unknown from the stock, so any of the hand
    if p.moment == "after_draw":
        view[L.V_DRAWN] = p.took if p.took is not None else next(iter(_bits(p.hand)))
    view[L.V_FORBIDDEN] = p.took if p.took is not None and not p.rules.discard_taken_card else L.NO_CARD
    if p.scores is not None:
        view[L.V_SCORES : L.V_SCORES + 2] = p.scores
    view[L.V_TAKEN] = taken_by_me
    view[L.V_TAKEN + 1] = p.opponent_took | p.opponent_known
    if p.moment in ("offer", "forced_stock") or (p.took is not None and p.stock == FIRST_STOCK):
        first = 1 - p.dealer  # the non-dealer is offered first
        for k in range(p.passed):
            view[L.V_PASSED + (first + k) % 2] = 1
    elif p.moment == "after_draw" and p.stock == FIRST_STOCK - 1 and len(p.pile) == 1 and p.took is None:
        view[L.V_PASSED : L.V_PASSED + 2] = 1
    view[L.V_RULES : L.V_RULES + L.N_RULE_FIELDS] = rules
    return view


def _bits(mask: int) -> Iterable[int]:
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


# -- the answer -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Estimate:
    """A mean with its confidence interval."""

    mean: float
    low: float
    high: float

    @property
    def half_width(self) -> float:
        return (self.high - self.low) / 2


@dataclass(frozen=True)
class Candidate:
    """One action, its estimates over the worlds it was played in."""

    action: str  # "knock" or "continue"
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
    vs_best: Estimate | None  # this action minus the recommended one, same worlds
    status: str  # "recommended", "beaten" (worse with confidence) or "open"

    @property
    def label(self) -> str:
        took = {"pile": "take the pile top, then ", "upcard": "take the upcard, then "}.get(self.draw, "")
        if self.draw == "stock":
            return "draw from the stock"
        if self.draw == "pass":
            return "pass the upcard"
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
    recommendation: Candidate
    candidates: tuple[Candidate, ...]
    objective: str
    stop_reason: str  # "separated", "precision", "samples" or "time"
    samples: int
    seconds: float
    workers: int
    seed: int
    confidence: float
    precision: float | None
    position: Position
    me: str
    opponent: str
    prior: str = "played"
    opponent_draws: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "recommendation": self.recommendation.recommendation(),
            "candidates": [c.to_dict() for c in self.candidates],
            "objective": self.objective,
            "stop_reason": self.stop_reason,
            "stop": STOP_TEXT[self.stop_reason],
            "samples": self.samples,
            "seconds": round(self.seconds, 3),
            "workers": self.workers,
            "seed": self.seed,
            "confidence": self.confidence,
            "precision": self.precision,
            "strategies": {"me": self.me, "opponent": self.opponent},
            "prior": self.prior,
            "opponent_draws": self.opponent_draws,
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
        known = d["opponent_known"]
        out.append(f"opponent  holds {known + ' and ' if known else ''}{10 - p.opponent_known.bit_count()} unseen "
                   f"cards (of {d['unseen']}); plays {self.opponent}; you play on as {self.me}")
        if p.scores is not None:
            out.append(f"scores    you {p.scores[0]}, opponent {p.scores[1]} (game to {p.rules.target_score})")
        out.append(f"sampled   {self.samples:,} worlds in {self.seconds:.2f} s on {self.workers} worker"
                   f"{'s' if self.workers > 1 else ''}: {STOP_TEXT[self.stop_reason]}")
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
            if c.status == "recommended":
                line += f"  {'best':>18}"
            elif c.vs_best is not None:
                spec = "+.1%" if self.objective == "win" else "+.1f"
                line += f"  {_fmt(c.vs_best, spec):>18}"
            out.append(line)
        out.append("")
        rec = self.recommendation
        if rec.action == "knock":
            melds = f" (lay {' | '.join(rec.arrangement)})" if rec.arrangement else ""
            what = "BIG GIN" if rec.big_gin else ("GO GIN" if rec.deadwood == 0 else "KNOCK")
            prefix = {"pile": "take the pile top, then ", "upcard": "take the upcard, then "}.get(rec.draw, "")
            discard = "" if rec.big_gin else f", discarding {rec.discard}"
            out.append(f"recommendation: {prefix}{what}{discard}{melds}")
        elif any(c.action == "knock" for c in self.candidates):
            out.append(f"recommendation: DON'T KNOCK: {rec.label}")
        else:
            out.append(f"recommendation: {rec.label} (no knock is possible)")
        return out


def _fmt(e: Estimate | None, spec: str) -> str:
    if e is None:
        return "-"
    return f"{format(e.mean, spec)} [{format(e.low, spec)}, {format(e.high, spec)}]"


STOP_TEXT = {
    "separated": "the best action is ahead of every other with confidence",
    "precision": "every action still in contention is estimated to the requested precision; none is ahead with "
                 "confidence",
    "samples": "stopped at the sample budget",
    "time": "stopped at the time budget",
    "single": "only one action is possible",
}


# -- the Monte Carlo --------------------------------------------------------------------------

METRICS = {"points": A.O_POINTS, "win": A.O_WIN}
DRAW_NAMES = {A.PRE_NONE: None, A.PRE_PILE: "pile", A.PRE_TAKE: "upcard", A.PRE_STOCK: "stock", A.PRE_PASS: "pass"}


class _Tally:
    """Running sums per column, and per pair of columns over the worlds both were played in."""

    def __init__(self, columns: int) -> None:
        shape = (len(METRICS), columns)
        self.n = np.zeros(columns)
        self.sum = np.zeros(shape)
        self.sq = np.zeros(shape)
        self.pair_n = np.zeros((columns, columns))
        self.pair_sum = np.zeros(shape + (columns,))
        self.pair_sq = np.zeros(shape + (columns,))
        self.cross = np.zeros(shape + (columns,))
        self.outcomes = np.zeros((columns, 3))
        self.undercuts = np.zeros(columns)

    def add(self, out: np.ndarray, active: np.ndarray) -> None:
        mask = active.astype(np.float64)
        for m, index in enumerate(METRICS.values()):
            x = out[:, :, index].astype(np.float64) * mask
            s, q = x.sum(axis=0), (x * x).sum(axis=0)
            self.sum[m] += s
            self.sq[m] += q
            self.pair_sum[m] += s[:, None] * mask[None, :]
            self.pair_sq[m] += q[:, None] * mask[None, :]
            self.cross[m] += x.T @ x
        self.pair_n += out.shape[0] * np.outer(mask, mask)
        self.n += out.shape[0] * mask
        for code in range(3):
            self.outcomes[:, code] += ((out[:, :, A.O_OUTCOME] == code) * mask).sum(axis=0)
        self.undercuts += (out[:, :, A.O_UNDERCUT] * mask).sum(axis=0)

    def mean(self, metric: int, c: int) -> float:
        return self.sum[metric, c] / self.n[c]

    def estimate(self, metric: int, c: int, z: float) -> Estimate:
        n = self.n[c]
        mean = self.sum[metric, c] / n
        return _interval(mean, self.sq[metric, c] - n * mean * mean, n, z)

    def difference(self, metric: int, j: int, k: int, z: float) -> Estimate:
        """Column j minus column k over their common worlds."""
        n = self.pair_n[j, k]
        mean = (self.pair_sum[metric, j, k] - self.pair_sum[metric, k, j]) / n
        squares = self.pair_sq[metric, j, k] + self.pair_sq[metric, k, j] - 2 * self.cross[metric, j, k]
        return _interval(mean, squares - n * mean * mean, n, z)


def _interval(mean: float, deviations: float, n: float, z: float) -> Estimate:
    sd = math.sqrt(max(deviations, 0.0) / (n - 1)) if n > 1 else math.inf
    half = z * sd / math.sqrt(n)
    return Estimate(float(mean), float(mean - half), float(mean + half))


def _split(lo: int, hi: int, parts: int) -> list[tuple[int, int]]:
    edges = np.linspace(lo, hi, parts + 1).round().astype(int)
    return [(int(a), int(b)) for a, b in zip(edges[:-1], edges[1:]) if b > a]


def _strategy(spec: str | Strategy, extra_paths) -> Strategy:
    return spec if isinstance(spec, Strategy) else resolve(spec, extra_paths=extra_paths)


def advise(
    hand,
    *,
    upcard=None,
    limit: int | None = None,
    pile=(),
    opponent_took=(),
    took=None,
    stock: int | None = None,
    scores: Sequence[int] | None = None,
    rules=None,
    passed: int = 0,
    dealer: str | None = None,
    opponent: str | Strategy = "simple",
    me: str | Strategy = "simple",
    seed: int = 0,
    precision: float | None = 0.5,
    win_precision: float = 0.01,
    max_samples: int = 200_000,
    max_seconds: float | None = 10.0,
    discards: int = 6,
    confidence: float = 0.95,
    objective: str | None = None,
    prior: str = "played",
    opponent_draws: int | None = None,
    race: bool = True,
    workers: int | None = None,
    extra_paths=(),
) -> Advice:
    """Weigh knocking (with each legal discard) against playing on (with each sensible discard).

    Cards are text ("As 2s") or indices. ``hand`` has 10 cards before your
    draw (then taking the pile top, drawing from the stock and, on the first
    turn, passing are weighed too) or 11 after it; ``took`` is the card you
    just took from the pile (it may not go straight back). ``pile`` lists
    the discard pile bottom first; ``opponent_took`` the cards the opponent
    took from it this hand. ``stock`` is checked against the other counts.
    ``scores`` (yours, the opponent's) add the chance to win the game,
    played on to the target by the continuation strategies, and make it
    the objective unless ``objective="points"``.

    ``prior`` sets how the opponent's unknown cards are drawn: ``uniform``
    among the unseen cards, or ``played`` (default): a uniform hand improved
    by the opponent's stock draws so far (``opponent_draws``, estimated from
    the stock when not given), each followed by the discard that leaves the
    least deadwood, as an opponent that has played those turns would hold.

    ``opponent`` and ``me`` are the strategies that play the hand (and the
    game) on. Sampling stops when the best action is ahead of every other
    with confidence and its interval is within ``precision`` points (None:
    separation alone), when every action still open is within
    ``precision``, or at ``max_samples`` worlds or ``max_seconds``. Actions
    behind the best with confidence stop being sampled (``race=False``:
    every action is sampled to the end). The same seed gives the same
    answer whatever ``workers`` (unless the time budget stops it).
    """
    started = time.perf_counter()
    position = read_position(hand, upcard, limit, pile, opponent_took, took, stock, scores, rules, passed, dealer)
    game_mode = position.scores is not None
    objective = objective or ("win" if game_mode else "points")
    if objective not in OBJECTIVES:
        raise ValueError(f"objective {objective!r}: one of {', '.join(OBJECTIVES)}")
    if objective == "win" and not game_mode:
        raise ValueError("the win objective needs the scores")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence {confidence}: a probability between 0 and 1")
    if max_samples < 1:
        raise ValueError("max_samples must be at least 1")
    if precision is not None and precision <= 0:
        raise ValueError("precision must be positive (or None: stop on separation alone)")
    if discards < 1:
        raise ValueError("discards: try at least one discard when playing on")
    if prior not in PRIORS:
        raise ValueError(f"prior {prior!r}: one of {', '.join(PRIORS)}")
    if opponent_draws is not None and (not isinstance(opponent_draws, (int, np.integer)) or opponent_draws < 0):
        raise ValueError(f"opponent_draws {opponent_draws!r}: a number of stock draws, 0 or more")
    prior_vector = world_prior(position, prior, opponent_draws)
    workers = max(1, int(workers or os.cpu_count() or 1))
    seats = (_strategy(me, extra_paths), _strategy(opponent, extra_paths))

    view = view_of(position)
    kind = position.kind
    columns = np.zeros((A.MAX_COLUMNS, A.N_CAND_FIELDS), dtype=np.int64)
    n_cols = int(A.candidates_nb(view, kind, discards, columns))
    columns = np.ascontiguousarray(columns[:n_cols])
    action_of = columns[:, A.C_ACTION]
    n_actions = int(action_of.max()) + 1
    members = [np.flatnonzero(action_of == a) for a in range(n_actions)]
    params = np.zeros((L.MAX_SEATS, L.MAX_PARAMS), dtype=np.float64)
    for seat in range(L.MAX_SEATS):
        params[seat] = seats[seat % 2].vector()
    key = stream_key(seed)
    metric = list(METRICS).index(objective)
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    z_separate = NormalDist().inv_cdf(1 - (1 - confidence) / (2 * max(n_actions - 1, 1) * LOOKS))

    tally = _Tally(n_cols)
    active = np.ones(n_cols, dtype=np.int64)
    open_actions = set(range(n_actions))
    done, batch, reason = 0, FIRST_BATCH, None
    sampling_started = time.perf_counter()  # the time budget is for sampling, not for checks or compiling
    with ThreadPoolExecutor(max_workers=workers) as pool:
        while True:
            size = min(batch, max_samples - done)
            out = np.zeros((size, n_cols, A.N_OUT), dtype=np.int64)
            jobs = []
            for lo, hi in _split(done, done + size, workers):
                status = np.zeros(E.STATUS_SIZE, dtype=np.int64)
                part = out[lo - done : hi - done]
                jobs.append((status, pool.submit(
                    A.advise_batch_nb, seats[0].decide, seats[1].decide, A.forced_nb, params, view, kind, columns,
                    n_cols, active, key, int(game_mode), prior_vector, lo, hi, part, status)))
            batch_started = time.perf_counter()
            for status, job in jobs:
                _check(job.result(), status, seats, seed)
            batch_seconds = time.perf_counter() - batch_started
            tally.add(out, active)
            done += size
            batch = min(batch * 2, BATCH_CAP[game_mode])

            best = _leader(tally, members, open_actions, metric)
            for a in sorted(open_actions - {best}):
                gap = tally.difference(metric, _representative(tally, members[a], metric),
                                       _representative(tally, members[best], metric), z_separate)
                if race and gap.high < 0:
                    open_actions.discard(a)
                    active[members[a]] = 0
            precise = all(_precise(tally, _representative(tally, members[a], metric), z, precision, win_precision,
                                   game_mode) for a in open_actions)
            if len(open_actions) == 1 and (precision is None or precise):
                reason = "single" if n_actions == 1 else "separated"
                break
            if precision is not None and precise:
                reason = "precision"
                break
            if done >= max_samples:
                reason = "samples"
                break
            elapsed = time.perf_counter() - sampling_started
            next_batch = batch_seconds * min(batch, max_samples - done) / size
            if max_seconds is not None and elapsed + next_batch > max_seconds:
                reason = "time"
                break

    best = _leader(tally, members, open_actions, metric)
    candidates = []
    for a in range(n_actions):
        rep = _representative(tally, members[a], metric)
        status = "recommended" if a == best else ("open" if a in open_actions else "beaten")
        vs_best = None if a == best else tally.difference(metric, rep, _representative(tally, members[best], metric), z)
        candidates.append(_candidate(columns[rep], rep, tally, z, game_mode, status, vs_best))
    return Advice(
        recommendation=candidates[best],
        candidates=tuple(candidates),
        objective=objective,
        stop_reason=reason,
        samples=done,
        seconds=time.perf_counter() - started,
        workers=workers,
        seed=seed,
        confidence=confidence,
        precision=precision,
        position=position,
        me=seats[0].name,
        opponent=seats[1].name,
        prior=prior,
        opponent_draws=int(max(prior_vector[0], 0)),
    )


def world_prior(position: Position, prior: str, opponent_draws: int | None = None) -> np.ndarray:
    """The kernel's ``[draws, flags, last discard]`` for a prior (see ``advise_nb.sample_world_nb``)."""
    if prior == "uniform":
        return np.array([-1, 0, -1], dtype=np.int64)
    draws = estimated_opponent_draws(position) if opponent_draws is None else int(opponent_draws)
    last = L.NO_CARD
    if draws > 0 or position.opponent_known:  # the opponent has played a turn: its discard is the last card
        if position.took is not None:
            last = position.took
        elif position.pile:
            last = position.pile[-1]
    return np.array([draws, A.PRIOR_PLAYED, last], dtype=np.int64)


def estimated_opponent_draws(position: Position) -> int:
    """The opponent's stock draws this hand, if the turns so far alternated (your own pile takes unknown)."""
    stock_draws = FIRST_STOCK - position.stock
    if position.moment == "after_draw" and position.took is None:
        stock_draws -= 1  # your draw of this turn
    turns = stock_draws + position.opponent_known.bit_count()
    return max((turns + 1) // 2 - position.opponent_known.bit_count(), 0)


def _check(code: int, status: np.ndarray, seats, seed: int) -> None:
    if code == L.E_ILLEGAL:
        try:
            raise_illegal(status, seats, seed)
        except IllegalDecision as exc:
            raise IllegalDecision(f"while playing the candidates out: {exc}") from None
    if code != L.E_NONE:
        raise RuntimeError(f"advise kernel failed with status {code}")


def _representative(tally: _Tally, columns: np.ndarray, metric: int) -> int:
    """The column that stands for an action: its best meld arrangement (first of the best on ties)."""
    means = [tally.mean(metric, c) for c in columns]
    return int(columns[int(np.argmax(means))])


def _leader(tally: _Tally, members, actions, metric: int) -> int:
    """The open action with the best mean (the first listed on ties: knocks come first)."""
    return max(sorted(actions), key=lambda a: (tally.mean(metric, _representative(tally, members[a], metric)), -a))


def _precise(tally, c, z, precision, win_precision, game_mode) -> bool:
    if precision is None:
        return False
    ok = tally.estimate(0, c, z).half_width <= precision
    if game_mode:
        ok = ok and tally.estimate(1, c, z).half_width <= win_precision
    return ok


def _candidate(column, c, tally: _Tally, z, game_mode, status, vs_best) -> Candidate:
    knock = column[A.C_KIND] == A.SHOWDOWN
    discard = int(column[A.C_DISCARD])
    big_gin = bool(knock and discard == L.BIG_GIN)
    n = tally.n[c]
    melds = None
    if knock:
        melds = tuple(format_hand(int(m)) for m in column[A.C_MELDS : A.C_MELDS + 4] if m)
    undercut = None
    if knock:
        share = tally.undercuts[c] / n
        half = z * math.sqrt(max(share * (1 - share), 0.0) / n)
        undercut = Estimate(share, max(share - half, 0.0), min(share + half, 1.0))
    win = tally.estimate(1, c, z) if game_mode else None
    if win is not None:
        win = Estimate(win.mean, max(win.low, 0.0), min(win.high, 1.0))
    outcomes = tally.outcomes[c] / n
    return Candidate(
        action="knock" if knock else "continue",
        discard=None if big_gin or discard < 0 else format_card(discard),
        draw=DRAW_NAMES[int(column[A.C_PRE])],
        big_gin=big_gin,
        arrangement=melds,
        deadwood=int(column[A.C_DEADWOOD]) if knock else None,
        samples=int(n),
        points=tally.estimate(0, c, z),
        win=win,
        undercut=undercut,
        hand_outcomes={"i_score": float(outcomes[A.WON_HAND]), "opponent_scores": float(outcomes[A.LOST_HAND]),
                       "nobody": float(outcomes[A.NO_SCORE])},
        vs_best=vs_best,
        status=status,
    )


# -- the file form ------------------------------------------------------------------------------

REQUEST_FIELDS = ("hand", "upcard", "limit", "pile", "opponent_took", "took", "stock", "scores", "rules", "passed",
                  "dealer", "opponent", "me", "seed", "precision", "max_samples", "max_seconds", "discards",
                  "confidence", "objective", "prior", "opponent_draws", "race", "workers")


def load_request(path: str | Path) -> dict[str, Any]:
    """The keyword arguments of ``advise`` from a JSON or TOML file (same names; cards as text or lists)."""
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as exc:
        raise ValueError(f"cannot read {path}: {exc.strerror}") from None
    try:
        data = json.loads(text) if path.suffix.lower() == ".json" else tomllib.loads(text)
    except (json.JSONDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ValueError(f"{path} is not valid {'JSON' if path.suffix.lower() == '.json' else 'TOML'}: {exc}") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected a table of fields")
    unknown = sorted(set(data) - set(REQUEST_FIELDS))
    if unknown:
        raise ValueError(f"{path}: unknown field(s) {', '.join(unknown)}; known: {', '.join(REQUEST_FIELDS)}")
    return data


# -- realistic positions, for benchmarks and calibration --------------------------------------------


def positions_from_play(rules: Rules, strategy: str, hands: int, seed: int, knock_only: bool = True):
    """Seat 0's decisions after its draws in ``hands`` hands of ``strategy`` against itself.

    Yields ``(request, opponent_hand, opponent_stock_draws)``: ``request`` holds
    the keyword arguments of ``advise`` that describe what seat 0 knew; the
    other two are the truth it did not know. With ``knock_only``, only
    decisions where a knock was legal.
    """
    from .engine import kernel_rules, resolve_all, run_kernel

    seats = resolve_all([strategy], 2)
    _, _, trace = run_kernel(kernel_rules(rules, True), seats, seed, 0, hands, trace_capacity=hands * 120)
    h: dict[str, Any] = {"game": -1}
    for game, _, seat, event, a, _ in trace.tolist():
        if event == E.EV_DEAL:
            if h["game"] != game:
                h = {"game": game, "hands": [0, 0], "pile": [], "took": [0, 0], "stock": FIRST_STOCK, "passes": 0,
                     "stock_draws": [0, 0]}
            h["hands"][seat] = a
        elif event == E.EV_UPCARD:
            h.update(upcard=a, dealer=seat, pile=[a])
        elif event == E.EV_PASS:
            h["passes"] += 1
        elif event in (E.EV_TAKE_UPCARD, E.EV_DRAW_PILE, E.EV_DRAW_STOCK):
            took = None
            if event == E.EV_DRAW_STOCK:
                h["stock"] -= 1
                h["stock_draws"][seat] += 1
            else:
                took = h["pile"].pop()
                h["took"][seat] |= 1 << took
            h["hands"][seat] |= 1 << a
            limit = rules.knock_limit(h["upcard"])
            forbidden = took if took is not None and not rules.discard_taken_card else L.NO_CARD
            if seat == 0 and (not knock_only or E.knock_discards_nb(h["hands"][0], limit, forbidden)):
                request = {
                    "hand": format_hand(h["hands"][0]), "upcard": format_card(h["upcard"]),
                    "pile": " ".join(format_card(c) for c in h["pile"]), "opponent_took": format_hand(h["took"][1]),
                    "took": format_card(took) if took is not None else None, "stock": h["stock"], "rules": rules,
                    "passed": h["passes"], "dealer": "me" if h["dealer"] == 0 else "opponent",
                }
                yield request, h["hands"][1], h["stock_draws"][1]
        elif event in (E.EV_DISCARD, E.EV_KNOCK) and a != L.BIG_GIN:
            h["hands"][seat] &= ~(1 << a)
            h["pile"].append(a)
