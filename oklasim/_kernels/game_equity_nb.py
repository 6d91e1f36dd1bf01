"""A hand's points as the chance of winning the game they leave (two players racing to the target score).

The model: every hand is won by either player with chance 1/2, the winner
scoring ``points`` with chance ``winner_points[points]`` (void hands left
out: they change no score), independently of the scores. Then the chance
``W[x, y]`` that the player who needs ``x`` more points reaches the target
before the one who needs ``y`` solves ``W[x, y] = sum_p winner_points[p] *
(W[x - p, y] + W[x, y - p]) / 2``, a race won at once where a need reaches
0. ``experiments/game_equity/`` measures the distribution and checks the
model against real games.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .layout import R_SINGLE_HAND, R_TARGET_SCORE, V_PLAYERS, V_RULES, V_SCORES, V_SEAT

# Beyond this many points from the target, for either player, one hand barely bends the chance of winning: its
# points are the value (and the table stays small).
EQUITY_HORIZON = 250


@njit(cache=True)
def race_table_nb(winner_points, need_me, need_opp):
    """``W[x, y]`` for ``x`` in 0..need_me, ``y`` in 0..need_opp (row or column 0: a need already met, unused).
    ``winner_points`` need not sum to one exactly (a distribution written to a few digits): it is normalised."""
    table = np.zeros((need_me + 1, need_opp + 1), dtype=np.float64)
    scored = np.nonzero(winner_points)[0]
    half = 0.5 / winner_points.sum() if scored.shape[0] > 0 else 0.0
    for x in range(1, need_me + 1):
        for y in range(1, need_opp + 1):
            total = 0.0
            for p in scored:
                mine = 1.0 if p >= x else table[x - p, y]
                theirs = 0.0 if p >= y else table[x, y - p]
                total += winner_points[p] * (mine + theirs)
            table[x, y] = half * total
    return table


@njit(cache=True)
def game_needs_nb(view):
    """(the points this seat needs to win the game, those its opponent needs); (0, 0) where a hand's points are the
    value: one hand per game, not two players, or the target beyond the horizon."""
    if view[V_PLAYERS] != 2 or view[V_RULES + R_SINGLE_HAND] != 0:
        return 0, 0
    me = view[V_SEAT]
    target = view[V_RULES + R_TARGET_SCORE]
    need_me = target - view[V_SCORES + me]
    need_opp = target - view[V_SCORES + 1 - me]
    if need_me > EQUITY_HORIZON or need_opp > EQUITY_HORIZON or need_me <= 0 or need_opp <= 0:
        return 0, 0
    return need_me, need_opp


@njit(cache=True)
def game_chance_nb(table, need_me, need_opp, points):
    """The chance of winning the game after a hand that ends with ``points`` (mine minus the opponent's: one of
    them scores)."""
    if points >= need_me:
        return 1.0
    if -points >= need_opp:
        return 0.0
    if points > 0:
        return table[need_me - points, need_opp]
    return table[need_me, need_opp + points]
