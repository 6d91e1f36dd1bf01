"""Issue 48's surface defects: files that are not UTF-8, damaged study files and runs, empty hands, a closed
stdout, the strategy specs of --help, the knock policy of rules that differ only between hands, counts below 1,
and a run's own manifest as the source of its arguments (replay, simulate --resume)."""

import re
import subprocess
import sys

import click
import polars as pl
import pytest
from cli_runner import cli, one_line_error

from oklasim.cli import main
from oklasim.errors import OklasimError, read_text
from oklasim.game.rules import Rules
from oklasim.runs import storage
from oklasim.runs.batch import RunSpec, run
from oklasim.strategies.registry import families, resolve
from oklasim.studies import dealt_hands, knock_policy, knock_thresholds
from oklasim.studies.experiment import run_experiment

NOT_UTF8 = b'preset = "pagat"\n# caf\xe9\n'


# -- 1. a text file that is not UTF-8 ----------------------------------------------------------------
@pytest.mark.parametrize("name, args", [
    ("rules.toml", ["rules", "{}"]),
    ("rules.toml", ["match", "simple", "greedy", "--rules", "{}", "--hands", "10"]),
    ("position.toml", ["advise", "--file", "{}"]),
    ("position.json", ["advise", "--file", "{}"]),
    ("game.json", ["play", "--resume", "{}"]),
    ("study.toml", ["run", "{}"]),
])
def test_a_file_that_is_not_utf8_is_named_in_one_line(tmp_path, name, args):
    path = tmp_path / name
    path.write_bytes(NOT_UTF8)
    one_line_error(cli(*[a.format(path) for a in args]), f"{path} is not UTF-8 text")


def test_the_reader_of_text_files_names_what_is_wrong(tmp_path):
    (tmp_path / "ok.toml").write_text("x = 'é'\n", encoding="utf-8")
    assert read_text(tmp_path / "ok.toml") == "x = 'é'\n"
    with pytest.raises(OklasimError, match="missing.toml"):
        read_text(tmp_path / "missing.toml")
    (tmp_path / "bad.toml").write_bytes(NOT_UTF8)
    with pytest.raises(OklasimError, match=r"bad.toml is not UTF-8 text \(byte 23 is 0xe9\)"):
        Rules.load(str(tmp_path / "bad.toml"))


# -- 2. damaged study files and runs ---------------------------------------------------------------
DEALT = '[study]\nkind = "dealt_hands"\nseed = 3\nhands = 4000\nquick_hands = 2000\n'
KNOCK = """[study]
kind = "knock_thresholds"
seed = 21
hands = 24
quick_hands = 24
[options]
opponents = ["greedy"]
thresholds = [0, 10]
gin_after_draws = [99]
quick_thresholds = [0, 10]
quick_gin_after_draws = [99]
undercut_bonuses = [10]
equilibrium_rounds = 1
quick_equilibrium_rounds = 1
games = 4
quick_games = 4
exploit_hands = 50
quick_exploit_hands = 50
"""


def study(tmp_path, name, text):
    spec = tmp_path / f"{name}.toml"
    spec.write_text(text)
    run_experiment(spec, quick=True, runs_root=tmp_path / "runs", reports_root=tmp_path / "reports")
    return spec, tmp_path / "runs" / f"{name}-quick"


def test_a_damaged_dealt_hands_table_is_named_and_sampled_again(tmp_path):
    spec, run_dir = study(tmp_path, "dealt", DEALT)
    table = run_dir / dealt_hands.FIRST_TURN_FILE
    whole = table.read_bytes()
    table.write_bytes(b"garbage\x00\x01,,\n1,2,3,4\n")
    one_line_error(cli("report", run_dir, "--reports", tmp_path / "reports"), str(table), "is damaged",
                   f"oklasim run {spec} --quick")
    ran = cli("run", spec, "--quick", "--runs", tmp_path / "runs", "--reports", tmp_path / "reports")
    assert ran.exit_code == 0, ran.output
    assert table.read_bytes() == whole
    (run_dir / dealt_hands.RESULTS_FILE).write_text("[1")
    one_line_error(cli("report", run_dir, "--reports", tmp_path / "reports"), dealt_hands.RESULTS_FILE, "damaged")


