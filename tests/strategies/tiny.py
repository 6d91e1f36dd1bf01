"""tiny: greedy with a knock threshold, a float parameter and a fixed one (for the tune tests)."""

from numba import njit

from oklasim.strategy_api import (
    D_DISCARD,
    D_DRAW,
    D_KNOCK,
    D_TAKE_UPCARD,
    DECIDE_SIGNATURE,
    V_KNOCK_LIMIT,
    Family,
    Param,
    knock_if_at_most_nb,
    least_deadwood_discard_nb,
    take_lowers_deadwood_nb,
)

FAMILY = Family(
    name="tiny",
    doc="greedy that knocks only with deadwood <= knock_at and <= limit_share of the knock limit.",
    params=(
        Param("knock_at", 10, 0, 10, "knock only with deadwood <= this"),
        Param("limit_share", 1.0, 0.0, 1.0, "and only with deadwood <= this share of the knock limit", integer=False),
        Param("version", 1, 1, 1, "fixed: no range, so it cannot be tuned"),
    ),
)


@njit(DECIDE_SIGNATURE, cache=True)
def decide_nb(kind, view, params):
    if kind == D_TAKE_UPCARD or kind == D_DRAW:
        return take_lowers_deadwood_nb(view)
    if kind == D_KNOCK:
        return knock_if_at_most_nb(view, min(params[0], params[1] * view[V_KNOCK_LIMIT]))
    if kind == D_DISCARD:
        return least_deadwood_discard_nb(view)
    return 0
