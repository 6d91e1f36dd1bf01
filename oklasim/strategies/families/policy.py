"""policy: a knock rule of the ``threshold`` family chosen separately for each knock limit.

What it is for: the knock_thresholds study answers "when should I knock?"
per knock limit (the upcard); its answers differ by limit (at a low limit
hold for gin, at a high one knock early, ...), so playing the answer as a
strategy needs one rule per limit. Everything but the knock is ``greedy``
(the same kit functions as ``threshold``), so a policy is compared with its
rules' single-limit measurements all else equal.

Parameter ``at_L`` (L = 1..10) is the rule when the hand's knock limit is L,
written ``100 * T + G``: knock with deadwood <= T (10 = any legal knock,
0 = gin only) up to and including the player's G-th own draw, then only gin
(G = 99: never). So ``at_7=507`` is "knock with 5 or less up to your 7th
draw, then hold for gin" and ``1099`` (the default) is "knock as soon as
you can". Gin (and big gin when allowed) is always taken; with knock limit 0
only gin is legal anyway. Under the fiftieth-card rule the last discard is
taken to knock by the same rule.

Presets, from ``oklasim run knock_thresholds`` under the seeds rules:
``seeds_mix``, the rule per limit best against the panel mix (greedy,
defensive, threshold:gin_only, threshold:early_then_gin, expert);
``seeds_maxmin``, the best worst case over that panel;
``seeds_equilibrium``, the main rule of the equilibrium of the rule game;
``ub25_mix``, ``seeds_mix`` for an undercut bonus of 25.

What its presets were measured to be worth: the measured results page of the
documentation (docs/results.md).
"""

from oklasim.strategy_api import (
    D_DISCARD,
    D_DRAW,
    D_KNOCK,
    D_TAKE_UPCARD,
    V_KNOCK_LIMIT,
    V_MY_DRAWS,
    Family,
    Param,
    decide_kernel,
    knock_if_at_most_nb,
    least_deadwood_discard_nb,
    take_lowers_deadwood_nb,
)

LIMITS = range(1, 11)
ASAP = 1099  # threshold 10, never only gin

FAMILY = Family(
    name="policy",
    uses_drawn_card=False,  # its knock and discard never read V_DRAWN
    doc="greedy's draws and discards; per knock limit L, knock with deadwood <= T up to the G-th own draw "
    "(at_L = 100*T + G; G 99 = never only gin).",
    params=tuple(
        Param(f"at_{limit}", ASAP, 0, ASAP, f"rule at knock limit {limit}: 100*T + G (knock <= T up to draw G)")
        for limit in LIMITS
    ),
    presets={  # the default (every at_L = 1099) is knocking at once
        "seeds_mix": {"at_2": 99, "at_3": 1003, "at_4": 1005, "at_5": 1005, "at_6": 1007, "at_7": 1007,
                      "at_8": 1007, "at_9": 1007, "at_10": 1007},
        "seeds_maxmin": {"at_2": 105, "at_3": 1005, "at_4": 1005, "at_5": 1005, "at_6": 1005, "at_7": 1005,
                         "at_8": 1007, "at_9": 1007, "at_10": 1007},
        "seeds_equilibrium": {"at_2": 99, "at_3": 1005, "at_4": 1005, "at_5": 1007, "at_6": 1009, "at_7": 1009,
                              "at_8": 1009, "at_9": 1009},
        "ub25_mix": {"at_2": 99, "at_3": 99, "at_4": 99, "at_5": 1003, "at_6": 1003, "at_7": 1005, "at_8": 1005,
                     "at_9": 1005, "at_10": 1005},
    },
)

AT = FAMILY.indexes(*(f"at_{limit}" for limit in LIMITS))  # the rule at each knock limit, 1 to 10
TOP_LIMIT = LIMITS[-1]  # a knock limit above (none in the rules) plays as this one


@decide_kernel()
def decide_nb(kind, view, params):
    if kind == D_TAKE_UPCARD or kind == D_DRAW:
        return take_lowers_deadwood_nb(view)
    if kind == D_KNOCK:
        limit = view[V_KNOCK_LIMIT]
        if limit < 1:
            return knock_if_at_most_nb(view, 0.0)
        code = int(params[AT[min(limit, TOP_LIMIT) - 1]])
        if view[V_MY_DRAWS] > code % 100:
            return knock_if_at_most_nb(view, 0.0)
        return knock_if_at_most_nb(view, code // 100)
    if kind == D_DISCARD:
        return least_deadwood_discard_nb(view)
    return 0  # D_ARRANGE: the first optimal arrangement, as greedy
