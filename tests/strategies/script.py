"""script: answers every decision from its parameter list, in order (for scripted tests)."""

from numba import njit

from oklasim.strategy_api import DECIDE_SIGNATURE, V_MEMORY, Family, Param

ANSWERS = 40  # more than any shipped family's parameters: the layout sets no limit

FAMILY = Family(
    name="script",
    doc="Plays the answers a0, a1, ... in order, whatever is asked; for scripted tests.",
    params=tuple(Param(f"a{i}", -1, -1, 52, f"answer number {i}") for i in range(ANSWERS)),
)


@njit(DECIDE_SIGNATURE, cache=True)
def decide_nb(kind, view, params):
    step = view[V_MEMORY]
    view[V_MEMORY] = step + 1
    return int(params[step]) if step < params.shape[0] else -1
