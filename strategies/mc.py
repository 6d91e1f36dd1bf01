"""mc: determinized Monte Carlo. Samples the hidden cards, plays each candidate out, keeps the best on average.

When it may knock, it weighs knocking with each legal discard against
playing on: it samples ``samples`` worlds (the opponent's hand and the
stock) consistent with its view, settles each knock by the showdown and
plays the hand on to its end with a continuation strategy for both seats
(``simple`` or ``greedy``), then takes the candidate with the most points
on average (its points minus the opponent's). It lays the meld
arrangement that leaves the opponent least, on average. Elsewhere it plays
like its continuation strategy, unless ``discards`` (sensible discards to
weigh at every discard) or ``draws=1`` extend the search; with a small
budget such searches are mostly noise. Two players only: with more it
plays like its continuation strategy. The machinery of ``oklasim advise``.
"""

from pathlib import Path

from numba import njit

from oklasim._kernels.advise_nb import decide_function, forced_nb, mc_decide_nb
from oklasim.strategy import family_module
from oklasim.strategy_api import DECIDE_SIGNATURE, Family, Param, cache_depends_on

HERE = Path(__file__).resolve().parent
SIMPLE_FILE, GREEDY_FILE = HERE / "simple.py", HERE / "greedy.py"
SIMPLE = decide_function(family_module(SIMPLE_FILE).decide_nb)
GREEDY = decide_function(family_module(GREEDY_FILE).decide_nb)
FORCED = decide_function(forced_nb)

FAMILY = Family(
    name="mc",
    doc="Determinized Monte Carlo: sample the hidden cards, play each knock/discard out, keep the best on average.",
    params=(
        Param("samples", 16, 1, 4096, "worlds sampled per decision"),
        Param("discards", 0, 0, 11, "sensible discards weighed when playing on; 0 = the continuation's own"),
        Param("draws", 0, 0, 1, "1 = search the draw decisions too (slower); 0 = draw like the continuation"),
        Param("continuation", 0, 0, 1, "strategy playing the rollouts on: 0 = simple, 1 = greedy"),
        Param("opponent", 0, 0, 1, "model of the opponent in the rollouts: 0 = simple, 1 = greedy"),
        Param("prior", 1, 0, 1, "worlds: 0 = uniform, 1 = as played (see oklasim.advise)"),
    ),
    presets={"mc_fast": {"samples": 8}},
)

with cache_depends_on(SIMPLE_FILE, GREEDY_FILE):

    @njit(DECIDE_SIGNATURE, cache=True)
    def decide_nb(kind, view, params):
        return mc_decide_nb(kind, view, params, SIMPLE(), GREEDY(), FORCED())
