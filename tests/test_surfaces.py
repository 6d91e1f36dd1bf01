"""Every surface says what is true: what a command prints must not read as something else."""

from click.testing import CliRunner

from oklasim.cli import main
from oklasim.runs.batch import MAX_COUNT, SECONDS_PER_UNIT, core_time


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
