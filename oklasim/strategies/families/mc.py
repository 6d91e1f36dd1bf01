"""mc: determinized Monte Carlo. Samples the hidden cards, plays each candidate out, keeps the best on average.

When it may knock, it weighs knocking with each legal discard against
playing on: it samples ``samples`` worlds (the opponent's hand and the
stock) consistent with its view, settles each knock by the showdown and
plays the hand on to its end with a continuation strategy for both seats
(``simple``, ``greedy`` or ``expert``), then takes the candidate with the most points
on average (its points minus the opponent's). It lays the meld
arrangement that leaves the opponent least, on average. Elsewhere it plays
like its continuation strategy, unless ``discards`` (sensible discards to
weigh at every discard) or ``draws=1`` extend the search; with a small
budget such searches are mostly noise. Two players only: with more it
plays like its continuation strategy. The machinery of ``oklasim advise``.
"""

from pathlib import Path

import numpy as np

from oklasim._kernels.advise_log_nb import DEFAULT_PLAYED_DRAWS, DEFAULT_WINDOW
from oklasim._kernels.advise_rollouts_nb import forced_nb
from oklasim._kernels.linking import decide_function
from oklasim._kernels import mc_nb as M
from oklasim._kernels.advise_latest_nb import DEFAULT_SLIP
from oklasim._kernels.mc_nb import mc_decide_nb
from oklasim.errors import OklasimError
from oklasim.strategies.registry import family_module, history_traits
from oklasim.strategy_api import Family, Param, cache_depends_on, decide_kernel

HERE = Path(__file__).resolve().parent
SIMPLE_FILE, GREEDY_FILE, EXPERT_FILE = HERE / "simple.py", HERE / "greedy.py", HERE / "expert.py"
SIMPLE_MODULE, GREEDY_MODULE, EXPERT_MODULE = (family_module(f) for f in (SIMPLE_FILE, GREEDY_FILE, EXPERT_FILE))
SIMPLE = decide_function(SIMPLE_MODULE.decide_nb)
GREEDY = decide_function(GREEDY_MODULE.decide_nb)
EXPERT = decide_function(EXPERT_MODULE.decide_nb)
FORCED = decide_function(forced_nb)
# expert plays the rollouts with its defaults (a constant array frozen into the compiled code).
EXPERT_PARAMS = EXPERT_MODULE.FAMILY.defaults()
EXPERT_MODEL = np.ascontiguousarray(EXPERT_PARAMS[np.newaxis])  # as the only opponent model: one row
# What each opponent model's family declares, by model code, for weighing its latest turn (prior latest_turn).
TRAITS = np.array([history_traits(m.FAMILY) for m in (SIMPLE_MODULE, GREEDY_MODULE, EXPERT_MODULE)], dtype=np.int64)

CONTINUATIONS = ("simple", "greedy", "expert")  # in the order of mc_nb.CONTINUE_*

FAMILY = Family(
    name="mc",
    doc="Determinized Monte Carlo: sample the hidden cards, play each knock/discard out, keep the best on average.",
    params=(
        Param("samples", 16, 1, 4096, "worlds sampled per decision"),
        Param("discards", 0, 0, 11, "discards weighed when playing on: the continuation's own and the most sensible "
                                    "others; 0 or 1 = the continuation's own"),
        Param("draws", 0, 0, 1, "1 = search the draw decisions too (take the pile's top or not, the continuation "
                                 "playing on after either; slower); 0 = draw like the continuation"),
        Param.choice("continuation", "simple", CONTINUATIONS, "strategy playing the rollouts on"),
        Param.choice("opponent", "simple", CONTINUATIONS, "model of the opponent in the rollouts"),
        Param.choice("prior", "played", ("uniform", "played", "latest_turn", "history"),
                     "worlds: uniform; played: least-deadwood draws, fitting its last discard; latest_turn: as played "
                     "and weighted by the opponent model's play of its latest turn (oklasim advise without a "
                     "history); history: weighted by its play of the hand's latest turns, from the hand's log "
                     "(oklasim advise --history)"),
        Param("window", DEFAULT_WINDOW, 0, 40, "prior history: the opponent's latest turns weighed (0: all, its "
                                               "hand uniform)"),
        Param("played_draws", DEFAULT_PLAYED_DRAWS, 0, 20, "prior history: at most this many of its stock draws "
                                                           "before them, least-deadwood"),
        Param("roulette", 0, 0, 1, "worlds below this share of the heaviest of the first ones weighed are kept "
                                   "by chance (unbiased) and most dropped unplayed; 0: every world weighed exactly",
              integer=False),
    ),
    presets={"mc_fast": {"samples": 8}},
    memory=2,  # the discard chosen with a decision to play on (mc_nb.answer_nb)
    delegates=(SIMPLE_MODULE.FAMILY, GREEDY_MODULE.FAMILY, EXPERT_MODULE.FAMILY),  # its continuations, on its view
)

MEMORY = FAMILY.memory_start
# mc_nb reads the parameters at its P_* places (search hands it the same vector): they must be the declared ones.
PLACES = {"samples": M.P_SAMPLES, "discards": M.P_DISCARDS, "draws": M.P_DRAWS, "continuation": M.P_CONTINUATION,
          "opponent": M.P_OPPONENT, "prior": M.P_PRIOR, "window": M.P_WINDOW, "played_draws": M.P_PLAYED_DRAWS,
          "roulette": M.P_ROULETTE}
if FAMILY.indexes(*PLACES) != tuple(PLACES.values()) or len(FAMILY.params) != M.N_PARAMS:
    raise OklasimError(f"mc_nb's parameter places {PLACES} (and N_PARAMS) are not mc's declared parameters")

with cache_depends_on(SIMPLE_FILE, GREEDY_FILE, EXPERT_FILE):

    @decide_kernel()
    def decide_nb(kind, view, params):
        # margins 0.0 and no guard on the effective worlds, the plain maximum: mc's choice as first measured
        return mc_decide_nb(kind, view, params, SIMPLE(), GREEDY(), EXPERT(), FORCED(), EXPERT_PARAMS, EXPERT_MODEL,
                            np.full(1, np.int64(params[M.P_OPPONENT])), np.ones(1), TRAITS, MEMORY, (0.0, 0.0),
                            (DEFAULT_SLIP, DEFAULT_SLIP), 0.0, np.empty(1))
