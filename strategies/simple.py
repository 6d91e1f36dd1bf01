"""simple: the textbook beginner's plan, close to OpenSpiel's simple gin rummy bot.

Takes the upcard or the pile top when it lets it knock at once or when the
card would sit in a meld of every optimal arrangement; otherwise draws from
the stock. Knocks whenever legal, discards the highest-ranked deadwood card
of an optimal arrangement, and lays the first optimal arrangement.
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
    V_KNOCK_LIMIT,
    V_PILE,
    V_PILE_SIZE,
    Family,
    allowed_discards_nb,
    always_melded_nb,
    best_discard_nb,
    deadwood_after_discard_nb,
    highest_deadwood_card_nb,
    min_deadwood_discards_nb,
)

FAMILY = Family(
    name="simple",
    doc="Take a card that knocks or melds; knock whenever legal; discard the highest deadwood card.",
)


@njit(DECIDE_SIGNATURE, cache=True)
def decide_nb(kind, view, params):
    hand = view[V_HAND]
    if kind == D_TAKE_UPCARD or kind == D_DRAW:
        top = view[V_PILE + view[V_PILE_SIZE] - 1]
        with_top = hand | (1 << top)
        if always_melded_nb(with_top, top):
            return 1
        if deadwood_after_discard_nb(with_top) > view[V_KNOCK_LIMIT]:  # cheap test first
            return 0
        after, _ = min_deadwood_discards_nb(with_top, hand)  # the taken card may not go straight back
        return 1 if after <= view[V_KNOCK_LIMIT] else 0
    if kind == D_KNOCK:
        if view[V_BIG_GIN]:
            return BIG_GIN
        return best_discard_nb(hand, view[V_KNOCK_DISCARDS])
    if kind == D_DISCARD:
        allowed = allowed_discards_nb(view)
        card = highest_deadwood_card_nb(hand, allowed)
        return card if card >= 0 else best_discard_nb(hand, allowed)
    return 0  # D_ARRANGE: the first optimal arrangement
