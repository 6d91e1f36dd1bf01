"""expert_score (an experiment, not shipped): ``expert`` with a knock rule that also reads the game score.

Draws, discards and the layout are ``expert``'s with its defaults. The knock
is ``expert``'s staged rule (gin always; knock whenever legal in the first
``early_draws`` own draws or when ``finish_points`` or fewer end the game;
between them with deadwood <= ``late_threshold`` and undercut chance <=
``max_undercut_risk``; after ``gin_after_draws`` gin only) plus two score
rules, tried here before any of them joins ``expert``:

* ahead of every opponent by ``lead_points`` or more: the late stage never
  ends, and its threshold is ``lead_threshold`` (small, safe knocks);
* behind by ``trail_points`` or more: gin only, early draws included;
* an opponent within ``close_points`` of the target: the late stage never
  ends, and its threshold is ``close_threshold`` (end the hand before it
  ends the game).

    oklasim tune expert_score --strategy-path experiments/tune_expert_games/strategies --against eaai --rules eaai \
        --objective games ...
"""

from pathlib import Path

from numba import njit

from oklasim._kernels.linking import decide_function
from oklasim.strategies.families import expert
from oklasim.strategy_api import (
    BIG_GIN,
    D_KNOCK,
    DECIDE_SIGNATURE,
    NO_CARD,
    R_TARGET_SCORE,
    V_BIG_GIN,
    V_HAND,
    V_KNOCK_DISCARDS,
    V_MY_DRAWS,
    V_PLAYERS,
    V_RULES,
    V_SCORES,
    V_SEAT,
    Family,
    Param,
    cache_depends_on,
    deadwood_after_discard_nb,
    highest_card_nb,
    min_deadwood_discards_nb,
    undercut_risk_nb,
)

EXPERT_MODULE = expert
EXPERT_FILE = Path(expert.__file__)
EXPERT = decide_function(EXPERT_MODULE.decide_nb)
EXPERT_PARAMS = EXPERT_MODULE.FAMILY.defaults()
DEFAULTS = {p.name: p.default for p in EXPERT_MODULE.FAMILY.params}
NEVER = 100  # a lead or a deficit of the target score never happens: the game is over

FAMILY = Family(
    name="expert_score",
    doc="expert with score rules in the knock decision (an experiment).",
    params=(
        Param("early_draws", DEFAULTS["early_draws"], 0, 99, "in the first this many own draws, knock whenever legal"),
        Param("finish_points", DEFAULTS["finish_points"], 0, 200, "knock whenever legal when this many end the game"),
        Param("gin_after_draws", DEFAULTS["gin_after_draws"], 0, 99, "after this many own draws, only gin"),
        Param("late_threshold", DEFAULTS["late_threshold"], 0, 10, "between the two: knock only with deadwood <= this"),
        Param("max_undercut_risk", DEFAULTS["max_undercut_risk"], 0, 1, "and only when the undercut chance is <= this",
              integer=False),
        Param("lead_points", NEVER, 0, NEVER, "ahead by this many points: no gin-only stage"),
        Param("lead_threshold", 10, 0, 10, "ahead: after the early draws, knock only with deadwood <= this"),
        Param("trail_points", NEVER, 0, NEVER, "behind by this many points: gin only"),
        Param("close_points", 0, 0, NEVER, "an opponent this close to the target: no gin-only stage"),
        Param("close_threshold", 10, 0, 10, "then, after the early draws, knock only with deadwood <= this"),
    ),
)
EARLY_DRAWS, FINISH_POINTS, GIN_AFTER_DRAWS, LATE_THRESHOLD, MAX_UNDERCUT_RISK = 0, 1, 2, 3, 4
LEAD_POINTS, LEAD_THRESHOLD, TRAIL_POINTS, CLOSE_POINTS, CLOSE_THRESHOLD = 5, 6, 7, 8, 9


@njit(cache=True)
def best_other_score_nb(view):
    seat = view[V_SEAT]
    best = -(1 << 30)
    for other in range(view[V_PLAYERS]):
        if other != seat:
            best = max(best, view[V_SCORES + other])
    return best


@njit(cache=True)
def knock_nb(view, params):
    if view[V_BIG_GIN]:
        return BIG_GIN
    draws, target, other = view[V_MY_DRAWS], view[V_RULES + R_TARGET_SCORE], best_other_score_nb(view)
    lead = view[V_SCORES + view[V_SEAT]] - other
    finishing = target - view[V_SCORES + view[V_SEAT]] <= params[FINISH_POINTS]
    trailing = -lead >= params[TRAIL_POINTS]
    leading = lead >= params[LEAD_POINTS]
    close = target - other < params[CLOSE_POINTS]
    anyway = finishing or (draws <= params[EARLY_DRAWS] and not trailing)
    gin_only = not anyway and (trailing or (draws > params[GIN_AFTER_DRAWS] and not (leading or close)))
    if gin_only and deadwood_after_discard_nb(view[V_HAND]) > 0:
        return NO_CARD
    least, found = min_deadwood_discards_nb(view[V_HAND], view[V_KNOCK_DISCARDS])
    if least > 0 and not anyway:
        threshold = params[LATE_THRESHOLD]
        if draws > params[GIN_AFTER_DRAWS]:  # past the late stage only by a score rule: the strictest applies
            threshold = min(params[LEAD_THRESHOLD] if leading else 10, params[CLOSE_THRESHOLD] if close else 10)
        if gin_only or least > threshold:
            return NO_CARD
        if undercut_risk_nb(view, least) > params[MAX_UNDERCUT_RISK]:
            return NO_CARD
    return highest_card_nb(found)


with cache_depends_on(EXPERT_FILE):

    @njit(DECIDE_SIGNATURE, cache=True)
    def decide_nb(kind, view, params):
        if kind == D_KNOCK:
            return knock_nb(view, params)
        return EXPERT()(kind, view, EXPERT_PARAMS.copy())  # a frozen global is read-only; the kernel takes writable
