"""Every surface says what is true: what a command prints must not read as something else."""

import json

import polars as pl
from click.testing import CliRunner

from oklasim.cli import main
from oklasim.game.rules import Rules
from oklasim.runs.backends import SECONDS_PER_UNIT, core_time
from oklasim.runs.batch import MAX_COUNT
from oklasim.strategies.registry import resolve
from oklasim.strategy_api import LONGEST_HAND_DRAWS
from oklasim.studies import knock_policy
from oklasim.studies.knock_policy import _exploitability
from oklasim.studies.tune_space import dimensions


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_a_ten_card_hand_gets_its_deadwood_and_melds_and_no_discard():
    """A 10-card hand has nothing to discard: a "discard ... -> deadwood 0" line would read as a gin."""
    ten = invoke("deadwood", "2h 3h 4h 7s 7d 7h Jc Qc Kc 5d", "--upcard", "6c")
    assert ten.exit_code == 0, ten.output
    assert "discard" not in ten.output and "deadwood  5\n" in ten.output and "may knock" in ten.output
    eleven = invoke("deadwood", "2h 3h 4h 7s 7d 7h Jc Qc Kc 5d 9s")
    assert "deadwood  14 with no discard" in eleven.output and "discard   9s -> deadwood 5" in eleven.output


def test_an_oversized_run_is_told_in_a_time_that_is_true():
    result = invoke("simulate", "--strategies", "simple,greedy", "--games", 100_000_000_000)
    assert result.exit_code == 1
    assert "about 116 core-days of play with the simplest strategies" in result.output, result.output
    assert core_time(MAX_COUNT * SECONDS_PER_UNIT["games"]) == "about 12 core-days"
    assert core_time(3600) == "about 1.0 core-hours" and core_time(1e9) == "about 31.7 core-years"


def test_tune_searches_the_draw_counts_where_they_differ():
    """Uniform over 0..99 own draws, almost every candidate knocked whenever legal: a clone of greedy, scoring 0."""
    found = {d.name: (d.low, d.high) for d in dimensions("threshold", {}, {})}
    assert found["early_draws"] == found["gin_after_draws"] == (0, LONGEST_HAND_DRAWS)
    assert found["threshold"] == (0, 10)  # no search range declared: all it allows
    assert {d.name: (d.low, d.high) for d in dimensions("threshold", {"early_draws": (0, 50)}, {})} == {
        "early_draws": (0, 50)}  # asked for: searched as asked


def test_whole_parameter_values_read_as_whole_numbers():
    strategy = resolve("threshold(threshold=3, late_stock=2.5)")
    assert strategy.canonical() == ("threshold(threshold=3, threshold_offset=0, early_draws=0, gin_after_draws=99, "
                                    "late_stock=2.5)")
    assert resolve(strategy.canonical()).values == strategy.values  # and it reads back to the same values


def test_a_bad_fix_names_the_option_it_came_in():
    result = invoke("tune", "threshold", "--against", "greedy", "--fix", "early_draws=abc")
    assert result.exit_code == 1 and "Error: --fix: early_draws=abc: write a number" in result.output, result.output
    result = invoke("tune", "threshold", "--against", "greedy", "--fix", "late_stock=1", "--fix", "late_stock=2")
    assert "--fix: late_stock given more than once" in result.output


def test_the_equilibriums_exploitability_says_what_its_sign_means():
    row = {"confirm_deals": 1000, "deals": 1000}
    beaten = _exploitability(row | {"confirmed_gain": 0.19, "confirmed_lo": 0.14, "confirmed_hi": 0.24})
    robust = _exploitability(row | {"confirmed_gain": -0.25, "confirmed_lo": -0.33, "confirmed_hi": -0.18})
    noise = _exploitability(row | {"confirmed_gain": -0.01, "confirmed_lo": -0.06, "confirmed_hi": 0.04})
    assert beaten.startswith("exploitability: NOT AN EQUILIBRIUM HERE, a rule of the family beats it by +0.19")
    assert robust.startswith("exploitability: none measured; the rule that looked best against it on one sample "
                             "loses -0.25")
    assert noise.startswith("exploitability: within noise of none")
    # The shipped table's limit 10 is beaten: said, not buried, in the short table and in the long form.
    shown = invoke("policy", "--answer", "equilibrium")
    limit10 = next(line for line in shown.output.splitlines() if line.split()[:1] == ["10"])
    assert "NOT AN EQUILIBRIUM HERE" in limit10
    shown = invoke("policy", "--answer", "equilibrium", "--details")
    limit10 = next(line for line in shown.output.splitlines() if line.startswith("  limit 10"))
    assert "NOT AN EQUILIBRIUM HERE" in limit10


def quick_run(folder, rules):
    """A --quick knock study's folder, its table measured under ``rules``."""
    folder.mkdir()
    (folder / "study.json").write_text(json.dumps({"kind": "knock_thresholds", "quick": True,
                                                   "source": "knock_thresholds"}))
    table = pl.read_csv(knock_policy.SHIPPED).with_columns(pl.lit(knock_policy.rules_key(rules)).alias("rules"))
    table.write_csv(folder / "policy.csv")


def test_a_quick_run_is_offered_only_for_its_own_rules(tmp_path):
    quick_run(tmp_path / "seeds-quick", Rules())
    pagat = invoke("policy", "--rules", "pagat", "--runs", tmp_path)
    assert pagat.exit_code == 1 and "seeds-quick" not in pagat.output, pagat.output  # other rules: not offered
    quick_run(tmp_path / "pagat-quick", Rules.preset("pagat"))
    pagat = invoke("policy", "--rules", "pagat", "--runs", tmp_path)
    assert pagat.exit_code == 1 and "pagat-quick: a --quick run, not used" in pagat.output, pagat.output
    shown = invoke("policy", "--rules", "pagat", "--runs", tmp_path, "--quick")
    assert shown.exit_code == 0 and "QUICK run" in shown.output and "pagat-quick" in shown.output
