"""simple: the textbook beginner's plan, close to OpenSpiel's simple gin rummy bot.

Takes the upcard or the pile top when it lets it knock at once or when the
card would sit in a meld of every optimal arrangement; otherwise draws from
the stock (the kit's ``meld_or_knock_take_nb``). Knocks whenever legal,
discards the highest-ranked deadwood card of an optimal arrangement, and
lays the first optimal arrangement.
"""

from oklasim.strategy_api import (
    BIG_GIN,
    D_DISCARD,
    D_DRAW,
    D_KNOCK,
    D_TAKE_UPCARD,
    V_BIG_GIN,
    V_HAND,
    V_KNOCK_DISCARDS,
    Family,
    allowed_discards_nb,
    best_discard_nb,
    decide_kernel,
    highest_deadwood_card_nb,
    meld_or_knock_take_nb,
)

FAMILY = Family(
    name="simple",
    uses_drawn_card=False,  # its knock and discard never read V_DRAWN
    doc="Take a card that knocks or melds; knock whenever legal; discard the highest deadwood card.",
)


@decide_kernel()
def decide_nb(kind, view, params):
    hand = view[V_HAND]
    if kind == D_TAKE_UPCARD or kind == D_DRAW:
        return meld_or_knock_take_nb(view)
    if kind == D_KNOCK:
        if view[V_BIG_GIN]:
            return BIG_GIN
        return best_discard_nb(hand, view[V_KNOCK_DISCARDS])
    if kind == D_DISCARD:
        allowed = allowed_discards_nb(view)
        card = highest_deadwood_card_nb(hand, allowed)
        return card if card >= 0 else best_discard_nb(hand, allowed)
    return 0  # D_ARRANGE: the first optimal arrangement
