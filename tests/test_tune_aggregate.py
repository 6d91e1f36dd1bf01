"""oklasim tune --aggregate: the mean over the panel (as before) or its worst case, raced, chosen, confirmed, keyed."""

import json

import numpy as np
import pytest
from click.testing import CliRunner

from oklasim.analysis.match import match
from oklasim.analysis.stats import Estimate
from oklasim.cli import main
from oklasim.studies.tune import TuneSpec, default_folder, tune
from oklasim.studies.tune_result import panel_mean, panel_worst
from oklasim.studies.tune_spec import AGGREGATES

# Tiny but real: threshold's knock threshold against three opponents, rungs of 100 and 200 deals, 3 candidates.
WORST = dict(family="threshold", against=["greedy", "simple", "threshold:gin_only"], budget=3, seed=2,
             hands_per_rung=100, rungs=2, held_out=200, params={"threshold": None}, aggregate="min")


@pytest.fixture(scope="module")
def worst_tune(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tune") / "worst"
    return tune(**WORST, out=folder), folder


def test_min_takes_the_worst_opponent_and_mean_is_the_plain_mean():
    values = [0.25, -1.5, 0.75]
    assert AGGREGATES["min"].of_values(values) == -1.5
    assert AGGREGATES["mean"].of_values(values) == float(np.mean(values))  # as the search averaged before
    figures = [Estimate(0.2, -0.1, 0.5, 10), Estimate(-0.3, -0.4, -0.2, 10), Estimate(-0.25, -0.9, 0.4, 10)]
    worst = panel_worst(figures)
    assert (worst.mean, worst.low, worst.high, worst.n) == (-0.3, -0.9, -0.2, 30)  # lowest mean, low and high
    assert panel_mean(figures).mean == pytest.approx(np.mean([0.2, -0.3, -0.25]))


def test_the_search_races_and_chooses_on_the_worst_opponent(worst_tune):
    result, _ = worst_tune
    spec = result.spec
    complete = [h for h in result.history if h["state"] == "complete"]
    assert complete
    for trial in complete:
        candidate = spec.strategy(trial["params"])
        # each rung adds 100 deals per opponent: 100, then 200 in all
        nets = [[match(candidate, opponent, hands=100, seed=spec.search_seed(k, i)).deal_nets for k in range(2)]
                for i, opponent in enumerate(spec.panel)]
        first = [n[0].mean() for n in nets]
        both = [np.concatenate(n).mean() for n in nets]
        assert trial["objective_by_deals"][100] == pytest.approx(min(first))
        assert trial["objective_by_deals"][200] == pytest.approx(min(both))
    best = max(complete, key=lambda h: (h["objective_by_deals"][200], -h["number"]))
    assert result.trials["best"] == best["number"]


def test_the_report_gives_the_worst_case_and_records_the_aggregate(worst_tune):
    result, folder = worst_tune
    tuned, baseline = result.worst
    assert tuned == panel_worst([o.tuned for o in result.opponents])
    assert baseline.mean == min(o.baseline.mean for o in result.opponents)
    text = result.text()
    assert "panel mean" in text and "panel worst" in text and "search objective (worst case)" in text
    data = json.loads((folder / "result.json").read_text())
    assert data["aggregate"] == "min" and data["spec"]["aggregate"] == "min"
    assert data["objective"].startswith("worst case over the panel of")
    assert data["worst"]["tuned"] == tuned.as_dict()
    markdown = (folder / "result.md").read_text()
    assert "Objective: the worst case over the panel" in markdown and "| panel worst |" in markdown


def test_the_aggregate_keys_the_study(worst_tune, tmp_path):
    mean, worst = (TuneSpec.create("threshold", ["greedy"], aggregate=a) for a in ("mean", "min"))
    assert "aggregate" not in mean.identity()  # the key of a study begun before min existed
    assert mean.digest() != worst.digest() and default_folder(mean) != default_folder(worst)
    _, folder = worst_tune
    with pytest.raises(ValueError, match="holds a different tune"):
        tune(**WORST | {"aggregate": "mean"}, out=folder)


def test_command_line_worst_case_over_the_shipped_panel(tmp_path):
    args = ["tune", "threshold", "--against", "panel", "--aggregate", "min", "--objective", "games", "--param",
            "threshold", "--budget", "2", "--hands-per-rung", "10", "--rungs", "1", "--held-out", "20",
            "--workers", "1", "--out", str(tmp_path / "t")]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert "policy:ub25_mix" in result.output and "panel worst" in result.output
    assert json.loads((tmp_path / "t" / "result.json").read_text())["aggregate"] == "min"


@pytest.mark.parametrize("value", ["max", "MEAN", ""])
def test_a_bad_aggregate_is_refused_in_one_line(value, tmp_path):
    result = CliRunner().invoke(main, ["tune", "threshold", "--against", "greedy", "--aggregate", value,
                                       "--out", str(tmp_path / "t")])
    assert result.exit_code == 1 and result.output.count("\n") == 1
    assert f"unknown aggregate {value!r}; aggregates: mean, min" in result.output
    assert not (tmp_path / "t").exists()


def test_min_gain_races_on_the_worst_gain_over_the_defaults(tmp_path):
    """--aggregate min-gain: each opponent's figure is the candidate's minus the defaults' on the same deals, and
    the worst of them decides; the defaults themselves score 0."""
    result = tune(**WORST | {"aggregate": "min-gain", "budget": 2}, out=tmp_path / "gain")
    spec = result.spec
    baseline = spec.baseline()
    for trial in (h for h in result.history if h["state"] == "complete"):
        candidate = spec.strategy(trial["params"])
        gains = []
        for i, opponent in enumerate(spec.panel):
            mine, theirs = ([match(s, opponent, hands=100, seed=spec.search_seed(k, i)).deal_nets for k in range(2)]
                            for s in (candidate, baseline))
            gains.append(np.concatenate(mine).mean() - np.concatenate(theirs).mean())
        assert trial["objective_by_deals"][200] == pytest.approx(min(gains))
    assert result.history[0]["objective_by_deals"][200] == pytest.approx(0.0)  # the defaults, tried first
    assert "worst gain" in result.text() and "search objective (worst gain over the defaults)" in result.text()
    assert json.loads((tmp_path / "gain" / "result.json").read_text())["worst"]["gain"] == result.worst_gain.as_dict()
