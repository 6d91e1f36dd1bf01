"""oklasim tune --objective games: a candidate's share of games won, paired by game seed, raced and confirmed."""

import numpy as np
import pytest
from click.testing import CliRunner

from oklasim.analysis.match import match
from oklasim.analysis.stats import mean_ci, paired_difference
from oklasim.cli import main
from oklasim.studies import tune as tune_module
from oklasim.studies.tune import TuneSpec, tune

# Tiny but real: whole games of threshold against greedy, rungs of 30 and 60 games, 5 candidates.
GAMES = dict(family="threshold", against=["greedy"], budget=5, seed=3, hands_per_rung=30, rungs=2, held_out=80,
             params={"threshold": None}, objective="games")


@pytest.fixture(scope="module")
def games_tune(tmp_path_factory):
    return tune(**GAMES, out=tmp_path_factory.mktemp("tune") / "games")


def test_game_wins_are_the_share_of_each_game_won_over_the_seatings():
    result = match("threshold", "greedy", games=40, seed=9)
    assert result.game_wins.shape == (40,) and set(np.unique(result.game_wins)) <= {0.0, 0.5, 1.0}
    assert result.game_wins.mean() == pytest.approx(result.a.games_won.mean)  # every game has a winner here
    swapped = match("greedy", "threshold", games=40, seed=9)
    assert np.array_equal(swapped.game_wins, 1 - result.game_wins)  # the same games seen from the other side
    assert match("threshold", "greedy", hands=40, seed=9).game_wins is None


def test_the_search_objective_is_the_share_of_games_won_on_the_rungs_games(games_tune):
    spec = games_tune.spec
    assert spec.rung_deals() == [30, 60]
    for trial in (h for h in games_tune.history if h["state"] == "complete"):
        candidate = spec.strategy(trial["params"])
        wins = [match(candidate, "greedy", games=30, seed=spec.search_seed(k, 0)).game_wins for k in range(2)]
        assert trial["objective_by_deals"][30] == pytest.approx(wins[0].mean())
        assert trial["objective_by_deals"][60] == pytest.approx(np.concatenate(wins).mean())


def test_the_held_out_check_plays_fresh_games(games_tune):
    seed = games_tune.seeds()["held_out"][0]
    tuned = match(games_tune.strategy, "greedy", games=80, seed=seed).game_wins
    baseline = match("threshold", "greedy", games=80, seed=seed).game_wins
    figures = games_tune.opponents[0]
    assert figures.tuned == mean_ci(tuned) and figures.baseline == mean_ci(baseline)
    assert figures.gain == paired_difference(tuned, baseline)
    assert 0 <= games_tune.tuned.low <= games_tune.tuned.mean <= games_tune.tuned.high <= 1


def test_the_report_speaks_of_games(games_tune):
    text, markdown, data = games_tune.text(), games_tune.markdown(), games_tune.as_dict()
    assert "80 fresh games per opponent" in text and "% of games won on 60 games" in text
    assert " pp [" in text and "%" in text.splitlines()[-2]
    assert "share of games to the target score won" in markdown and "rungs of 30, 60 games" in markdown
    assert data["spec"]["objective"] == "games" and "share of games" in data["objective"]


def test_the_objective_makes_another_study():
    points, games = (TuneSpec.create("threshold", ["greedy"], objective=o) for o in ("points", "games"))
    assert points.digest() != games.digest()
    with pytest.raises(ValueError, match="unknown objective 'wins'; objectives: points, games"):
        TuneSpec.create("threshold", ["greedy"], objective="wins")


def test_an_interrupted_games_tune_resumes_to_the_same_result(games_tune, tmp_path, monkeypatch):
    calls = {"n": 0}

    def stop_in_the_fourth_trial(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 7:
            raise KeyboardInterrupt
        return match(*args, **kwargs)

    monkeypatch.setattr(tune_module, "match", stop_in_the_fourth_trial)
    with pytest.raises(KeyboardInterrupt):
        tune(**GAMES, out=tmp_path / "t")
    monkeypatch.setattr(tune_module, "match", match)
    again = tune(**GAMES, out=tmp_path / "t").as_dict()
    first = games_tune.as_dict()
    del again["seconds"], first["seconds"]
    assert again == first


def test_command_line_games_objective(tmp_path):
    args = ["tune", "threshold", "--against", "greedy", "--objective", "games", "--param", "threshold",
            "--budget", "2", "--hands-per-rung", "10", "--rungs", "1", "--held-out", "20", "--workers", "1",
            "--out", str(tmp_path / "t")]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert "20 fresh games per opponent" in result.output and "games won" in result.output
