"""The coach at the table: the advisor on the person's decision, with the hand's history, told in one sentence
(``oklasim.advise.brief``). The terminal (``oklasim play --coach``) and the web table both ask it."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from oklasim._kernels import layout as L
from oklasim.game.cards import format_card, format_hand
from oklasim.game.rules import Rules
from oklasim.sim.board import Event

if TYPE_CHECKING:  # the advisor loads on the first advice, not with the table
    from oklasim.advise.brief import Brief

# The coach's budget is a number of worlds, not seconds: the same situation gets the same advice on any machine.
# Most worlds of a hand's history weigh nothing (they do not explain it), so the budget is large; without a history
# (the first offer) every world is played on to the game's end, and the precision stop ends it well before: a
# player reads whole percents and acts on the paired differences, so ±2 points of the chance to win suffice. The
# time bound only keeps a very slow machine from stalling the table.
COACH_SAMPLES = 20_000
COACH_WIN_PRECISION = 0.02
COACH_SECONDS = 60.0


def coach_brief(view: np.ndarray, seen: list[Event], opponent: str, rules: Rules) -> Brief:
    """The coach's word on the person's decision: the advisor run with the hand's whole history (two players), told
    in one sentence."""
    from oklasim.advise import advise
    from oklasim.advise.brief import brief, unavailable

    if rules.players != 2:
        return unavailable("the advisor weighs two-player hands")
    me, other = int(view[L.V_SEAT]), 1 - int(view[L.V_SEAT])
    try:
        advice = advise(
            **position_told(view, seen), scores=(int(view[L.V_SCORES + me]), int(view[L.V_SCORES + other])),
            rules=rules, opponent=opponent, max_samples=COACH_SAMPLES, win_precision=COACH_WIN_PRECISION,
            max_seconds=COACH_SECONDS, seed=1,
        )
    except ValueError as exc:
        return unavailable(str(exc).rstrip("."))
    return brief(advice)


def position_told(view: np.ndarray, seen: list[Event] | tuple[Event, ...]) -> dict:
    """The advisor's fields for a two-player seat at a decision: its hand, the upcard and the hand's history as the
    seat saw it. At the first offer of the upcard nothing has happened yet: the deal alone is told (the seat, offered
    first, is not the dealer)."""
    from oklasim.advise.history import history_text

    history = history_text(seen, int(view[L.V_SEAT]))
    told = {"history": history} if history else {"pile": format_card(view[L.V_UPCARD]), "dealer": "opponent"}
    return {"hand": format_hand(int(view[L.V_HAND])), "upcard": format_card(view[L.V_UPCARD]), **told}


class Coach:
    """``oklasim play --coach``: a brief at each of the person's decisions. The hand's last brief is kept, so that a
    plan dropped after the draw ('take Qd, then discard 4s', then 'discard 6d') says what was seen since."""

    def __init__(self, opponent: str, rules: Rules):
        self.opponent, self.rules = opponent, rules
        self.last: tuple[int, int, Brief] | None = None  # the hand, how many of its events were seen then, the brief

    def __call__(self, view: np.ndarray, seen: list[Event]) -> Brief:
        from oklasim.advise.brief import abandons

        told = coach_brief(view, seen, self.opponent, self.rules)
        hand = int(view[L.V_HAND_NUMBER])
        if self.last is not None and self.last[0] == hand and abandons(self.last[2], told):
            since = news(seen[self.last[1]:], int(view[L.V_SEAT]))
            told = told.noting(f"changed: {since}" if since else "changed on a closer look: nothing new was seen")
        self.last = (hand, len(seen), told)
        return told


NEWS = {"pass": "passed", "take_upcard": "took {}", "draw_pile": "took {}", "draw_stock": "drew {}",
        "discard": "threw {}"}


def news(events: list[Event], me: int) -> str:
    """What ``events`` showed the person, in a few words: 'you drew 7h', 'the opponent took 5c'. Its own takes and
    passes are left out: it knew them before it made them."""
    said = []
    for e in events:
        if e.name not in NEWS or (e.seat == me and e.name != "draw_stock"):
            continue
        card = format_card(e.a) if 0 <= e.a < 52 else "from the stock"  # an opponent's stock card is hidden
        said.append(("you " if e.seat == me else "the opponent ") + NEWS[e.name].format(card))
    return ", ".join(said)
