"""oklasim tune: determinism, resuming, pruning, held-out deals, bad input."""

import json
import subprocess
import sys
from pathlib import Path

import optuna
import pytest
from click.testing import CliRunner

from oklasim.analysis.match import match
from oklasim.analysis.stats import paired_difference
from oklasim.cli import main
from oklasim.sim.engine import stream_key
from oklasim.studies import tune as tune_module
from oklasim.studies.tune import JOURNAL_FILE, TuneSpec, tune

TEST_STRATEGIES = str(Path(__file__).parent / "strategies")
# Small but real: two knock parameters of threshold, rungs of 200, 400 and 800 deals, 12 candidates (TPE
# models the results from the 11th on: before that Optuna samples at random).
SMALL = dict(family="threshold", against=["greedy"], budget=12, seed=1, hands_per_rung=200, rungs=3, held_out=600,
             params={"threshold": None, "gin_after_draws": (0, 30)})


def comparable(result) -> dict:
    """A result without its timing."""
    data = result.as_dict()
    del data["seconds"]
    return data


def trials_on_disk(folder: Path) -> list:
    storage = optuna.storages.JournalStorage(optuna.storages.journal.JournalFileBackend(str(folder / JOURNAL_FILE)))
    return [t for name in optuna.get_all_study_names(storage)
            for t in optuna.load_study(study_name=name, storage=storage).trials]


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    """The SMALL tune, uninterrupted, in a folder."""
    folder = tmp_path_factory.mktemp("tune") / "small"
    return tune(**SMALL, out=folder), folder


def test_the_seed_decides_everything(small):
    again = tune(**SMALL)  # in memory this time
    assert comparable(again) == comparable(small[0])
    other = tune(**SMALL | {"seed": 2})
    assert [h["params"] for h in other.history] != [h["params"] for h in small[0].history]


