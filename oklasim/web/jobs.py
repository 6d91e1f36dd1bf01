"""``simulate`` runs started from a page: the command itself in a child process, watched and cancellable.

The run is ``oklasim simulate ... --out RUNS/NAME`` in its own session, so it plays, writes and stops exactly as
on the command line: cancelling sends it SIGTERM, which the command turns into an interrupt that kills its
worker pool and marks its manifest "interrupted" (``oklasim.runs.lifetime``); its workers die with it in any
case (``PR_SET_PDEATHSIG``), and what is left of its session is killed after a bounded wait. Progress is the
run's finished shards against its plan.
"""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from oklasim.game.rules import PRESETS, Rules
from oklasim.web.safety import Refused, bounded_int, inside, new_name

MAX_GAMES = 100_000  # small bounded runs: minutes on two cores at most; bigger ones belong on the command line
MAX_HANDS = 1_000_000
STOP_SECONDS = 10.0  # how long a cancelled run may take to stop before its session is killed
MAX_JOBS = 100


@dataclass
class Job:
    id: str
    name: str
    out: Path
    command: list[str]
    count: int
    mode: str
    shards: int
    process: subprocess.Popen
    log: Path
    started: float = field(default_factory=time.time)
    cancelled: bool = False

    def state(self) -> dict:
        from oklasim.runs import storage

        code = self.process.poll()
        done = len(storage.shard_files(self.out, "hands")) if (self.out / "hands").is_dir() else 0
        status = ("running" if code is None else "cancelled" if self.cancelled
                  else "complete" if code == 0 else "failed")
        out = {"id": self.id, "name": self.name, "status": status, "shards_done": done, "shards": self.shards,
               "progress": round(done / self.shards, 4) if self.shards else 0.0, "count": self.count,
               "mode": self.mode, "seconds": round(time.time() - self.started, 1), "pid": self.process.pid,
               "command": " ".join(["oklasim", *self.command[3:]])}  # the same run from the command line
        if code is not None:
            lines = [line for line in self.log.read_text(errors="replace").splitlines() if line.strip()]
            out["output"] = lines[-20:]
        return out


class Jobs:
    """The runs this server started."""

    def __init__(self, runs_root: Path):
        self.runs_root = runs_root
        self.jobs: dict[str, Job] = {}
        self.lock = threading.Lock()

    def start(self, sent: dict) -> Job:
        """A ``simulate`` of the page's fields (name, rules preset, strategies, games or hands, seed, workers)."""
        from oklasim.runs.batch import RunSpec
        from oklasim.strategies.registry import split_strategies

        if not isinstance(sent, dict):
            raise Refused(400, "send the run's fields as a JSON object")
        name = new_name(sent.get("name", ""), "run name")
        preset = sent.get("rules") or "seeds"
        if preset not in PRESETS:
            raise Refused(400, f"unknown rules preset {preset!r}; choose from {', '.join(PRESETS)}")
        mode = sent.get("mode") or "games"
        if mode not in ("games", "hands"):
            raise Refused(400, f"mode {mode!r}: games or hands")
        count = bounded_int(sent.get("count", ""), mode, 1, MAX_GAMES if mode == "games" else MAX_HANDS)
        seed = bounded_int(sent.get("seed") or 0, "seed", 0, 2**31 - 1)
        workers = bounded_int(sent.get("workers") or 1, "workers", 1, os.cpu_count() or 1)
        strategies = str(sent.get("strategies") or "simple,simple")
        spec = RunSpec.create(Rules.preset(preset), split_strategies(strategies), seed=seed, **{mode: count})
        self.runs_root.mkdir(parents=True, exist_ok=True)
        out = inside(self.runs_root, name)
        if out.exists():
            raise Refused(409, f"{name} exists under the runs folder; choose another name")
        with self.lock:
            if sum(j.process.poll() is None for j in self.jobs.values()) >= 1:
                raise Refused(409, "a run is going on: wait for it or cancel it (one at a time on this machine)")
            if len(self.jobs) >= MAX_JOBS:
                raise Refused(409, f"this server has started {MAX_JOBS} runs; restart it to start more")
            command = [sys.executable, "-m", "oklasim.cli", "simulate", "--rules", preset, "--strategies", strategies,
                       f"--{mode}", str(count), "--seed", str(seed), "--workers", str(workers), "--out", str(out)]
            log = self.runs_root / f".{name}.web.log"
            with open(log, "w") as sink:
                process = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                           start_new_session=True)
            job = Job(secrets.token_hex(8), name, out, command, count, mode, spec.n_shards, process, log)
            self.jobs[job.id] = job
        return job

    def get(self, job_id: str) -> Job:
        job = self.jobs.get(job_id) if isinstance(job_id, str) else None
        if job is None:
            raise Refused(404, f"no run {job_id!r} started here")
        return job

    def cancel(self, job_id: str) -> Job:
        job = self.get(job_id)
        if job.process.poll() is None:
            job.cancelled = True
            stop(job.process)
        return job

    def stop_all(self) -> None:
        """At the server's shutdown: no run outlives it."""
        for job_id in list(self.jobs):
            self.cancel(job_id)


def stop(process: subprocess.Popen) -> None:
    """SIGTERM (the command stops its pool and marks its run), then whatever is left of its session is killed."""
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(STOP_SECONDS)
    except subprocess.TimeoutExpired:
        pass
    try:
        os.killpg(process.pid, signal.SIGKILL)  # its session: the forkserver, the resource tracker, any worker
    except (ProcessLookupError, PermissionError):
        pass
    process.wait()
