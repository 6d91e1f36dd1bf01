"""score_aware: the knock threshold moves with the match score.

Where the idea comes from: the match-play rules of thumb of gin rummy
books and tournament guides ("play the score"): with a comfortable lead,
or when the opponent is close to game, knock as soon as you can and
shorten the hands; far behind, play for gin and the big swings you need
to catch up; close to game yourself, take any knock.

The knock rule, with ``me`` this seat's game score, ``opp`` the highest
other score (V_SCORES) and ``target`` the game's target (V_RULES +
R_TARGET_SCORE), is "knock when the least deadwood a knock leaves is <= T"
(gin always), where T is, the first that applies:

1. ``10`` (any legal knock) when ``opp >= target - danger_margin`` (the
   opponent is close to game: end the hands) or ``me >= target -
   finish_margin`` (a knock probably ends the game in our favour);
2. ``10`` when ``me - opp >= lead_margin``;
3. ``behind_threshold`` when ``opp - me >= behind_margin``;
4. ``threshold`` otherwise.

In single hands (scores 0-0) it is the fixed ``threshold`` rule. Under the
fiftieth-card rule the last discard is taken to knock by the same rules
(declining it leaves the hand void).

Draws, discards and the meld layout are ``defensive``'s defaults (``play``
1: the kit's ``meld_or_knock_take_nb``, ``scored_discard_nb`` with
outs 1.5, danger 3, slack 4, safe 0.5, and ``least_exposed_arrangement_nb``) or
``greedy``'s (``play`` 0), so the score rule can be studied on either base.

What its presets were measured to be worth: the measured results page of the
documentation (docs/results.md).
"""

from numba import njit

from oklasim.strategy_api import (
    D_ARRANGE,
    D_DISCARD,
    D_DRAW,
    D_KNOCK,
    D_TAKE_UPCARD,
    NO_CARD,
    R_TARGET_SCORE,
    V_PLAYERS,
    V_RULES,
    V_SCORES,
    V_SEAT,
    Family,
    Param,
    allowed_discards_nb,
    decide_kernel,
    knock_if_at_most_nb,
    least_deadwood_discard_nb,
    least_exposed_arrangement_nb,
    meld_or_knock_take_nb,
    scored_discard_nb,
    take_lowers_deadwood_nb,
)

FAMILY = Family(
    name="score_aware",
    uses_drawn_card=False,  # its knock and discard never read V_DRAWN
    doc="Knock at once when ahead or when the opponent nears the target; hold for gin when far behind.",
    params=(
        Param("threshold", 10, 0, 10, "knock with deadwood <= this when no score rule applies (10 = any legal knock)"),
        Param("lead_margin", 30, 0, 1000, "ahead by at least this many points: knock whenever legal"),
        Param("behind_margin", 70, 0, 1000, "behind by at least this many points: knock only at <= behind_threshold"),
        Param("behind_threshold", 0, 0, 10, "the knock threshold when far behind (0 = gin only)"),
        Param("danger_margin", 25, 0, 1000, "opponent within this many points of the target: knock whenever legal"),
        Param("finish_margin", 10, 0, 1000, "we are within this many points of the target: knock whenever legal"),
        Param.choice("play", "defensive", ("greedy", "defensive"), "draws and discards: greedy's, or defensive's "
                                                                  "with its defaults"),
    ),
    presets={
        "chase_gin": {"behind_margin": 25, "behind_threshold": 0},
        "protect_lead": {"threshold": 3, "lead_margin": 20},
    },
)

THRESHOLD, LEAD_MARGIN, BEHIND_MARGIN, BEHIND_THRESHOLD, DANGER_MARGIN, FINISH_MARGIN, PLAY = (FAMILY.indexes(
    "threshold", "lead_margin", "behind_margin", "behind_threshold", "danger_margin", "finish_margin", "play"))

OUTS_WEIGHT = 1.5  # defensive's defaults
DANGER_WEIGHT = 3.0
SLACK = 4.0
SAFE_WEIGHT = 0.5


@njit(cache=True)
def knock_threshold_nb(view, params):
    seat = view[V_SEAT]
    me = view[V_SCORES + seat]
    opp = -1
    for other in range(view[V_PLAYERS]):
        if other != seat:
            opp = max(opp, view[V_SCORES + other])
    target = view[V_RULES + R_TARGET_SCORE]
    if opp >= target - params[DANGER_MARGIN] or me >= target - params[FINISH_MARGIN]:
        return 10.0
    if me - opp >= params[LEAD_MARGIN]:
        return 10.0
    if opp - me >= params[BEHIND_MARGIN]:
        return params[BEHIND_THRESHOLD]
    return params[THRESHOLD]


@decide_kernel()
def decide_nb(kind, view, params):
    defensive = params[PLAY] != 0
    if kind == D_TAKE_UPCARD or kind == D_DRAW:
        return meld_or_knock_take_nb(view) if defensive else take_lowers_deadwood_nb(view)
    if kind == D_KNOCK:
        return knock_if_at_most_nb(view, knock_threshold_nb(view, params))
    if kind == D_DISCARD:
        if defensive:
            allowed = allowed_discards_nb(view)
            return scored_discard_nb(view, allowed, OUTS_WEIGHT, DANGER_WEIGHT, SLACK, SAFE_WEIGHT)
        return least_deadwood_discard_nb(view)
    if kind == D_ARRANGE:
        return least_exposed_arrangement_nb(view) if defensive else 0
    return NO_CARD
