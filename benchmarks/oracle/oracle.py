"""oracle: search with the real opponent as its model, for measuring what a perfect opponent model is worth.

``search``'s knock decisions (and its discards and draws, with ``discards``
and ``draws``), with the worlds weighted by, and the rollouts
played by, the very panel member it faces (``member``, with that member's
defaults) instead of ``expert`` or a knocker: the ceiling of any opponent
model, and a test of the rest of the machinery (the worlds' prior, the
noise). Not a player for real use: it is told who its opponent is; a
measurement, as ``benchmarks/panel.py`` is, never a tuning target.

By ablation: ``model=expert`` puts ``expert`` back in the member's place (the
control, ``search(model=0)``); ``weighs=0`` leaves the worlds unweighted by the
opponent's play this hand, drawn as its played cards alone shape them. With
both, the member's share of the rollouts and of the weights shows apart.

    python experiments/knock_disagreements/disagreements.py --player "oracle(member=counter)" --opponent counter
    python benchmarks/panel.py --players "expert,oracle(member=counter)" --members counter --strategy-path benchmarks/oracle
"""

from pathlib import Path

import numpy as np
from numba import njit

from oklasim._kernels import mc_nb as M
from oklasim._kernels.advise_latest_nb import DEFAULT_SLIP
from oklasim._kernels.advise_log_nb import DEFAULT_PLAYED_DRAWS, DEFAULT_WINDOW
from oklasim._kernels.linking import decide_function
from oklasim.strategies.registry import family_module, history_traits
from oklasim.strategy_api import Family, Param, cache_depends_on, decide_kernel

ROOT = Path(__file__).resolve().parents[2]
FAMILIES, PANEL = ROOT / "oklasim" / "strategies" / "families", ROOT / "benchmarks" / "panel"
MEMBERS = ("hunter", "snatcher", "wary", "sloppy", "counter")  # benchmarks/panel.py's, in its order
MEMBER_FILES = tuple(PANEL / f"{name}.py" for name in MEMBERS)
MEMBER_MODULES = tuple(family_module(path) for path in MEMBER_FILES)
HUNTER, SNATCHER, WARY, SLOPPY, COUNTER = (decide_function(m.decide_nb) for m in MEMBER_MODULES)
# Each member's defaults, a row per member (padded with zeros), and what each declares for weighing its play.
MEMBER_DEFAULTS = np.zeros((len(MEMBERS), max(len(m.FAMILY.params) for m in MEMBER_MODULES)))
for row, module in enumerate(MEMBER_MODULES):
    MEMBER_DEFAULTS[row, : len(module.FAMILY.params)] = module.FAMILY.defaults()
MEMBER_TRAITS = np.array([history_traits(m.FAMILY) for m in MEMBER_MODULES], dtype=np.int64)
MC, SEARCH = family_module(FAMILIES / "mc.py"), family_module(FAMILIES / "search.py")
# By model code, the member's to replace greedy's, and expert's parameters (copied for the model): globals of their own,
# as numba cannot call a method on a module's attribute inside the kernel.
MODEL_TRAITS, EXPERT_PARAMS = MC.TRAITS, MC.EXPERT_PARAMS
# mc_nb picks the opponent's function among three places by a code: the member plays in greedy's place.
IN_GREEDYS_PLACE = M.CONTINUE_GREEDY
SEARCH_DEFAULTS = SEARCH.FAMILY.defaults()
ROULETTE, MARGIN = SEARCH_DEFAULTS[SEARCH.ROULETTE], SEARCH_DEFAULTS[SEARCH.MARGIN]  # as search plays
MODELS = ("member", "expert")

FAMILY = Family(
    name="oracle",
    doc="search's knocks with the real panel member as the opponent model: what a perfect model is worth.",
    params=(
        Param.choice("member", "counter", MEMBERS, "the panel member it faces, and models"),
        Param("samples", 4096, 1, 65536, "worlds drawn per searched decision"),
        Param("discards", 0, 0, 11, "as search's: discards searched at each discard (0 or 1: expert's own)"),
        Param("draws", 0, 0, 1, "as search's: 1 = the draws searched too"),
        Param("knock_margin", 1, 0, 10, "as search's", integer=False),
        Param("min_effective_worlds", 0, 0, 4096, "as search's", integer=False),
        Param.choice("model", "member", MODELS, "who weighs the worlds and plays the opponent's side of the "
                                                "rollouts: the member faced, or expert (the control: search(model=0))"),
        Param("weighs", 1, 0, 1, "1: the worlds weighted by the opponent's play this hand, as search's; 0: drawn as "
                                 "its played cards alone shape them (the share of the weights, by ablation)"),
    ),
    delegates=(MC.FAMILY,),
)
MEMBER, SAMPLES, DISCARDS, DRAWS, KNOCK_MARGIN, MIN_EFFECTIVE_WORLDS, MODEL, WEIGHS = FAMILY.indexes(
    "member", "samples", "discards", "draws", "knock_margin", "min_effective_worlds", "model", "weighs")
BY_MEMBER = MODELS.index("member")

with cache_depends_on(MC.SIMPLE_FILE, MC.GREEDY_FILE, MC.EXPERT_FILE, FAMILIES / "mc.py", *MEMBER_FILES):

    @njit(cache=True)
    def member_nb(code):
        if code == 0:
            return HUNTER()
        if code == 1:
            return SNATCHER()
        if code == 2:
            return WARY()
        return SLOPPY() if code == 3 else COUNTER()

    @decide_kernel()
    def decide_nb(kind, view, params):
        member = int(params[MEMBER])
        opponent, modelled = M.CONTINUE_EXPERT, EXPERT_PARAMS.copy()
        if params[MODEL] == BY_MEMBER:
            opponent, modelled = IN_GREEDYS_PLACE, MEMBER_DEFAULTS[member].copy()
        prior = M.PRIOR_HISTORY if params[WEIGHS] == 1 else M.PRIOR_PLAYED
        as_mc = M.search_params_nb(params[SAMPLES], params[DISCARDS], params[DRAWS], prior, DEFAULT_WINDOW,
                                   DEFAULT_PLAYED_DRAWS, ROULETTE)
        traits = MODEL_TRAITS.copy()
        traits[IN_GREEDYS_PLACE] = MEMBER_TRAITS[member]
        return M.mc_decide_nb(kind, view, as_mc, MC.SIMPLE(), member_nb(member), MC.EXPERT(), MC.FORCED(),
                              EXPERT_PARAMS, modelled.reshape(1, -1), np.full(1, opponent), np.ones(1), traits,
                              MC.MEMORY,
                              (MARGIN, params[KNOCK_MARGIN]),
                              (DEFAULT_SLIP, DEFAULT_SLIP), params[MIN_EFFECTIVE_WORLDS], np.empty(1))
