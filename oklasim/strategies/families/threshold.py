"""threshold: greedy's draws and discards with a tunable knock rule.

Where the idea comes from: the knocking advice of gin rummy books and sites
(knock at once early in a hand, the later it gets the lower the deadwood you
should knock with, "go for gin" once the hand is far along or the opponent
is likely to undercut; in Oklahoma the limit itself varies, so advice is
often phrased relative to it, "knock with two under the limit"). These rules
become parameters of one kernel, so a sweep never recompiles, and everything
but the knock is held fixed at ``greedy`` (the same kit functions), so that
knock rules are compared with all else equal.

The rule, with ``d`` the least deadwood a knock can leave now and ``n`` the
player's own draws this hand (V_MY_DRAWS, the current draw included):

1. gin (and big gin, when the rules allow it) is always taken;
2. if ``n <= early_draws`` or the stock holds at most ``late_stock`` cards,
   knock whenever legal;
3. else if ``n > gin_after_draws``, only gin;
4. else knock when ``d <= min(threshold, knock_limit + threshold_offset)``.

So ``threshold`` is absolute (10 = every legal knock) and ``threshold_offset``
is relative to the hand's knock limit (-2 = "two under the limit"); both
apply, the stricter wins. Under the fiftieth-card rule the last discard is
taken to knock by the same rules (declining it leaves the hand void).

Presets: ``asap`` (= greedy), ``gin_only``, ``early_then_gin`` (any legal
knock during the first 6 own draws, then only gin), ``knock_le_5``,
``knock_le_3``, ``knock_le_1``, ``limit_minus_2``. Against a knock-at-once
opponent, holding a low hand late pays (its knocks get undercut); low fixed
thresholds do not.

What its presets were measured to be worth: the measured results page of the
documentation (docs/results.md).
"""

from oklasim.strategy_api import (
    D_DISCARD,
    D_DRAW,
    D_KNOCK,
    D_TAKE_UPCARD,
    LONGEST_HAND_DRAWS,
    V_KNOCK_LIMIT,
    V_MY_DRAWS,
    V_STOCK_LEFT,
    Family,
    Param,
    decide_kernel,
    knock_if_at_most_nb,
    least_deadwood_discard_nb,
    take_lowers_deadwood_nb,
)

NEVER = 99

FAMILY = Family(
    name="threshold",
    uses_drawn_card=False,  # its knock and discard never read V_DRAWN
    doc="greedy's draws and discards; knock at deadwood <= a threshold set by the knock limit and the draws.",
    params=(
        Param("threshold", 10, 0, 10, "knock only with deadwood <= this (10 = any legal knock, 0 = gin only)"),
        Param(
            "threshold_offset",
            0,
            -10,
            0,
            "and only with deadwood <= knock limit + this (-2 = two under the limit; 0 = no extra bound)",
        ),
        Param("early_draws", 0, 0, NEVER, "during the first this many own draws, knock whenever legal",
              search=(0, LONGEST_HAND_DRAWS)),
        Param("gin_after_draws", NEVER, 0, NEVER, "after this many own draws, only gin (99 = never)",
              search=(0, LONGEST_HAND_DRAWS)),
        Param("late_stock", 0, 0, 31, "when the stock holds at most this many cards, knock whenever legal (0 = off)"),
    ),
    presets={
        "asap": {},
        "gin_only": {"threshold": 0},
        "early_then_gin": {"gin_after_draws": 6},
        "knock_le_5": {"threshold": 5},
        "knock_le_3": {"threshold": 3},
        "knock_le_1": {"threshold": 1},
        "limit_minus_2": {"threshold_offset": -2},
    },
)

THRESHOLD, THRESHOLD_OFFSET, EARLY_DRAWS, GIN_AFTER_DRAWS, LATE_STOCK = FAMILY.indexes(
    "threshold", "threshold_offset", "early_draws", "gin_after_draws", "late_stock"
)


@decide_kernel()
def decide_nb(kind, view, params):
    if kind == D_TAKE_UPCARD or kind == D_DRAW:
        return take_lowers_deadwood_nb(view)
    if kind == D_KNOCK:
        draws = view[V_MY_DRAWS]
        if draws <= params[EARLY_DRAWS] or view[V_STOCK_LEFT] <= params[LATE_STOCK]:
            limit = 10.0
        elif draws > params[GIN_AFTER_DRAWS]:
            limit = 0.0
        else:
            limit = min(params[THRESHOLD], view[V_KNOCK_LIMIT] + params[THRESHOLD_OFFSET])
        return knock_if_at_most_nb(view, limit)
    if kind == D_DISCARD:
        return least_deadwood_discard_nb(view)
    return 0  # D_ARRANGE: the first optimal arrangement, as greedy
