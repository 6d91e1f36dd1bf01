"""Fault injection: kill -9, SIGTERM and Ctrl-C at random moments of simulate, match, tournament and run;
then resume, compare with an uninterrupted run, and check that no process of the command is left.

The moments are drawn from a seeded generator, so a failure names a moment that can be replayed.
"""

import random
import signal
import subprocess
import sys
import time

import pytest
from processes import OKLASIM, session_pids, signal_and_collect, start, wait_for

from oklasim.game.rules import Rules
from oklasim.runs import storage
from oklasim.runs.batch import RunSpec, run

pytestmark = pytest.mark.slow

SIGNALS = {"kill -9": (signal.SIGKILL, False), "SIGTERM": (signal.SIGTERM, False), "Ctrl-C": (signal.SIGINT, True)}
SORT = ["game", "hand"]
GAMES = 16_000
SIMULATE = ["simulate", "--strategies", "simple,greedy", "--games", str(GAMES), "--shard-size", "1000", "--seed", "3",
            "--workers", "2"]
STUDY = '[study]\nkind = "upcard_effects"\nseed = 4\nhands = 60000\nquick_hands = 12000\n'


def pool_started(process) -> bool:
    """The driver, the forkserver, the resource tracker and two workers are up (or the command ended)."""
    return process.poll() is not None or len(session_pids(process.pid)) >= 5


def interrupt(process, how: str, moment: float, started=pool_started):
    """Signal ``process`` ``moment`` seconds after ``started``; return (exit code, stderr); assert nothing is left."""
    # A safety net: on a first run the driver compiles the kernels before it starts the pool.
    assert wait_for(lambda: started(process), 900), "the command did not start"
    time.sleep(moment)
    sig, group = SIGNALS[how]
    code, err, left = signal_and_collect(process, sig, group)
    assert not left, f"{how} at {moment:.2f} s left processes {sorted(left)}"
    if code not in (0, -signal.SIGKILL):  # 0: it finished first
        assert code == 130 and len(err.strip().splitlines()) == 1 and "interrupted" in err, (code, err)
    return code, err


@pytest.fixture(scope="module")
def reference():
    spec = RunSpec.create(Rules(), ["simple", "greedy"], games=GAMES, seed=3, shard_size=1000)
    return run(spec, None, workers=1, progress=False).hands.sort(SORT)


@pytest.mark.parametrize("how", SIGNALS)
def test_simulate_interrupted_resumes_to_the_same_result(tmp_path, reference, how):
    moment = random.Random(how).uniform(0.0, 2.0)
    out = tmp_path / "run"
    code, _ = interrupt(start(*SIMULATE, "--out", str(out)), how, moment)
    if code != 0:
        shown = subprocess.run([*OKLASIM, "show", str(out)], capture_output=True, text=True)
        # not "running" once the driver is gone; "complete" when the signal landed after the last write
        assert ": interrupted," in shown.stdout or ": complete," in shown.stdout, shown.stdout + shown.stderr
    subprocess.run([*OKLASIM, *SIMULATE, "--out", str(out), "--resume"], check=True, capture_output=True)
    assert storage.read_manifest(out)["status"] == "complete"
    assert storage.read(out, "hands").sort(SORT).equals(reference)


# Known gap: a Ctrl-C in the first fraction of a second of the pool's start can still reach a helper
# process while its interpreter starts, which then prints a traceback after the driver's one line.
@pytest.mark.xfail(reason="helper start-up race (see comment)", strict=False)
@pytest.mark.parametrize("seed", [1, 2])
def test_ctrl_c_while_the_workers_start_is_one_line(tmp_path, seed):
    """From the manifest's first write (just before the pool starts) through the workers' start-up."""
    moment = random.Random(seed).uniform(0.0, 1.5)
    out = tmp_path / "run"
    interrupt(start(*SIMULATE, "--out", str(out)), "Ctrl-C", moment,
              started=lambda p: p.poll() is not None or (out / storage.MANIFEST).exists())


@pytest.mark.parametrize("how", ["Ctrl-C", "SIGTERM"])
def test_match_stops_at_once(how):
    moment = random.Random(how).uniform(0.5, 2.0)
    process = start("match", "simple", "greedy", "--hands", "5000000", "--workers", "2")
    interrupt(process, how, moment)


def test_tournament_stops_at_once():
    process = start("tournament", "simple", "greedy", "asap", "--hands", "3000000", "--workers", "2")
    interrupt(process, "Ctrl-C", random.Random(7).uniform(0.5, 2.0))


@pytest.mark.parametrize("how", ["kill -9"])
def test_study_interrupted_finishes_to_the_same_report(tmp_path, how):
    experiment = tmp_path / "faulty.toml"
    experiment.write_text(STUDY)

    def study(root: str) -> list[str]:
        return ["run", str(experiment), "--quick", "--workers", "2", "--runs", str(tmp_path / root / "runs"),
                "--reports", str(tmp_path / root / "reports")]

    interrupt(start(*study("cut")), how, random.Random(how).uniform(0.0, 3.0))
    subprocess.run([*OKLASIM, *study("cut")], check=True, capture_output=True)
    subprocess.run([*OKLASIM, *study("whole")], check=True, capture_output=True)
    cut, whole = tmp_path / "cut" / "reports" / "faulty-quick", tmp_path / "whole" / "reports" / "faulty-quick"
    tables = sorted(p.name for p in whole.glob("*.csv"))
    assert tables and tables == sorted(p.name for p in cut.glob("*.csv"))
    for name in tables:
        assert (cut / name).read_bytes() == (whole / name).read_bytes(), name


def test_ctrl_c_under_dask_is_one_line(tmp_path):
    process = start(*SIMULATE[:-2], "--dask-local", "2", "--out", str(tmp_path / "run"))
    interrupt(process, "Ctrl-C", 1.0, started=lambda p: p.poll() is not None or (tmp_path / "run").exists())


@pytest.mark.parametrize("how", ["SIGTERM", "Ctrl-C"])
def test_a_signal_after_the_work_is_done_does_not_kill_the_exit_silently(how):
    """A signal landing while the interpreter exits, everything written: the command ends as it would have (its
    output whole, its own status), never killed by the signal without a word. The signal comes from the last exit
    handler, once the command's work is done: the moment the earlier code let the default kill land."""
    sig = SIGNALS[how][0]
    code = ("import atexit, os, sys, time; from oklasim.cli import run; "
            f"atexit.register(lambda: (os.kill(os.getpid(), {int(sig)}), time.sleep(0.2))); "
            "sys.argv = ['oklasim', 'rules', '--list']; run()")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stderr) == (0, "") and "pagat" in done.stdout