def test_pruning_stops_the_worse_half_at_a_rung(small):
    result, _ = small
    full = result.spec.rung_deals()
    pruned = [h for h in result.history if h["state"] == "pruned"]
    complete = [h for h in result.history if h["state"] == "complete"]
    assert pruned and complete and result.trials["pruned"] == len(pruned)
    for trial in pruned:
        deals = max(trial["objective_by_deals"])
        assert deals < full[-1]  # it stopped before the last rung
        earlier = [h["objective_by_deals"][deals] for h in result.history
                   if h["number"] < trial["number"] and deals in h["objective_by_deals"]]
        # successive halving: at least half of those at the rung (itself included) did better
        assert sum(v > trial["objective_by_deals"][deals] for v in earlier) >= max(1, (len(earlier) + 1) // 2)
    for trial in complete:
        assert sorted(trial["objective_by_deals"]) == full


def test_the_best_complete_candidate_is_reported(small):
    result, folder = small
    complete = [h for h in result.history if h["state"] == "complete"]
    best = max(complete, key=lambda h: (h["objective_by_deals"][800], -h["number"]))  # ties: the first
    assert result.trials["best"] == best["number"]
    assert {k: result.values[k] for k in best["params"]} == best["params"]
    stored = json.loads((folder / "result.json").read_text())
    assert stored["strategy"] == result.strategy and stored["gain"]["mean"] == pytest.approx(result.gain.mean)
    assert "| greedy |" in (folder / "result.md").read_text()


def test_held_out_figures_come_from_fresh_deals(small):
    result, _ = small
    seeds = result.seeds()
    assert len(seeds["search"]) == 3 and len(seeds["held_out"]) == 1  # one per rung; one for the check
    assert not {stream_key(s) for s in seeds["search"]} & {stream_key(s) for s in seeds["held_out"]}
    tuned = match(result.strategy, "greedy", hands=600, seed=seeds["held_out"][0])
    baseline = match("threshold", "greedy", hands=600, seed=seeds["held_out"][0])
    figures = result.opponents[0]
    assert figures.tuned == tuned.diff_points_per_hand and figures.baseline == baseline.diff_points_per_hand
    assert figures.gain == paired_difference(tuned.deal_nets, baseline.deal_nets)
    assert result.gain.mean == pytest.approx(result.tuned.mean - result.baseline.mean)


def test_an_interrupted_tune_resumes_to_the_same_result(small, tmp_path, monkeypatch):
    folder = tmp_path / "interrupted"
    calls = {"n": 0}

    def stop_in_the_twelfth_trial(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 23:
            raise KeyboardInterrupt
        return match(*args, **kwargs)

    monkeypatch.setattr(tune_module, "match", stop_in_the_twelfth_trial)
    with pytest.raises(KeyboardInterrupt):
        tune(**SMALL, out=folder)
    states = [t.state for t in trials_on_disk(folder)]
    assert optuna.trial.TrialState.FAIL in states and optuna.trial.TrialState.RUNNING not in states
    assert states.count(optuna.trial.TrialState.COMPLETE) + states.count(optuna.trial.TrialState.PRUNED) == 11
    monkeypatch.setattr(tune_module, "match", match)
    assert comparable(tune(**SMALL, out=folder)) == comparable(small[0])


KILLER = '''
import os, signal, sys
from oklasim.studies import tune as tune_module
calls = []
def killed_mid_search(*args, **kwargs):
    calls.append(1)
    if len(calls) == 18:
        os.kill(os.getpid(), signal.SIGKILL)
    return tune_module.match_played(*args, **kwargs)
tune_module.match_played, tune_module.match = tune_module.match, killed_mid_search
tune_module.tune(**eval(sys.argv[1]), out=sys.argv[2])
'''


def test_a_killed_tune_resumes_to_the_same_result(small, tmp_path):
    folder = tmp_path / "killed"
    process = subprocess.run([sys.executable, "-c", KILLER, repr(SMALL), str(folder)], capture_output=True)
    assert process.returncode == -9, process.stderr.decode()
    states = [t.state for t in trials_on_disk(folder)]
    assert states.count(optuna.trial.TrialState.RUNNING) == 1  # a kill cannot tidy up: the resume must
    assert comparable(tune(**SMALL, out=folder)) == comparable(small[0])
    trials = len(trials_on_disk(folder))
    assert comparable(tune(**SMALL, out=folder)) == comparable(small[0])
    assert len(trials_on_disk(folder)) == trials  # finished: no candidate is played again


def cli(*args):
    return CliRunner().invoke(main, ["tune", *args, "--strategy-path", TEST_STRATEGIES])


@pytest.mark.parametrize(
    "args, message",
    [
        (["nosuch", "--against", "greedy"], "unknown family 'nosuch'"),
        (["asap", "--against", "greedy"], "unknown family 'asap'"),  # a preset, not a family
        (["threshold", "--against", "greedy,nosuch"], "unknown strategy 'nosuch'"),
        (["threshold", "--against", ""], "panel of opponents is empty"),
        (["threshold", "--against", " , "], "cannot read the strategy list"),
        (["threshold", "--against", "greedy,greedy"], "named twice"),
        (["threshold", "--against", "greedy", "--budget", "0"], "at least 1; got 0"),
        (["threshold", "--against", "greedy", "--budget", "-5"], "at least 1; got -5"),
        (["tiny", "--against", "greedy", "--param", "version"], "no range (fixed at 1)"),
        (["tiny", "--against", "greedy", "--param", "colour"], "no parameter 'colour'"),
        (["tiny", "--against", "greedy", "--fix", "colour=1"], "no parameter 'colour'"),
        (["tiny", "--against", "greedy", "--param", "knock_at=3..12"], "within 0..10"),
        (["tiny", "--against", "greedy", "--param", "knock_at=5..2"], "LOW < HIGH"),
        (["tiny", "--against", "greedy", "--param", "knock_at=1.5..4"], "whole numbers"),
        (["tiny", "--against", "greedy", "--param", "knock_at=1-4"], "LOW..HIGH"),
        (["tiny", "--against", "greedy", "--param", "knock_at", "--param", "knock_at=1..2"], "given twice"),
        (["tiny", "--against", "greedy", "--param", "knock_at", "--fix", "knock_at=3"], "not both"),
        (["tiny", "--against", "greedy", "--fix", "knock_at=30"], "outside 0..10"),
        (["tiny", "--against", "greedy", "--fix", "knock_at=3", "--fix", "limit_share=1"], "no parameter left"),
        (["greedy", "--against", "simple"], "no parameter left"),
        (["tiny", "--against", "greedy", "--seed", "-1"], "non-negative"),
        (["tiny", "--against", "greedy", "--hands-per-rung", "1"], "at least 2"),
        (["tiny", "--against", "greedy", "--rungs", "0"], "at least 1"),
        (["tiny", "--against", "greedy", "--held-out", "0"], "at least 2"),
        (["tiny", "--against", "greedy", "--rules", "nosuch"], "neither a preset"),
        (["tiny", "--against", "greedy", "--objective", "wins"], "unknown objective 'wins'"),
    ],
)
def test_bad_input_is_one_line_and_nonzero(args, message, tmp_path):
    result = cli(*args, "--out", str(tmp_path / "t"))
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert result.output.startswith("Error: ") and result.output.count("\n") == 1 and message in result.output
    assert not (tmp_path / "t").exists()  # nothing started


def test_command_line_run_float_parameters_and_rerun(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    args = ["tiny", "--against", "greedy,simple", "--param", "limit_share=0.2..1", "--fix", "knock_at=10",
            "--budget", "3", "--hands-per-rung", "100", "--rungs", "2", "--held-out", "300", "--workers", "1"]
    first = cli(*args)
    assert first.exit_code == 0, first.output
    folders = list((tmp_path / "runs" / "tune").iterdir())
    assert len(folders) == 1 and folders[0].name.startswith("tiny-")  # the default folder, named by the arguments
    data = json.loads((folders[0] / "result.json").read_text())
    assert 0.2 <= data["values"]["limit_share"] <= 1 and data["values"]["knock_at"] == 10
    assert [o["opponent"] for o in data["opponents"]] == ["greedy", "simple"]
    assert data["history"][0]["params"] == {"limit_share": 1.0}  # the defaults come first
    assert len({h["params"]["limit_share"] for h in data["history"]}) == 3
    for line in ("limit_share", "greedy", "simple", "panel mean", "tuned strategy: tiny("):
        assert line in first.output
    again = cli(*args)  # a finished study: the same figures, no new trial
    assert again.exit_code == 0 and again.output.splitlines()[:-2] == first.output.splitlines()[:-2]
    assert json.loads((folders[0] / "result.json").read_text())["history"] == data["history"]
    other = cli(*args[:-2], "--out", str(folders[0]), "--seed", "5")
    assert other.exit_code == 1 and "holds a different tune" in other.output


def test_one_tune_per_folder_and_only_in_its_own(tmp_path):
    with tune_module._folder_lock(tmp_path / "busy"):
        with pytest.raises(ValueError, match="another oklasim tune is working"):
            tune(**SMALL, out=tmp_path / "busy")
    (tmp_path / "other" / "hands").mkdir(parents=True)
    with pytest.raises(ValueError, match="something else than a tune"):
        tune(**SMALL, out=tmp_path / "other")
    (tmp_path / "file").write_text("")
    with pytest.raises(ValueError, match="cannot write in"):
        tune(**SMALL, out=tmp_path / "file" / "t")


def test_rungs_double_the_deals_and_seeds_never_repeat():
    spec = TuneSpec.create("threshold", ["greedy", "simple"], hands_per_rung=300, rungs=4)
    assert spec.rung_deals() == [300, 600, 1200, 2400]
    seeds = [spec.search_seed(k, i) for k in range(4) for i in range(2)] + [spec.held_out_seed(i) for i in range(2)]
    assert len({stream_key(s) for s in seeds}) == len(seeds) == 10


def test_command_line_interrupt_says_how_to_continue(tmp_path, monkeypatch):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(tune_module, "match", interrupted)
    result = cli("tiny", "--against", "greedy", "--out", str(tmp_path / "t"))
    assert result.exit_code == 130 and "run the same command to continue the study in" in result.output
    assert [t.state for t in trials_on_disk(tmp_path / "t")] == [optuna.trial.TrialState.FAIL]


def test_runs_as_a_module_too():
    """``python -m oklasim.cli`` imports the command line twice over: the tune command must not import in a cycle."""
    process = subprocess.run([sys.executable, "-m", "oklasim.cli", "tune", "--help"], capture_output=True, text=True)
    assert process.returncode == 0 and "paired points/hand difference" in process.stdout, process.stderr


def test_a_choice_parameter_is_tuned_by_name():
    result = tune(family="score_aware", against=["greedy"], budget=4, seed=3, hands_per_rung=100, rungs=1,
                  held_out=100, params={"play": None, "threshold": None})
    play = next(d for d in result.spec.dimensions if d.name == "play")
    assert play.choices == ("greedy", "defensive") and play.range_text() == "greedy|defensive"
    assert {h["params"]["play"] for h in result.history} <= {"greedy", "defensive"}
    assert result.history[0]["params"]["play"] == "defensive"  # the defaults first
    assert "greedy|defensive" in result.text()
    with pytest.raises(ValueError, match=r"play is a choice among greedy\|defensive; tune it without a range"):
        tune(family="score_aware", against=["greedy"], budget=2, params={"play": (0, 1)})
