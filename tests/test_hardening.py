"""Issue 12: no silent wrong numbers, no runaway runs, no writes outside the asked folder, one-line errors."""

import json
import subprocess
import sys
from concurrent.futures import Future

import numpy as np
import pytest
from cli_runner import cli, one_line_error

import oklasim
from oklasim._kernels import layout as L
from oklasim.game.rules import MAX_BONUS, Rules, field_docs, field_names
from oklasim.runs import batch, storage
from oklasim.runs.batch import MAX_COUNT, MAX_IN_FLIGHT, RunSpec, run
from oklasim.sim.engine import games_frame, hands_frame, kernel_rules, resolve_all, run_kernel, simulate
from oklasim.studies.experiment import run_experiment
from oklasim.studies.spec import ensure_run


def small_spec(**kwargs):
    args = dict(games=60, seed=5, shard_size=20)
    args.update(kwargs)
    return RunSpec.create(Rules(), ["simple", "greedy"], **args)


# -- 1. scores never overflow ------------------------------------------------------------------------
def test_every_rule_number_has_a_documented_range():
    numbers = [f for f in field_names() if isinstance(getattr(Rules(), f), int)
               and not isinstance(getattr(Rules(), f), bool) and f not in ("players", "hand_size")]
    for name in numbers:
        assert " to " in field_docs()[name], name  # shown by `oklasim rules`
        with pytest.raises(ValueError, match=f"{name}=.* is outside its range"):
            Rules().replace(**{name: 10**12})


@pytest.mark.parametrize("value", ["1000000000000", "9223372036854775807", "99999999999999999999"])
def test_huge_rule_numbers_are_refused_in_one_line(tmp_path, value):
    path = tmp_path / "big.toml"
    path.write_text(f"gin_bonus = {value}\n")
    one_line_error(cli("simulate", "--rules", path, "--hands", 200, "--seed", 1), "gin_bonus", "outside its range")


def test_largest_allowed_scores_fit_the_records():
    """Every bonus at its maximum, doubled by spades and the shutout rule: the stored columns hold the
    kernel's 64-bit figures exactly."""
    rules = Rules(gin_bonus=MAX_BONUS, big_gin=True, big_gin_bonus=MAX_BONUS, undercut_bonus=MAX_BONUS,
                  box_bonus=MAX_BONUS, game_bonus=MAX_BONUS, shutout_rule="double_total", spade_double=True,
                  target_score=10_000, players=3)
    seats = resolve_all(["simple"], 3)
    hands, games, _ = run_kernel(kernel_rules(rules, False), seats, 7, 0, 30)
    hand_frame, game_frame = hands_frame(hands, 3), games_frame(games, 3)
    assert hands[:, L.H_POINTS].max() > MAX_BONUS  # the bonuses really were scored
    assert np.array_equal(hand_frame["points"].to_numpy(), hands[:, L.H_POINTS])
    for seat in range(3):
        assert np.array_equal(game_frame[f"total_{seat}"].to_numpy(), games[:, L.G_TOTALS + seat])
    assert game_frame.select([f"total_{s}" for s in range(3)]).min().min_horizontal().item() >= 0


# -- 3. runaway counts -------------------------------------------------------------------------------
def test_absurd_counts_are_refused_with_the_reason():
    with pytest.raises(ValueError, match="core-years"):
        small_spec(games=10**12)
    one_line_error(cli("simulate", "--games", 10**12), "core-years", f"{MAX_COUNT:,}")
    one_line_error(cli("match", "simple", "greedy", "--hands", 10**12), "about 116 core-days")


def test_the_shard_plan_is_computed_not_listed():
    spec = small_spec(games=MAX_COUNT, shard_size=1)
    assert spec.n_shards == MAX_COUNT and spec.shard(MAX_COUNT - 1) == (MAX_COUNT - 1, 1)
    assert not hasattr(spec, "shards")


def test_records_kept_in_memory_are_bounded():
    with pytest.raises(ValueError, match="kept in memory"):
        run(small_spec(games=None, hands=batch.MAX_IN_MEMORY_HANDS + 1), None)
    one_line_error(cli("match", "simple", "greedy", "--hands", 10**9), "kept in memory")


