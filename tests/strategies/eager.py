"""eager: never takes from the pile, knocks whenever the rules allow (to observe knock legality)."""

from numba import njit

from oklasim.strategy_api import (
    D_DISCARD,
    D_KNOCK,
    DECIDE_SIGNATURE,
    V_HAND,
    V_KNOCK_DISCARDS,
    Family,
    allowed_discards_nb,
    best_discard_nb,
)

FAMILY = Family(name="eager", doc="Draws from the stock; knocks whenever legal; else the best discard.")


@njit(DECIDE_SIGNATURE, cache=True)
def decide_nb(kind, view, params):
    if kind == D_KNOCK:
        return best_discard_nb(view[V_HAND], view[V_KNOCK_DISCARDS])
    if kind == D_DISCARD:
        return best_discard_nb(view[V_HAND], allowed_discards_nb(view))
    return 0
