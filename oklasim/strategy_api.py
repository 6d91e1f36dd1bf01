"""What a strategy file needs: the decision signature, the layout constants and the kit.

A strategy file (in the top-level ``strategies/`` folder, or any path given
with ``--strategy-path``) defines

* ``FAMILY = Family(name=..., doc=..., params=(Param(...), ...), presets={...})``
* ``decide_nb``, compiled with ``@njit(DECIDE_SIGNATURE, cache=True)``:
  ``decide_nb(kind, view, params) -> int``.

``kind`` is one of the ``D_*`` decisions; ``view`` is the seat's int64 row
(``V_*`` slots: its hand, the discard pile, what others took and threw, the
scores, the rules); ``params`` holds the family's parameters in declared
order. The engine checks every answer and stops with a clear error on an
illegal one. See ``strategies/simple.py`` for a short, complete example.
"""

from ._kernels.engine_nb import DECIDE_SIGNATURE
from ._kernels.kit_nb import (
    allowed_discards_nb,
    always_melded_nb,
    best_discard_nb,
    card_value_nb,
    count_cards_nb,
    highest_deadwood_card_nb,
    highest_card_nb,
    min_deadwood_discards_nb,
    nth_card_nb,
    rand_below_nb,
    rand_unit_nb,
    random_card_nb,
)
from ._kernels.layout import *  # noqa: F403 - the V_*, D_*, R_* names are the interface
from ._kernels.melds_nb import deadwood_after_discard_nb, deadwood_nb
from .strategy import Family, Param

