"""Paired matches and tournaments, and the statistics behind their intervals."""

import json
import math
from types import SimpleNamespace

import numpy as np
import pytest
from click.testing import CliRunner

from oklasim._kernels import engine_nb as E
from oklasim.analysis.match import MatchResult, TournamentResult, match, tournament
from oklasim.analysis.stats import Estimate, mean_ci, paired_difference, proportion, ratio_ci, wilson
from oklasim.cli import main
from oklasim.game.rules import Rules
from oklasim.sim import engine


def deals(strategies, seed, games):
    """(game, seat, dealt hand) and upcards of the first hand of each game, from the engine's trace."""
    seats = engine.resolve_all(strategies, 2)
    _, _, trace = engine.run_kernel(engine.kernel_rules(Rules(), True), seats, seed, 0, games, trace_capacity=50_000)
    first = trace[(trace[:, 1] == 0) & np.isin(trace[:, 3], [E.EV_DEAL, E.EV_UPCARD])]
    return first[:, [0, 2, 3, 4]].tolist()


def test_paired_seatings_get_identical_deals():
    assert deals(["simple", "greedy"], 4, 30) == deals(["greedy", "simple"], 4, 30)


def test_a_strategy_against_itself_is_exactly_even():
    result = match("random", "random", hands=2000, seed=3)
    assert result.diff_points_per_hand.mean == 0 and result.diff_points_per_hand.half_width == 0


def test_match_figures_are_consistent():
    result = match("simple", "greedy", hands=4000, seed=2)
    d = result.diff_points_per_hand
    assert d.mean == pytest.approx(result.a.points_per_hand.mean - result.b.points_per_hand.mean)
    assert d.low < d.mean < d.high and result.hands == 8000
    assert result.variance_reduction > 1  # pairing helps on single deals
    for side in (result.a, result.b):
        assert set(side.outcomes) == {"knock", "gin", "undercut_suffered", "undercut_made"}
    assert result.a.outcomes["undercut_made"].mean == pytest.approx(result.b.outcomes["undercut_suffered"].mean)


def test_games_match_has_win_rates_that_add_up():
    result = match("simple", "greedy", games=300, seed=2)
    assert result.a.games_won.mean + result.b.games_won.mean == pytest.approx(1.0)


@pytest.mark.parametrize("size", [{"hands": 500}, {"games": 30}])
def test_a_match_result_reads_back_from_its_dict(size):
    result = match("simple", "greedy", seed=3, **size)
    stored = json.loads(json.dumps(result.as_dict()))  # as a tournament keeps it on disk
    back = MatchResult.from_dict(stored)
    assert back == result and back.as_dict() == result.as_dict()  # deal_nets is not stored (compare=False)
    assert (back.a.games_won is None) == ("hands" in size)


@pytest.mark.parametrize("players", [3, 4])
def test_match_with_more_players_rotates_a_through_every_seat(players):
    result = match("simple", "random", Rules(players=players), games=40, seed=1)
    assert result.diff_points_per_hand.low > 0  # simple beats random
    assert result.a.games_won.mean + result.b.games_won.mean == pytest.approx(1.0)
    assert result.a.games_won.n == 40 * players
    same = match("random", "random", Rules(players=players), hands=300, seed=2)
    assert same.diff_points_per_hand.mean == pytest.approx(0, abs=1e-9)


def test_tournament_ranks_random_last():
    result = tournament(["random", "simple", "greedy"], hands=3000, seed=1)
    ranking = [standing.name for standing in result.ranking()]
    assert ranking[-1] == "random"
    assert len(result.matches) == 3
    shown = CliRunner().invoke(main, ["tournament", "random", "simple", "greedy", "--hands", "2000"])
    assert "ranked by head-to-head record" in shown.output and "won  lost  undecided" in shown.output


def test_one_absurd_entrant_does_not_decide_the_ranking():
    """gin_only beats random by 77.6 and loses to everyone else: first by average edge, not by record."""
    edges = {("gin_only", "random"): 77.6, ("simple", "random"): 20.0, ("greedy", "random"): 21.0,
             ("asap", "random"): 20.5, ("gin_only", "simple"): -2.0, ("gin_only", "greedy"): -2.5,
             ("gin_only", "asap"): -2.2, ("greedy", "simple"): 0.6, ("asap", "simple"): 0.1, ("greedy", "asap"): 0.5}
    matches = {pair: SimpleNamespace(diff_points_per_hand=Estimate(d, d - 0.3, d + 0.3, 1000))
               for pair, d in edges.items()}
    result = TournamentResult(["gin_only", "simple", "greedy", "asap", "random"], matches)
    standings = result.ranking()
    assert [s.name for s in standings] == ["greedy", "asap", "simple", "gin_only", "random"]
    assert (standings[3].wins, standings[3].losses, standings[3].edge_place) == (1, 3, 1)  # first by edge alone
    assert (standings[0].wins, standings[0].losses, standings[0].undecided) == (4, 0, 0)


def test_match_json_from_the_command_line():
    out = CliRunner().invoke(main, ["match", "simple", "greedy", "--hands", "1000", "--json", "--workers", "1"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert set(data["diff_points_per_hand"]) >= {"mean", "ci95"} and len(data["diff_points_per_hand"]["ci95"]) == 2
    assert data["a"]["name"] == "simple" and "knock" in data["a"]["outcomes"]


def test_wilson_interval_known_values():
    low, high = wilson(50, 100)
    assert (round(low, 4), round(high, 4)) == (0.4038, 0.5962)
    low, high = wilson(0, 10)
    assert low == 0 and round(high, 4) == 0.2775
    assert proportion(3, 4).mean == 0.75


def test_mean_and_paired_intervals():
    x = np.array([1.0, 2.0, 3.0, 4.0])
    est = mean_ci(x)
    assert est.mean == 2.5 and est.half_width == pytest.approx(1.959963984540054 * np.std(x, ddof=1) / 2)
    diff = paired_difference([3, 5, 7], [1, 2, 3])
    assert diff.mean == 3 and diff.n == 3
    with pytest.raises(ValueError, match="same length"):
        paired_difference([1, 2], [1])


def test_ratio_interval_matches_the_mean_when_units_have_one_item():
    x = np.array([1.0, 4.0, 2.0, 7.0, 3.0])
    ratio, mean = ratio_ci(x, np.ones(5)), mean_ci(x)
    assert ratio.mean == mean.mean and math.isclose(ratio.half_width, mean.half_width)
