"""Batch runs: identical results on any number of workers and on Dask, parquet provenance, resume, bad input."""

import json
import signal
import subprocess
import sys

import polars as pl
import pyarrow.parquet as pq
import pytest
from cli_runner import cli
from processes import wait_for

from oklasim.game.rules import Rules
from oklasim.runs import batch, storage
from oklasim.runs.backends import SerialExecutor, make_executor
from oklasim.runs.batch import RunSpec, run
from oklasim.sim.engine import simulate

SORT = ["game", "hand"]


def spec(**kwargs):
    args = dict(games=120, seed=5, shard_size=25)
    args.update(kwargs)
    return RunSpec.create(Rules(), ["simple", "greedy"], **args)


def test_same_results_with_one_or_two_workers_and_in_memory(tmp_path):
    one = run(spec(), tmp_path / "one", workers=1, progress=False)
    two = run(spec(), tmp_path / "two", workers=2, progress=False)
    memory = run(spec(), None, workers=2, progress=False)
    direct = simulate(Rules(), ["simple", "greedy"], games=120, seed=5)
    for result in (two, memory):
        assert result.hands.sort(SORT).equals(one.hands.sort(SORT))
        assert result.games.sort("game").equals(one.games.sort("game"))
    assert direct.hands.equals(one.hands.sort(SORT))


@pytest.mark.slow
def test_same_results_on_a_local_dask_cluster(tmp_path):
    local = run(spec(), tmp_path / "local", workers=1, progress=False)
    dask = run(spec(), tmp_path / "dask", dask_local=2, progress=False)
    assert dask.hands.sort(SORT).equals(local.hands.sort(SORT))
    assert json.loads((tmp_path / "dask" / "manifest.json").read_text())["backend"] == "dask local x2"


@pytest.mark.slow
def test_a_local_dask_run_beside_another_cluster_says_nothing_on_stderr(tmp_path):
    """Two local clusters at once (two runs, two users): the second's scheduler finds the usual HTTP port taken and
    takes another one, without a word on our stderr."""
    import socket

    with socket.socket() as taken:
        try:
            taken.bind(("127.0.0.1", 8787))
        except OSError:
            pass  # already held by someone else: the same situation
        done = subprocess.run([sys.executable, "-m", "oklasim.cli", "simulate", "--strategies", "simple,greedy",
                               "--games", "40", "--dask-local", "1", "--out", str(tmp_path / "run")],
                              capture_output=True, text=True, timeout=600)
    assert done.returncode == 0 and "Port" not in done.stderr, done.stderr


def test_one_worker_plays_in_process_and_collects_shard_by_shard(tmp_path):
    backend = make_executor(spec(), workers=1)
    assert isinstance(backend.executor, SerialExecutor) and backend.name == "in-process"
    failed = backend.executor.submit(int, "not a number")  # a task's error waits in its future, as in a pool
    assert isinstance(failed.exception(), ValueError)

    def interrupted():
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):  # an interrupt is not kept for later
        backend.executor.submit(interrupted)

    class Counting(SerialExecutor):
        submitted = 0

        def submit(self, fn, /, *args, **kwargs):
            self.submitted += 1
            return super().submit(fn, *args, **kwargs)

    executor, plan = Counting(), spec()
    for taken, _ in enumerate(batch.play_shards(executor, plan, iter(range(plan.n_shards)), None), 1):
        assert executor.submitted == taken  # one shard in flight: each collected before the next is played
    assert taken == plan.n_shards
    run(plan, tmp_path / "r", workers=1, progress=False)
    assert storage.read_manifest(tmp_path / "r")["backend"] == "in-process"


def test_parquet_and_manifest_carry_provenance(tmp_path):
    result = run(spec(), tmp_path / "r", workers=1, progress=False)
    manifest = storage.read_manifest(tmp_path / "r")
    assert manifest["status"] == "complete" and manifest["shards_done"] == manifest["shards_total"] == 5
    assert manifest["spec"]["rules"] == Rules().to_dict() and manifest["spec"]["seed"] == 5
    assert manifest["spec"]["labels"] == ["simple", "greedy"] and manifest["version"]
    assert manifest["source_hash"] and manifest["hands_written"] == result.hands.height
    meta = pq.read_metadata(storage.shard_path(tmp_path / "r", "hands", 0))
    assert meta.schema.to_arrow_schema().metadata[b"oklasim.run"].decode() == result.spec.run_id
    assert meta.row_group(0).column(0).compression == "ZSTD"
    schema = pl.read_parquet_schema(storage.shard_path(tmp_path / "r", "hands", 0))
    assert schema["knock_limit"] == pl.Int8 and schema["points"] == pl.Int32


def test_resume_finishes_only_the_missing_shards(tmp_path):
    full = run(spec(), tmp_path / "full", workers=1, progress=False)
    partial = tmp_path / "partial"
    run(spec(), partial, workers=1, progress=False)
    for shard in (1, 3):  # as if the run had stopped before these
        storage.shard_path(partial, "hands", shard).unlink()
    before = storage.shard_path(partial, "hands", 0).stat().st_mtime_ns
    resumed = run(spec(), partial, workers=2, resume=True, progress=False)
    assert storage.shard_path(partial, "hands", 0).stat().st_mtime_ns == before  # kept, not replayed
    assert resumed.hands.sort(SORT).equals(full.hands.sort(SORT))
    assert resumed.games.sort("game").equals(full.games.sort("game"))