def test_the_driver_submits_a_bounded_number_of_shards():
    class Instant:
        """An executor that plays nothing and counts what is waiting."""

        def __init__(self):
            self.waiting, self.most = 0, 0

        def submit(self, fn, spec, shard, target):
            self.waiting += 1
            self.most = max(self.most, self.waiting)
            future = Future()
            future.set_result((0, None, 0.0))
            future.add_done_callback(lambda _: None)
            return future

    executor = Instant()
    spec = small_spec(games=10**9, shard_size=1000)
    for taken, _ in enumerate(batch.play_shards(executor, spec, iter(range(spec.n_shards)), None)):
        executor.waiting -= 1
        if taken == 5 * MAX_IN_FLIGHT:
            break
    assert executor.most <= MAX_IN_FLIGHT


def test_experiment_sizes_are_checked(tmp_path):
    for value in ["10000000000000", '"many"', "0", "-5", "1.5"]:
        path = tmp_path / "exp.toml"
        path.write_text(f'[study]\nkind = "upcard_effects"\nhands = {value}\n')
        one_line_error(cli("run", path, "--quick", "--runs", tmp_path / "r", "--reports", tmp_path / "p"), "hands")
    path.write_text('[study]\nkind = "upcard_effects"\nhands = 1000\nquick_hands = 0\n')
    one_line_error(cli("run", path, "--quick", "--runs", tmp_path / "r"), "quick_hands")


# -- 4. names from data files ------------------------------------------------------------------------
def study_folder(tmp_path, name):
    folder = tmp_path / "runs" / "study"
    run(small_spec(), folder / "base", progress=False)
    record = {"name": name, "kind": "upcard_effects", "title": "t", "seed": 5, "mode": "hands", "count": 60,
              "strategies": ["simple", "simple"], "rules": Rules().to_dict(), "options": {}, "quick": True,
              "source": "x.toml"}
    (folder / "study.json").write_text(json.dumps(record))
    return folder


@pytest.mark.parametrize("name", ["/tmp/elsewhere", "../../escape", "a/b", ".hidden", ""])
def test_study_names_must_be_plain(tmp_path, name):
    folder = study_folder(tmp_path, name)
    one_line_error(cli("report", folder, "--reports", tmp_path / "reports"), "plain name")
    assert not (tmp_path / "reports").exists() and not (tmp_path / "escape-quick").exists()


def test_a_report_never_replaces_a_folder_that_is_not_a_report(tmp_path):
    run(small_spec(), tmp_path / "runs" / "x", progress=False)
    precious = tmp_path / "reports" / "x"
    precious.mkdir(parents=True)
    (precious / "notes.txt").write_text("mine")
    one_line_error(cli("report", tmp_path / "runs" / "x", "--reports", tmp_path / "reports"), "not an oklasim report")
    assert (precious / "notes.txt").read_text() == "mine"
    assert sorted(p.name for p in (tmp_path / "reports").iterdir()) == ["x"]  # no half-built leftovers


# -- 5. shards checked against the manifest ----------------------------------------------------------
def test_a_foreign_shard_is_not_counted(tmp_path):
    run(small_spec(), tmp_path / "a", progress=False)
    run(small_spec(seed=6), tmp_path / "b", progress=False)
    foreign = storage.shard_path(tmp_path / "b", "hands", 0).read_bytes()
    storage.shard_path(tmp_path / "a", "hands", 99).write_bytes(foreign)
    one_line_error(cli("show", tmp_path / "a"), "part-00099", "not in the run's plan")
    storage.shard_path(tmp_path / "a", "hands", 99).unlink()
    storage.shard_path(tmp_path / "a", "hands", 1).write_bytes(foreign)
    one_line_error(cli("show", tmp_path / "a"), "belongs to another run")
    one_line_error(cli("report", tmp_path / "a", "--reports", tmp_path / "rep"), "belongs to another run")


