"""expert's knock decision with the game score: the stage of the hand, the finishing knock, and games won."""

import numpy as np
import pytest

from oklasim._kernels import layout as L
from oklasim.analysis.match import match
from oklasim.analysis.stats import paired_difference
from oklasim.game import reference
from oklasim.game.cards import parse_card, parse_hand
from oklasim.game.rules import Rules
from oklasim.strategies import registry as strategy

MODULE = strategy.family_module(strategy.families()["expert"].source)
DEFAULTS = strategy.resolve("expert").vector()
EARLY = int(DEFAULTS[MODULE.EARLY_DRAWS])
FINISH = int(DEFAULTS[MODULE.FINISH_POINTS])
GIN_AFTER = int(DEFAULTS[MODULE.GIN_AFTER_DRAWS])
TWO_LEFT = parse_hand("As 2s 3s 4h 5h 6h 7c 8c 9c Kd 2d")  # throw Kd: 2 deadwood
GIN = parse_hand("As 2s 3s 4h 5h 6h 7c 8c 9c Tc Kd")  # throw Kd: gin


def knock_view(hand, my_draws, scores=(0, 0), target=100):
    """Seat 0 about to knock or play on, 11 cards in hand, after ``my_draws`` own draws at ``scores``."""
    view = np.zeros(L.V_SIZE, dtype=np.int64)
    view[L.V_HAND] = hand
    view[L.V_PLAYERS] = 2
    view[L.V_RULES + L.R_HAND_SIZE] = 10
    view[L.V_RULES + L.R_TARGET_SCORE] = target
    view[L.V_KNOCK_LIMIT] = 10
    view[L.V_MY_DRAWS] = my_draws
    view[L.V_DRAWS] = 2 * my_draws
    view[L.V_FORBIDDEN] = view[L.V_DRAWN] = L.NO_CARD
    view[L.V_KNOCK_DISCARDS] = sum(1 << c for c in range(52)
                                   if hand >> c & 1 and reference.deadwood(hand & ~(1 << c)) <= 10)
    view[L.V_SCORES], view[L.V_SCORES + 1] = scores
    return view


def knock(view, **params):
    return MODULE.knock_nb(view, strategy.resolve("expert", params).vector())


def test_the_defaults_knock_early_then_hold_for_gin():
    king = parse_card("Kd")
    for draws in range(1, EARLY + 1):
        assert knock(knock_view(TWO_LEFT, draws)) == king
    for draws in range(GIN_AFTER + 1, GIN_AFTER + 6):
        assert knock(knock_view(TWO_LEFT, draws)) == L.NO_CARD
        assert knock(knock_view(GIN, draws)) == king  # gin always


def test_a_knock_that_ends_the_game_is_taken_at_any_stage():
    late = GIN_AFTER + 3
    assert knock(knock_view(TWO_LEFT, late, scores=(100 - FINISH, 0))) == parse_card("Kd")
    assert knock(knock_view(TWO_LEFT, late, scores=(99 - FINISH, 0))) == L.NO_CARD
    assert knock(knock_view(TWO_LEFT, late, scores=(0, 100 - FINISH))) == L.NO_CARD  # only our own score counts
    assert knock(knock_view(TWO_LEFT, late, scores=(130, 0), target=150), finish_points=20) == parse_card("Kd")
    assert knock(knock_view(TWO_LEFT, late, scores=(129, 0), target=150), finish_points=20) == L.NO_CARD


@pytest.mark.parametrize("points", [0, 5, 30])
def test_game_point_is_the_distance_to_the_target(points):
    params = strategy.resolve("expert", {"finish_points": points}).vector()
    for seat in (0, 1):
        for mine in (100 - points - 1, 100 - points, 100 - points + 1):
            view = knock_view(TWO_LEFT, 3)
            view[L.V_SEAT] = seat
            view[L.V_SCORES + seat], view[L.V_SCORES + 1 - seat] = mine, 99
            assert MODULE.game_point_nb(view, params) == (mine >= 100 - points)


@pytest.mark.slow
def test_expert_wins_most_games_against_eaai():
    """The games target is 80% (benchmark); 1,000 paired games put the interval above 75%."""
    result = match("expert", "eaai", Rules.preset("eaai"), games=1000, seed=12)
    assert result.a.games_won.low > 0.75, result.a.games_won
    assert result.game_wins.mean() == pytest.approx(result.a.games_won.mean)


@pytest.mark.slow
def test_the_guarded_preset_wins_more_games_against_eaai():
    """expert:guarded (danger_weight 8) against the defaults, on the same game seeds: more games won."""
    rules = Rules.preset("eaai")
    guarded, default = (match(name, "eaai", rules, games=6000, seed=2032).game_wins
                        for name in ("expert:guarded", "expert"))
    gain = paired_difference(guarded, default)
    assert gain.low > 0, gain