def test_a_damaged_knock_study_part_is_named_and_made_again(tmp_path):
    spec, run_dir = study(tmp_path, "knock", KNOCK)
    answers = run_dir / knock_thresholds.FILES["answers"]
    whole = answers.read_bytes()
    answers.write_bytes(whole[:300])
    one_line_error(cli("report", run_dir, "--reports", tmp_path / "reports"), str(answers), "is damaged",
                   f"oklasim run {spec} --quick makes it again")
    (run_dir / knock_thresholds.STAGES_FILE).write_text("garbage")
    selection = run_dir / knock_thresholds.FILES["selection"]
    selection.write_bytes(selection.read_bytes()[:100])
    ran = cli("run", spec, "--quick", "--runs", tmp_path / "runs", "--reports", tmp_path / "reports")
    assert ran.exit_code == 0, ran.output
    assert answers.read_bytes() == whole

    policy = run_dir / knock_thresholds.POLICY_FILE
    policy.write_bytes(b"a,b\n\xff,1,2,3\n")
    one_line_error(cli("policy", "--quick", "--runs", tmp_path / "runs"), str(policy), "is damaged",
                   f"oklasim run {spec} --quick writes it again")
    policy.write_text("a,b\n1,2\n")  # readable, but not a policy table
    one_line_error(cli("policy", "--quick", "--runs", tmp_path / "runs"), str(policy), "no column")


def test_runs_calls_a_run_with_bad_shards_damaged(tmp_path):
    spec = RunSpec.create(Rules(), ["simple", "greedy"], games=60, seed=5, shard_size=20)
    other = RunSpec.create(Rules(), ["simple", "greedy"], games=60, seed=6, shard_size=20)
    run(other, tmp_path / "other", progress=False)
    spoil = {
        "foreign": lambda d: storage.shard_path(d, "hands", 0).write_bytes(
            storage.shard_path(tmp_path / "other", "hands", 0).read_bytes()),
        "garbage": lambda d: storage.shard_path(d, "games", 1).write_bytes(b"not parquet"),
        "extra": lambda d: storage.shard_path(d, "hands", 7).write_bytes(
            storage.shard_path(d, "hands", 0).read_bytes()),
        "stray": lambda d: (d / "hands" / "part-x.parquet").write_bytes(b""),
    }
    for name, damage in spoil.items():
        run(spec, tmp_path / name, progress=False)
        damage(tmp_path / name)
    listed = cli("runs", tmp_path)
    assert listed.exit_code == 0, listed.output
    *lines, hint = listed.output.splitlines()
    status = {line.split()[0]: line.split()[1] for line in lines}
    assert status == {str(tmp_path / name): "damaged" for name in spoil} | {str(tmp_path / "other"): "complete"}
    assert hint == "damaged: oklasim show RUN says what is wrong with it and what to do"
    one_line_error(cli("show", tmp_path / "foreign"), "belongs to another run")


def test_runs_of_a_missing_folder_is_an_error(tmp_path):
    one_line_error(cli("runs", tmp_path / "nonexistent"), "nonexistent is not a folder")


# -- 7. empty hands --------------------------------------------------------------------------------
@pytest.mark.parametrize("knocker, defender, fragment", [
    ("", "", "--knocker: expected 7 or 10 cards, got 0"),
    ("2h 3h 4h 7s 7d 7h Jc Qc Kc 5d", "", "--defender: expected 7 or 10 cards, got 0"),
    ("2h 3h 4h 7s 7d 7h Jc Qc Kc 5d", "5h 6h As 2s 3s 9d 9c", "the knocker holds 10 cards and the defender 7"),
])
def test_layoff_needs_whole_hands(knocker, defender, fragment):
    one_line_error(cli("layoff", "--knocker", knocker, "--defender", defender), fragment)


def test_layoff_of_whole_hands_still_answers():
    shown = cli("layoff", "--knocker", "2h 3h 4h 7s 7d 7h Jc Qc Kc 5d", "--defender", "5h 6h As 2s 3s 9d 9c Td Jd Qd")
    assert shown.exit_code == 0 and "defender lays off 5h 6h" in shown.output, shown.output


