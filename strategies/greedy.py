"""greedy: always the move that lowers deadwood most; knock whenever legal.

Takes the upcard or the pile top only when, after its best discard, the
hand's deadwood goes down; discards to minimise deadwood (ties: the highest
card); knocks as soon as it may, with the discard leaving the least deadwood.
"""

from numba import njit

from oklasim.strategy_api import (
    BIG_GIN,
    D_DISCARD,
    D_DRAW,
    D_KNOCK,
    D_TAKE_UPCARD,
    DECIDE_SIGNATURE,
    V_BIG_GIN,
    V_HAND,
    V_KNOCK_DISCARDS,
    V_PILE,
    V_PILE_SIZE,
    Family,
    allowed_discards_nb,
    best_discard_nb,
    deadwood_nb,
    min_deadwood_discards_nb,
)

FAMILY = Family(
    name="greedy",
    doc="Take a card only if it lowers your best deadwood; discard to minimise deadwood; knock whenever legal.",
)


@njit(DECIDE_SIGNATURE, cache=True)
def decide_nb(kind, view, params):
    hand = view[V_HAND]
    if kind == D_TAKE_UPCARD or kind == D_DRAW:
        top = view[V_PILE + view[V_PILE_SIZE] - 1]
        with_top = hand | (1 << top)
        after, _ = min_deadwood_discards_nb(with_top, hand)  # the taken card may not go straight back
        return 1 if after < deadwood_nb(hand) else 0
    if kind == D_KNOCK:
        if view[V_BIG_GIN]:
            return BIG_GIN
        return best_discard_nb(hand, view[V_KNOCK_DISCARDS])
    if kind == D_DISCARD:
        return best_discard_nb(hand, allowed_discards_nb(view))
    return 0  # D_ARRANGE: the first optimal arrangement
