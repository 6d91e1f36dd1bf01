"""greedy: always the move that lowers deadwood most; knock whenever legal.

Takes the upcard or the pile top only when, after its best discard, the
hand's deadwood goes down; discards to minimise deadwood (ties: the highest
card); knocks as soon as it may, with the discard leaving the least deadwood.
Its three rules are kit functions (``take_lowers_deadwood_nb``,
``least_deadwood_discard_nb``, ``best_knock_nb``), so that other families
(``threshold``) can change one rule and keep the others exactly.
"""

from oklasim.strategy_api import (
    D_DISCARD,
    D_DRAW,
    D_KNOCK,
    D_TAKE_UPCARD,
    Family,
    best_knock_nb,
    decide_kernel,
    least_deadwood_discard_nb,
    take_lowers_deadwood_nb,
)

FAMILY = Family(
    name="greedy",
    uses_drawn_card=False,  # its knock and discard never read V_DRAWN
    doc="Take a card only if it lowers your best deadwood; discard to minimise deadwood; knock whenever legal.",
)


@decide_kernel()
def decide_nb(kind, view, params):
    if kind == D_TAKE_UPCARD or kind == D_DRAW:
        return take_lowers_deadwood_nb(view)
    if kind == D_KNOCK:
        return best_knock_nb(view)
    if kind == D_DISCARD:
        return least_deadwood_discard_nb(view)
    return 0  # D_ARRANGE: the first optimal arrangement