# -- 8. a closed stdout ----------------------------------------------------------------------------
@pytest.mark.parametrize("args", [["strategies"], ["replay", "simple,greedy", "--seed", "7", "--game", "42"]])
def test_a_reader_that_stops_early_ends_the_command_quietly(args):
    process = subprocess.Popen([sys.executable, "-m", "oklasim.cli", *args], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
    process.stdout.close()  # as `| head` does once it has what it wants
    _, err = process.communicate(timeout=300)
    assert process.returncode == 141 and err == b"", err.decode()


def test_a_broken_pipe_inside_a_command_is_not_an_error(monkeypatch):
    def closed(*args, **kwargs):
        raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(click, "echo", closed)
    result = cli("rules")
    assert result.exit_code == 141 and "Error" not in result.output


# -- 9. the strategy specs shown in --help ---------------------------------------------------------
def help_texts(command, path=("oklasim",)):
    """(command path, text) of every help, epilog and option help, of every command."""
    yield " ".join(path), f"{command.help or ''}\n{command.epilog or ''}"
    for param in command.params:
        yield " ".join(path), getattr(param, "help", None) or ""
    for name, sub in getattr(command, "commands", {}).items():
        yield from help_texts(sub, (*path, name))


def test_every_strategy_spec_shown_in_a_help_resolves():
    known = families()
    shown = set()
    for where, text in help_texts(main):
        for spec in re.findall(r"\b[a-z_]+(?::\w+)?\([^()]*=[^()]*\)", text):  # name(parameter=value, ...)
            shown.add((where, spec))
        for family, preset in re.findall(r"\b([a-z_]+):([a-z_]\w*)\b", text):
            if family in known:
                shown.add((where, f"{family}:{preset}"))
    assert ("oklasim agent", "threshold(threshold=4)") in shown
    assert ("oklasim simulate", "random(knock_probability=0.3)") in shown
    for where, spec in sorted(shown):
        try:
            resolve(spec)
        except OklasimError as exc:
            pytest.fail(f"{where} --help shows {spec!r}, which does not resolve: {exc}")


# -- 11. the shipped policy tables answer rules that differ only between hands ----------------------
def test_north_american_rules_get_the_shipped_bonus_25_table(tmp_path):
    shown = cli("policy", "--rules", "north_american", "--runs", tmp_path)
    assert shown.exit_code == 0, shown.output
    assert "undercut bonus 25" in shown.output and "the shipped table" in shown.output
    assert "measured under other box_bonus, game_bonus, shutout_rule" in shown.output
    bonus = cli("policy", "--undercut-bonus", "25", "--runs", tmp_path)
    assert bonus.exit_code == 0 and "undercut bonus 25" in bonus.output and "measured under other" not in bonus.output
    assert bonus.output.splitlines()[2:] == shown.output.splitlines()[3:]  # the same table, below its basis
    one_line_error(cli("policy", "--undercut-bonus", "15", "--runs", tmp_path),
                   "oklasim policy --rules seeds --undercut-bonus 15 --write-study")
    one_line_error(cli("policy", "--undercut-bonus", "-1", "--runs", tmp_path), "undercut_bonus=-1")


def test_a_table_answers_only_rules_alike_on_every_hand():
    seeds = Rules()
    assert knock_policy.hand_key(seeds.replace(box_bonus=25, dealer_rule="loser")) == knock_policy.hand_key(seeds)
    for change in ({"gin_bonus": 20}, {"target_score": 50}, {"spade_double": True}):
        assert knock_policy.hand_key(seeds.replace(**change)) != knock_policy.hand_key(seeds), change


def test_the_written_study_keeps_the_undercut_bonus(tmp_path):
    path = tmp_path / "knock.toml"
    written = cli("policy", "--undercut-bonus", "15", "--write-study", path)
    assert written.exit_code == 0, written.output
    assert "undercut_bonuses = [15]" in path.read_text()


# -- 13. counts below 1 ----------------------------------------------------------------------------
@pytest.mark.parametrize("args, fragment", [
    (["simulate", "--games", "20", "--shard-size", "0"], "--shard-size must be at least 1, got 0"),
    (["simulate", "--games", "20", "--shard-size", "-1"], "--shard-size must be at least 1, got -1"),
    (["simulate", "--games", "20", "--workers", "0"], "--workers must be at least 1, got 0"),
    (["run", "dealt_hands", "--quick", "--workers", "0"], "--workers must be at least 1, got 0"),
    (["match", "simple", "greedy", "--hands", "10", "--workers", "-2"], "--workers must be at least 1, got -2"),
])
def test_counts_below_one_are_refused_alike(args, fragment):
    one_line_error(cli(*args), fragment)


def test_a_shard_size_of_zero_is_not_the_default():
    with pytest.raises(OklasimError, match="shard size must be a whole number of at least 1, got 0"):
        RunSpec.create(Rules(), ["simple"], games=20, shard_size=0)


# -- 15. a run's manifest gives its arguments -------------------------------------------------------
SIMULATE = ["simulate", "--strategies", "simple,random(knock_probability=0.3)", "--games", "300", "--seed", "7",
            "--shard-size", "100", "--rules", "pagat"]


@pytest.fixture
def sg(tmp_path):
    out = tmp_path / "sg"
    made = cli(*SIMULATE, "--out", out)
    assert made.exit_code == 0, made.output
    return out


def test_replay_reads_a_run_folder(sg):
    from_run = cli("replay", sg, "--game", "42")
    spelled = cli("replay", "simple,random(knock_probability=0.3)", "--seed", "7", "--rules", "pagat", "--game", "42")
    assert from_run.exit_code == 0 and from_run.output == spelled.output, from_run.output
    agreeing = cli("replay", sg, "--game", "42", "--seed", "7", "--rules", "pagat")
    assert agreeing.output == spelled.output


@pytest.mark.parametrize("args, fragment", [
    (["--seed", "3"], "other --seed 3 (the run's: 7)"),
    (["--rules", "seeds"], "other --rules/--players"),
    (["--hands"], "played games, not hands"),
    (["--game", "300"], "played 300 games: --game goes from 0 to 299"),
])
def test_replay_of_a_run_refuses_what_contradicts_it(sg, args, fragment):
    one_line_error(cli("replay", sg, *args), fragment)


def test_resume_reads_the_run_it_finishes(sg, tmp_path):
    whole = storage.read(sg, "games")
    for kind in ("hands", "games"):
        storage.shard_path(sg, kind, 1).unlink()
    manifest = storage.read_manifest(sg)
    storage.write_manifest(sg, {**manifest, "status": "interrupted"})
    one_line_error(cli("simulate", "--out", sg, "--resume", "--seed", "8", "--games", "300"),
                   "other --seed 8 (the run's: 7)")
    one_line_error(cli("simulate", "--out", sg, "--resume", "--strategies", "greedy"),
                   "other --strategies/--param greedy,greedy (the run's: simple,random(knock_probability=0.3))")
    resumed = cli("simulate", "--out", sg, "--resume")
    assert resumed.exit_code == 0, resumed.output
    assert storage.read_manifest(sg)["status"] == "complete"
    assert storage.read(sg, "games").equals(whole)
    again = cli(*SIMULATE, "--out", sg, "--resume")  # the whole original command still works
    assert again.exit_code == 0, again.output


def test_a_run_whose_strategies_changed_since_is_not_played_as_its_own(sg):
    manifest = storage.read_manifest(sg)
    spec = {**manifest["spec"], "strategy_sources": ["0" * 16, "1" * 16]}  # as if written by other strategy files
    storage.write_manifest(sg, {**manifest, "spec": {**spec, "run_id": RunSpec.from_json(spec).run_id}})
    one_line_error(cli("replay", sg), "play differently now")
    one_line_error(cli("simulate", "--out", sg, "--resume"), "play differently now")


def test_policy_columns_match_the_shipped_table():
    assert set(knock_policy.COLUMNS) <= set(pl.read_csv(knock_policy.SHIPPED).columns)