@pytest.mark.slow
def test_killed_run_resumes_to_the_same_result(tmp_path):
    out = tmp_path / "killed"
    command = [sys.executable, "-m", "oklasim.cli", "simulate", "--strategies", "simple,greedy", "--games", "40000",
               "--shard-size", "1000", "--seed", "3", "--workers", "2", "--out", str(out)]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def shards() -> int:
        return len(list((out / "hands").glob("part-*.parquet")))

    # Killed as soon as 3 of the 40 shards are seen written, seconds of work before the end; the timeout is a safety
    # net for a first run (the workers compile the kernels first) on a slow machine.
    assert wait_for(lambda: shards() >= 3 or process.poll() is not None, 900, step=0.01)
    process.send_signal(signal.SIGKILL)
    process.wait()
    assert 3 <= shards() < 40
    assert not list(out.rglob("*.tmp")) or all(p.name.startswith(".") for p in out.rglob("*.tmp"))
    subprocess.run(command + ["--resume"], check=True, stdout=subprocess.DEVNULL)
    whole = run(RunSpec.create(Rules(), ["simple", "greedy"], games=40000, seed=3, shard_size=1000), None,
                workers=2, progress=False)
    resumed = storage.read(out, "hands").sort(SORT)
    assert resumed.equals(whole.hands.sort(SORT))


def test_refuses_to_overwrite_or_mix_runs(tmp_path):
    run(spec(), tmp_path / "r", workers=1, progress=False)
    with pytest.raises(ValueError, match="already holds a run"):
        run(spec(), tmp_path / "r", workers=1, progress=False)
    with pytest.raises(ValueError, match="holds a different run"):
        run(spec(seed=6), tmp_path / "r", workers=1, resume=True, progress=False)
    overwritten = run(spec(seed=6), tmp_path / "r", workers=1, overwrite=True, progress=False)
    assert storage.read_manifest(tmp_path / "r")["spec"]["seed"] == 6 and overwritten.games.height == 120


def test_foreign_or_corrupt_parquet_on_resume(tmp_path):
    out = tmp_path / "r"
    run(spec(), out, workers=1, progress=False)
    other = tmp_path / "other"
    run(spec(seed=9), other, workers=1, progress=False)
    storage.shard_path(out, "hands", 2).write_bytes(storage.shard_path(other, "hands", 2).read_bytes())
    with pytest.raises(ValueError, match="belongs to another run"):
        run(spec(), out, workers=1, resume=True, progress=False)
    storage.shard_path(out, "hands", 2).write_bytes(b"not parquet at all")
    with pytest.raises(ValueError, match="not a readable parquet file"):
        run(spec(), out, workers=1, resume=True, progress=False)


@pytest.mark.parametrize(
    "args, message",
    [
        (["--strategies", "nosuch", "--games", "5"], "unknown strategy 'nosuch'"),
        (["--strategies", "random", "--param", "colour=3", "--games", "5"], "has a parameter 'colour'"),
        (["--strategies", "random(knock_probability=3)", "--games", "5"], "outside 0..1"),
        (["--rules", "nosuch", "--games", "5"], "neither a preset"),
        (["--games", "5", "--hands", "5"], "exactly one of"),
        (["--games", "0"], "at least 1"),
        (["--games", "5", "--seed", "-1"], "non-negative"),
        (["--games", "5", "--resume"], "need --out"),
        (["--games", "5", "--workers", "0"], "at least 1"),
    ],
)
def test_bad_input_is_one_line_and_nonzero(args, message):
    result = cli("simulate", *args)
    assert result.exit_code != 0
    assert message in result.output and "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_unwritable_output(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    result = cli("simulate", "--games", "5", "--out", str(blocker))
    assert result.exit_code != 0 and "Traceback" not in result.output


def test_bad_rules_file(tmp_path):
    path = tmp_path / "rules.toml"
    path.write_text("[rules]\nundercut_bonus = -3\n")
    result = cli("simulate", "--games", "5", "--rules", str(path))
    assert result.exit_code != 0 and "undercut_bonus=-3 is outside its range 0 to" in result.output


def test_simulate_runs_and_show_summarise(tmp_path):
    out = tmp_path / "runs" / "small"
    result = cli("simulate", "--strategies", "simple,greedy", "--games", "200", "--seed", "1", "--out", str(out), "--workers", "1")
    assert result.exit_code == 0, result.output
    assert "games won" in result.output and "written to" in result.output
    listed = cli("runs", str(tmp_path / "runs"))
    assert "small" in listed.output and "complete" in listed.output
    shown = cli("show", str(out))
    assert shown.exit_code == 0 and "simple" in shown.output and "outcomes:" in shown.output


def test_any_executor_plays_the_same_run():
    """The caller's own executor (here threads) plays the same records as in-process play."""
    from concurrent.futures import ThreadPoolExecutor

    spec = RunSpec.create(Rules(), ["simple", "greedy"], games=600, seed=11, shard_size=200)
    alone = run(spec, workers=1, progress=False)
    with ThreadPoolExecutor(max_workers=2) as threads:
        shared = run(spec, executor=threads, progress=False)
    assert shared.hands.sort(["game", "hand"]).equals(alone.hands.sort(["game", "hand"]))
