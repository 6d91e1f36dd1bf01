"""search: expert's play, with each knock decided by search over the worlds the opponent's play leaves likely.

Where a knock is legal, it weighs knocking with each legal discard against
playing on: it samples ``samples`` worlds (the opponent's hand and the
stock) as ``oklasim advise`` does without a history (the opponent's hand
improved as played, each world weighted by how likely ``expert`` was to
make its latest discard and not knock, holding it), settles each knock by
the showdown and plays the hand on with ``expert`` in both seats, and takes
the candidate with the most points on the weighted average. ``discards``
extends the search to that many sensible discards at each discard, ``draws=1``
to the draws; elsewhere it plays as ``expert``. Worlds come from its own
random stream, so any game replays from its seed. Two players only: with
more it plays as ``expert``. Built on ``mc`` (the same machinery, with
``prior=2``): the opponent model and the continuation are expert.

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

Where it stands: the worlds weigh the opponent's latest turn only, not the
whole history of the hand (the engine gives a strategy the public cards,
not the order of the turns); the advisor's calibration of that model is in
``reports/advise_calibration``.
"""

from pathlib import Path

import numpy as np
from numba import njit

from oklasim._kernels import mc_nb as M
from oklasim.strategies.registry import family_module
from oklasim.strategy_api import MAX_PARAMS, Family, Param, cache_depends_on, decide_kernel, opponents_holding_nb

HERE = Path(__file__).resolve().parent
MC = family_module(HERE / "mc.py")

FAMILY = Family(
    name="search",
    doc="expert's play; each knock searched over worlds weighted by the opponent's latest turn, expert in both seats.",
    params=(
        Param("samples", 512, 1, 4096, "worlds sampled per searched decision"),
        Param("discards", 0, 0, 11, "sensible discards searched at each discard; 0 = expert's own"),
        Param("draws", 0, 0, 1, "1 = search the draw decisions too (slower); 0 = draw as expert"),
        Param("knocker_below", 0.5, 0, 1, "model the opponent as knocking whenever legal when its chance of holding "
                                          "hands it could knock with is below this (0: never)", integer=False),
        Param("holding_prior", 0.5, 0, 1, "that chance before any showdown (from knocker_below up, the "
                                          "model starts as expert)", integer=False),
        Param("holding_weight", 2, 0, 20, "showdowns that prior is worth", integer=False),
    ),
    presets={"search_fast": {"samples": 32}},
)

SAMPLES, DISCARDS, DRAWS, KNOCKER_BELOW, HOLDING_PRIOR, HOLDING_WEIGHT = range(6)  # FAMILY.params, in order

X = MC.EXPERT_MODULE
# The opponent model of a player that knocks whenever it can: expert's play with every knock taken.
KNOCKER_PARAMS = MC.EXPERT_PARAMS.copy()
KNOCKER_PARAMS[X.EARLY_DRAWS] = KNOCKER_PARAMS[X.HOLDER_TIMING] = X.NEVER

with cache_depends_on(MC.SIMPLE_FILE, MC.GREEDY_FILE, MC.EXPERT_FILE, HERE / "mc.py"):

    @njit(cache=True)
    def opponent_params_nb(view, params):
        """expert's parameters for the opponent in the worlds and rollouts: knocking whenever legal or as itself."""
        knocker = opponents_holding_nb(view, params[HOLDING_PRIOR], params[HOLDING_WEIGHT]) < params[KNOCKER_BELOW]
        return KNOCKER_PARAMS if knocker else MC.EXPERT_PARAMS

    @decide_kernel()
    def decide_nb(kind, view, params):
        as_mc = np.zeros(MAX_PARAMS)
        as_mc[M.P_SAMPLES] = params[SAMPLES]
        as_mc[M.P_DISCARDS] = params[DISCARDS]
        as_mc[M.P_DRAWS] = params[DRAWS]
        as_mc[M.P_CONTINUATION] = M.CONTINUE_EXPERT
        as_mc[M.P_OPPONENT] = M.CONTINUE_EXPERT
        as_mc[M.P_PRIOR] = M.PRIOR_LATEST_TURN
        return M.mc_decide_nb(kind, view, as_mc, MC.SIMPLE(), MC.GREEDY(), MC.EXPERT(), MC.FORCED(), MC.EXPERT_PARAMS,
                              opponent_params_nb(view, params), MC.TRAITS)
