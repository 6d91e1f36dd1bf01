"""The race model that turns a hand's points into the chance of winning the game (search's value=1)."""

from fractions import Fraction
from functools import lru_cache

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from oklasim._kernels import layout as L
from oklasim._kernels.game_equity_nb import EQUITY_HORIZON, game_chance_nb, game_needs_nb, race_table_nb
from oklasim._kernels.winner_points import WINNER_POINTS
from oklasim.game.rules import Rules


def race_by_recursion(weights, x, y):
    """The chance the player needing x points wins the race, by the recursion on exact fractions."""
    total = sum(weights)
    pmf = {p: Fraction(w, total) for p, w in enumerate(weights) if w}

    @lru_cache(maxsize=None)
    def chance(x, y):
        if x <= 0:
            return Fraction(1)
        if y <= 0:
            return Fraction(0)
        return sum(q * (chance(x - p, y) + chance(x, y - p)) for p, q in pmf.items()) / 2

    return chance(x, y)


@given(st.lists(st.integers(0, 5), min_size=2, max_size=9).filter(lambda w: sum(w[1:]) > 0 and w[0] == 0),
       st.integers(1, 12), st.integers(1, 12))
def test_the_table_solves_the_race_recursion(weights, need_me, need_opp):
    pmf = np.array(weights, dtype=np.float64)  # normalised by the table
    table = race_table_nb(pmf, need_me, need_opp)
    for x in range(1, need_me + 1):
        for y in range(1, need_opp + 1):
            assert abs(table[x, y] - float(race_by_recursion(tuple(weights), x, y))) < 1e-12


def test_the_race_is_fair_and_needing_less_helps():
    table = race_table_nb(WINNER_POINTS, 100, 100)
    inner = table[1:, 1:]
    assert np.allclose(inner + inner.T, 1.0)  # whoever needs x against y: the two chances add up to one
    assert np.allclose(np.diag(inner), 0.5)
    assert (np.diff(inner, axis=0) <= 1e-12).all()  # needing more points never helps
    assert (np.diff(inner, axis=1) >= -1e-12).all()  # nor does the opponent needing fewer
    assert 0.9 < table[5, 90] < 1.0 and abs(table[100, 100] - 0.5) < 1e-12


def test_the_winner_points_are_a_distribution_of_a_gin_hand():
    assert WINNER_POINTS[0] == 0 and (WINNER_POINTS >= 0).all()
    assert abs(WINNER_POINTS.sum() - 1) < 1e-4  # written to six digits
    assert 20 < np.dot(np.arange(len(WINNER_POINTS)), WINNER_POINTS) < 35  # a knock of some 15, gins from 25


def test_a_hands_points_as_the_chance_of_winning_the_game():
    table = race_table_nb(WINNER_POINTS, 40, 70)
    assert game_chance_nb(table, 40, 70, 40) == 1.0  # reaches the target
    assert game_chance_nb(table, 40, 70, -70) == 0.0  # the opponent does
    assert game_chance_nb(table, 40, 70, 0) == table[40, 70]  # a void hand changes no score
    assert game_chance_nb(table, 40, 70, 15) == table[25, 70]
    assert game_chance_nb(table, 40, 70, -15) == table[40, 55]


def first_view(rules):
    """The first view seat 0 decides on, in a game under ``rules``, its score set to 30 and the next seat's to 85."""
    from test_advise_log import seat_zero_decisions

    view = next(seat_zero_decisions(rules, 1, games=1))[0].copy()
    view[L.V_SCORES + 0] = 30
    view[L.V_SCORES + 1] = 85
    return view


def test_the_needs_where_the_game_gives_the_points_a_sense():
    assert game_needs_nb(first_view(Rules.preset("eaai"))) == (70, 15)
    assert game_needs_nb(first_view(Rules(single_hand=True))) == (0, 0)  # one hand: its points are the value
    assert game_needs_nb(first_view(Rules(players=3))) == (0, 0)  # the race is between two
    assert game_needs_nb(first_view(Rules(target_score=EQUITY_HORIZON + 30))) == (EQUITY_HORIZON, EQUITY_HORIZON - 55)
    assert game_needs_nb(first_view(Rules(target_score=EQUITY_HORIZON + 31))) == (0, 0)  # beyond the horizon

