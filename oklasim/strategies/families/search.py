"""search: expert's play, with each knock decided by search over the worlds the opponent's play leaves likely.

Where a knock is legal, it weighs knocking with each legal discard against
playing on: it samples ``samples`` worlds (the opponent's hand and the
stock) as ``oklasim advise --history`` does, from the hand's public log:
each world weighted by how likely the opponent model was to play its latest
``window`` turns as it did (its draws, its discards, the knocks it let
pass), its hand before them shaped by at most ``played_draws``
least-deadwood stock draws. It settles each knock by the showdown, plays
the hand on with ``expert`` in both seats, and takes the candidate with the
most points on the weighted average. ``discards`` extends the search to
that many sensible discards at each discard, ``draws=1`` to the draws;
elsewhere it plays as ``expert``. Worlds come from its own random stream,
so any game replays from its seed. Two players only: with more it plays as
``expert``. Built on ``mc`` (the same machinery, with ``prior=history``): the
opponent model and the continuation are expert. Where the log cannot be
read (a board built from a position rather than played), the opponent's
latest turn, rebuilt from the pile, weighs the worlds (``prior=latest_turn``).

The opponent model follows the opponent's style as the game's showdowns
show it (``V_STYLE``, read as ``expert`` reads it): an opponent whose chance
of holding hands it could knock with is below ``knocker_below`` is
modelled as ``expert`` knocking whenever legal (a player such as ``eaai``:
its "did not knock" then says its deadwood is above the limit), any other
as ``expert``. That chance has its own prior (``holding_prior`` worth
``holding_weight`` showdowns), not expert's: before any showdown the model
is ``expert``, whose "did not knock" is the likelier reading when nothing
is known, while expert's own switch starts from the timing that is safe
against ``eaai``.

The advisor's calibration of the history model (the window, the played
draws, the slip) is in ``reports/advise_calibration``.
"""

from pathlib import Path

import numpy as np
from numba import njit

from oklasim._kernels import mc_nb as M
from oklasim._kernels.advise_log_nb import DEFAULT_PLAYED_DRAWS, DEFAULT_WINDOW
from oklasim.strategies.registry import family_module
from oklasim.strategy_api import Family, Param, cache_depends_on, decide_kernel, opponents_holding_nb

HERE = Path(__file__).resolve().parent
MC = family_module(HERE / "mc.py")
MC_PARAMS = len(MC.FAMILY.params)  # the length of the parameters search hands mc

FAMILY = Family(
    name="search",
    doc="expert's play; each knock searched over worlds weighted by the opponent's play this hand, expert in both seats.",
    params=(
        Param("samples", 4096, 1, 65536, "worlds drawn per searched decision (most dropped unplayed by the roulette)"),
        Param("discards", 0, 0, 11, "sensible discards searched at each discard; 0 = expert's own"),
        Param("draws", 0, 0, 1, "1 = search the draw decisions too (slower); 0 = draw as expert"),
        Param("knocker_below", 0.5, 0, 1, "model the opponent as knocking whenever legal when its chance of holding "
                                          "hands it could knock with is below this (0: never)", integer=False),
        Param("holding_prior", 0.5, 0, 1, "that chance before any showdown (from knocker_below up, the "
                                          "model starts as expert)", integer=False),
        Param("holding_weight", 2, 0, 20, "showdowns that prior is worth", integer=False),
        Param("window", DEFAULT_WINDOW, 0, 40, "the opponent's latest turns of the hand that weigh the worlds "
                                               "(0: all, its hand uniform: the exact posterior, fewer effective worlds)"),
        Param("played_draws", DEFAULT_PLAYED_DRAWS, 0, 20, "at most this many of its stock draws before them shape "
                                                           "its hand as least-deadwood draws"),
        Param("roulette", 0.1, 0, 1, "worlds below this share of the heaviest of the first ones weighed are kept by "
                                   "chance (unbiased) and most dropped unplayed; 0: every world weighed and played",
              integer=False),
    ),
    presets={"search_fast": {"samples": 512}},
    delegates=(MC.FAMILY,),  # it decides through mc's kernel, on its view
)

SAMPLES, DISCARDS, DRAWS, KNOCKER_BELOW, HOLDING_PRIOR, HOLDING_WEIGHT, WINDOW, PLAYED_DRAWS, ROULETTE = FAMILY.indexes(
    "samples", "discards", "draws", "knocker_below", "holding_prior", "holding_weight", "window", "played_draws",
    "roulette")

X = MC.EXPERT_MODULE
# The opponent model of a player that knocks whenever it can: expert's play with every knock taken.
KNOCKER_PARAMS = MC.EXPERT_PARAMS.copy()
KNOCKER_PARAMS[X.EARLY_DRAWS] = KNOCKER_PARAMS[X.HOLDER_EARLY_DRAWS] = X.NEVER

with cache_depends_on(MC.SIMPLE_FILE, MC.GREEDY_FILE, MC.EXPERT_FILE, HERE / "mc.py"):

    @njit(cache=True)
    def opponent_params_nb(view, params):
        """expert's parameters for the opponent in the worlds and rollouts: knocking whenever legal or as itself."""
        knocker = opponents_holding_nb(view, params[HOLDING_PRIOR], params[HOLDING_WEIGHT]) < params[KNOCKER_BELOW]
        return KNOCKER_PARAMS if knocker else MC.EXPERT_PARAMS

    @decide_kernel()
    def decide_nb(kind, view, params):
        as_mc = np.zeros(MC_PARAMS)
        as_mc[M.P_SAMPLES] = params[SAMPLES]
        as_mc[M.P_DISCARDS] = params[DISCARDS]
        as_mc[M.P_DRAWS] = params[DRAWS]
        as_mc[M.P_CONTINUATION] = M.CONTINUE_EXPERT
        as_mc[M.P_OPPONENT] = M.CONTINUE_EXPERT
        as_mc[M.P_PRIOR] = M.PRIOR_HISTORY
        as_mc[M.P_WINDOW] = params[WINDOW]
        as_mc[M.P_PLAYED_DRAWS] = params[PLAYED_DRAWS]
        as_mc[M.P_ROULETTE] = params[ROULETTE]
        return M.mc_decide_nb(kind, view, as_mc, MC.SIMPLE(), MC.GREEDY(), MC.EXPERT(), MC.FORCED(), MC.EXPERT_PARAMS,
                              opponent_params_nb(view, params), MC.TRAITS, MC.MEMORY)