def test_a_missing_shard_is_not_shown_as_complete(tmp_path):
    run(small_spec(), tmp_path / "a", progress=False)
    storage.shard_path(tmp_path / "a", "hands", 2).unlink()
    one_line_error(cli("show", tmp_path / "a"), "missing", "--resume")
    resumed = run(small_spec(), tmp_path / "a", resume=True, progress=False)
    assert resumed.hands.height == run(small_spec(), None).hands.height


def test_resume_refuses_shards_of_other_kernel_code(tmp_path):
    run(small_spec(), tmp_path / "a", progress=False)
    manifest = storage.read_manifest(tmp_path / "a")
    storage.write_manifest(tmp_path / "a", {**manifest, "status": "interrupted", "source_hash": "0" * 64})
    with pytest.raises(ValueError, match="other kernel code"):
        run(small_spec(), tmp_path / "a", resume=True, progress=False)
    storage.write_manifest(tmp_path / "a", {**manifest, "status": "interrupted", "version": "0.0.1"})
    with pytest.raises(ValueError, match="oklasim 0.0.1"):
        run(small_spec(), tmp_path / "a", resume=True, progress=False)


def test_a_study_replays_a_run_of_other_kernel_code(tmp_path):
    folder = tmp_path / "cfg"
    run(small_spec(), folder, progress=False)
    manifest = storage.read_manifest(folder)
    storage.write_manifest(folder, {**manifest, "source_hash": "0" * 64})
    ensure_run(small_spec(), folder, workers=1)
    assert storage.read_manifest(folder)["source_hash"] == manifest["source_hash"]


def test_a_killed_run_shows_as_interrupted(tmp_path):
    run(small_spec(), tmp_path / "a", progress=False)
    manifest = storage.read_manifest(tmp_path / "a")
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    storage.write_manifest(tmp_path / "a", {**manifest, "status": "running",
                                            "driver": {**manifest["driver"], "pid": int(dead.stdout)}})
    assert cli("show", tmp_path / "a").output.startswith(f"run {tmp_path / 'a'}: interrupted")


# -- 6. oklasim run never overwrites another experiment's runs ---------------------------------------
def test_run_does_not_overwrite_another_experiment_of_the_same_name(tmp_path):
    files = []
    for seed in (1, 2):
        (tmp_path / str(seed)).mkdir()
        path = tmp_path / str(seed) / "same.toml"
        path.write_text(f'[study]\nkind = "upcard_effects"\nseed = {seed}\nhands = 2000\nquick_hands = 400\n')
        files.append(path)
    roots = dict(runs_root=tmp_path / "runs", reports_root=tmp_path / "reports", quick=True)
    index = run_experiment(files[0], **roots)
    first = index.read_bytes()
    with pytest.raises(ValueError, match="another experiment named same .*seed"):
        run_experiment(files[1], **roots)
    assert index.read_bytes() == first
    assert json.loads((tmp_path / "runs" / "same-quick" / "study.json").read_text())["seed"] == 1
    run_experiment(files[1], overwrite=True, **roots)
    assert json.loads((tmp_path / "runs" / "same-quick" / "study.json").read_text())["seed"] == 2
    assert index.read_bytes() != first


# -- 7. one line, not a traceback --------------------------------------------------------------------
def test_unwritable_places_are_one_line(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    one_line_error(cli("simulate", "--games", 5, "--out", blocker / "below"))
    one_line_error(cli("simulate", "--games", 5, "--out", "/proc/oklasim-test"))
    one_line_error(cli("report", tmp_path, "--reports", blocker), "not a folder")


def test_damaged_runs_are_one_line(tmp_path):
    run(small_spec(), tmp_path / "a", progress=False)
    storage.shard_path(tmp_path / "a", "hands", 1).write_bytes(b"not parquet at all")
    one_line_error(cli("show", tmp_path / "a"), "not a readable parquet")
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "manifest.json").write_text('{"status": "complete"}')
    one_line_error(cli("show", tmp_path / "b"), "not an oklasim manifest")
    one_line_error(cli("report", tmp_path / "b", "--reports", tmp_path / "rep"), "not an oklasim manifest")
    assert not (tmp_path / "rep").exists() or not any((tmp_path / "rep").iterdir())
    assert "b" not in cli("runs", tmp_path).output


