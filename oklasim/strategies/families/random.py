"""random: uniformly random legal decisions; knocks with a set probability.

The floor of any comparison: a strategy that cannot beat it has a bug.
"""

from oklasim.strategy_api import (
    BIG_GIN,
    D_ARRANGE,
    D_DISCARD,
    D_DRAW,
    D_KNOCK,
    D_TAKE_UPCARD,
    NO_CARD,
    V_BIG_GIN,
    V_KNOCK_DISCARDS,
    V_N_ARRANGEMENTS,
    Family,
    Param,
    allowed_discards_nb,
    decide_kernel,
    rand_below_nb,
    rand_unit_nb,
    random_card_nb,
)

FAMILY = Family(
    name="random",
    uses_drawn_card=False,  # its knock and discard never read V_DRAWN
    doc="Uniformly random legal decisions; knocks (when legal) with probability knock_probability.",
    params=(
        Param("knock_probability", 0.5, 0.0, 1.0, "chance to knock when a knock is legal"),
        Param("take_probability", 0.5, 0.0, 1.0, "chance to take the upcard or the pile top"),
    ),
)

KNOCK_PROBABILITY, TAKE_PROBABILITY = FAMILY.indexes("knock_probability", "take_probability")


@decide_kernel()
def decide_nb(kind, view, params):
    if kind == D_TAKE_UPCARD or kind == D_DRAW:
        return 1 if rand_unit_nb(view) < params[TAKE_PROBABILITY] else 0
    if kind == D_KNOCK:
        if rand_unit_nb(view) >= params[KNOCK_PROBABILITY]:
            return NO_CARD
        if view[V_BIG_GIN] and (view[V_KNOCK_DISCARDS] == 0 or rand_below_nb(view, 2) == 0):
            return BIG_GIN
        return random_card_nb(view, view[V_KNOCK_DISCARDS])
    if kind == D_DISCARD:
        return random_card_nb(view, allowed_discards_nb(view))
    if kind == D_ARRANGE:
        return rand_below_nb(view, view[V_N_ARRANGEMENTS])
    return NO_CARD
