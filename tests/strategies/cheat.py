"""cheat: plays greedy but breaks one rule chosen by a parameter (for the engine's legality checks)."""

from numba import njit

from oklasim.strategy_api import (
    D_DISCARD,
    D_DRAW,
    D_TAKE_UPCARD,
    DECIDE_SIGNATURE,
    V_FORBIDDEN,
    V_HAND,
    Family,
    Param,
    allowed_discards_nb,
    best_discard_nb,
)

FAMILY = Family(
    name="cheat",
    doc="Breaks a rule: 0 = discards a card it does not hold, 1 = answers 7 to a yes/no question, "
    "2 = discards the card it just took from the pile.",
    params=(Param("foul", 0, 0, 2, "which rule to break"),),
)


@njit(DECIDE_SIGNATURE, cache=True)
def decide_nb(kind, view, params):
    foul = int(params[0])
    if kind == D_TAKE_UPCARD:
        return 7 if foul == 1 else 1
    if kind == D_DRAW:
        return 1
    if kind == D_DISCARD:
        if foul == 0:
            hand = view[V_HAND]
            card = 0
            while hand >> card & 1:
                card += 1
            return card
        if foul == 2 and view[V_FORBIDDEN] >= 0:
            return view[V_FORBIDDEN]
        return best_discard_nb(view[V_HAND], allowed_discards_nb(view))
    return -1