def test_replay_of_an_impossible_game_is_one_line():
    one_line_error(cli("replay", "simple", "--game", "99999999999999999999"), "not a game of any run")


@pytest.mark.parametrize(
    "source, fragment",
    [
        ("def broken(:\n", "SyntaxError"),
        ("import no_such_module_anywhere\n", "ModuleNotFoundError"),
        ("from oklasim.strategy_api import Family\nFAMILY = Family('plainpy', 'x')\n"
         "def decide_nb(kind, view, params):\n    return 0\n", "must be decorated"),
    ],
)
def test_bad_strategy_files_are_one_line(tmp_path, source, fragment):
    path = tmp_path / "mine.py"
    path.write_text(source)
    one_line_error(cli("simulate", "--games", 5, "--strategy-path", path), "mine.py", fragment)


# -- 8. the smaller items ----------------------------------------------------------------------------
def test_a_game_stopped_by_the_guard_has_no_winner():
    games = simulate(Rules(), ["random(knock_probability=0)"], games=2, seed=1).games
    assert games["guard"].all() and (games["winner"] == -1).all()
    output = cli("simulate", "--strategies", "random(knock_probability=0)", "--games", 2).output
    assert "nan" not in output and "n/a" in output  # no knocks: no undercut rate to show


@pytest.mark.parametrize(
    "args, fragment",
    [
        (["simulate", "--games", 5, "--dask-local", 0], "at least 1"),
        (["simulate", "--games", 5, "--dask-local", 1, "--workers", 2], "--workers"),
        (["simulate", "--games", 5, "--param", "knock_probability=0.1", "--param", "knock_probability=0.2",
          "--strategies", "random"], "more than once"),
        (["deadwood", "2h 3h 4h 7s 7d 7h Jc Qc Kc"], "expected 10 or 11 cards"),
        (["deadwood", "2h 3h 4h 7s 7d 7h Jc Qc Kc 5d", "--upcard", "Xx"], "Xx"),
        (["policy", "--runs", "/nonexistent/runs"], "not a folder"),
        (["tournament", "simple", "greedy", "no_such_strategy", "--hands", 100], "no_such_strategy"),
    ],
)
def test_small_input_mistakes_are_refused(args, fragment):
    one_line_error(cli(*args), fragment)


@pytest.mark.parametrize(
    "study, fragment",
    [
        ('strategies = "simple"', "strategies must be a list"),
        ("seed = 1.5", "seed"),
        ("colour = 3", "unknown [study] key(s) colour"),
    ],
)
def test_experiment_fields_are_checked(tmp_path, study, fragment):
    path = tmp_path / "exp.toml"
    path.write_text(f'[study]\nkind = "upcard_effects"\nhands = 1000\n{study}\n')
    one_line_error(cli("run", path, "--quick", "--runs", tmp_path / "r"), fragment)


def test_runs_lists_the_runs_inside_study_folders(tmp_path):
    run(small_spec(), tmp_path / "study" / "config", progress=False)
    assert "config" in cli("runs", tmp_path).output


def test_match_header_says_what_was_played():
    output = cli("match", "simple", "greedy", "--hands", 300).output
    assert "each played in both seatings" in output and "in every seat" not in output


# -- 9. the public API -------------------------------------------------------------------------------
def test_the_package_reexports_its_entry_points_lazily():
    code = ("import sys, oklasim; heavy = [m for m in ('numba', 'polars', 'oklasim.sim.engine') if m in sys.modules];"
            "print(heavy); import oklasim.analysis.match; print(callable(oklasim.match))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["[]", "True"]
    assert oklasim.Rules is Rules and oklasim.simulate is simulate
    result = oklasim.match("simple", "greedy", hands=200, seed=1)
    assert result.hands == 400
    with pytest.raises(AttributeError):
        oklasim.no_such_name  # noqa: B018
