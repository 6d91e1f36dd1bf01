"""Batch runs at scale: shards on any ``concurrent.futures.Executor``, parquet out, resume.

A run is a ``RunSpec`` (rules, strategies, hands or games, seed) cut into
shards of consecutive game numbers. Game ``g`` always draws from the stream
``(stream_key(seed), g)``, so a shard's result does not depend on which
worker plays it, on how many workers there are, or on the backend (a local
process pool or a Dask cluster): the same seed gives the same records.

>>> spec = RunSpec.create(Rules(), ["simple", "greedy"], games=30, seed=1, shard_size=10)
>>> result = run(spec, workers=1, progress=False)
>>> result.games.height, spec.n_shards
(30, 3)
"""

from __future__ import annotations

import functools
import hashlib
import os
import resource
import socket
import time
import warnings
from collections.abc import Sequence
from concurrent.futures import FIRST_COMPLETED, BrokenExecutor, Executor, Future, wait
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import polars as pl

from oklasim import __version__
from oklasim._kernels import SOURCE_HASH
from oklasim.errors import OklasimError
from oklasim.game.rules import Rules
from oklasim.runs import storage
from oklasim.runs.backends import SECONDS_PER_UNIT, SerialExecutor, core_time, log, make_executor
from oklasim.runs.keys import result_key
from oklasim.sim.engine import (
    HANDS_PER_GAME,
    games_frame,
    hands_frame,
    kernel_rules,
    play_count,
    resolve_all,
    run_kernel,
    stream_key,
)
from oklasim.strategies.registry import Strategy, with_overrides

# Shards: at least ~16 per run so every core gets work and progress moves, but
# no bigger than a few seconds of play, which bounds memory; never below the
# size where per-task overhead (about 0.1 s) starts to show.
SHARD_LIMITS = {"games": (1_000, 20_000), "hands": (10_000, 200_000)}
SHARDS_WANTED = 16
# The largest run: 10^10 games are about 12 core-days of play with the simplest strategies (expert: about two
# core-months). Beyond it a typo is likelier than a plan.
MAX_COUNT = 10**10
# Runs without a folder keep every hand record in memory (about 100 bytes each, more while matches combine
# seatings): at most this many hands, about 1 GB.
MAX_IN_MEMORY_HANDS = 10_000_000
# Shards submitted at once: enough to keep ~1,000 workers busy, few enough to keep the driver's memory flat.
MAX_IN_FLIGHT = 1024
WAKE_SECONDS = 0.25  # how often the driver wakes while it waits for shards (see play_shards)


def default_shard_size(mode: str, count: int) -> int:
    low, high = SHARD_LIMITS[mode]
    return max(low, min(high, -(-count // SHARDS_WANTED)))


@dataclass(frozen=True)
class RunSpec:
    """Everything that determines a run's results (and nothing that does not, like the worker count)."""

    rules: dict[str, Any]
    strategies: tuple[str, ...]  # canonical specs: every parameter spelled out
    strategy_paths: tuple[str, ...]
    mode: str  # "games" or "hands"
    count: int
    seed: int
    shard_size: int
    strategy_sources: tuple[str, ...] = field(default=())
    labels: tuple[str, ...] = field(default=())  # the names as the user wrote them

    @classmethod
    def create(
        cls,
        rules: Rules | str | None,
        strategies: str | Sequence[str | Strategy],
        games: int | None = None,
        hands: int | None = None,
        seed: int = 0,
        shard_size: int | None = None,
        strategy_paths: Sequence[str] = (),
    ) -> RunSpec:
        rules = Rules.of(rules)
        mode, count = play_count(hands, games)
        if count > MAX_COUNT:
            raise OklasimError(f"--{mode} {count:,} is {core_time(count * SECONDS_PER_UNIT[mode])} of play with the "
                               f"simplest strategies, over the limit of {MAX_COUNT:,} per run; split it into runs "
                               "with different seeds")
        stream_key(seed)  # validates the seed
        size = default_shard_size(mode, count) if shard_size is None else shard_size
        if isinstance(size, bool) or not isinstance(size, int) or size < 1:
            raise OklasimError(f"shard size must be a whole number of at least 1, got {size!r}")
        paths = tuple(str(Path(p).resolve()) for p in strategy_paths)
        seats = resolve_all(strategies, rules.players, paths)
        return cls(
            rules=rules.to_dict(),
            strategies=tuple(s.canonical() for s in seats),
            strategy_paths=paths,
            mode=mode,
            count=count,
            seed=int(seed),
            shard_size=size,
            strategy_sources=tuple(_file_hash(s.source) for s in seats),
            labels=tuple(s.name for s in seats),
        )

    @property
    def n_shards(self) -> int:
        return -(-self.count // self.shard_size)

    def shard(self, index: int) -> tuple[int, int]:
        """(first game, number of games) of shard ``index``: computed, never listed, so a plan costs nothing."""
        first = index * self.shard_size
        return first, min(self.shard_size, self.count - first)

    @property
    def hands_estimate(self) -> int:
        return self.count * (1 if self.mode == "hands" or self.rules_object().single_hand else HANDS_PER_GAME)

    @functools.cached_property
    def run_id(self) -> str:
        # Made of the strategies by number (``Strategy.key``), as they were spelled before choice parameters had
        # names: a run keeps its id, its shards and its resumption across that change.
        with warnings.catch_warnings():  # an old manifest's numbers for a choice are no user's writing
            warnings.simplefilter("ignore", FutureWarning)
            try:
                keys = [seat.key() for seat in self.seats()]
            except OklasimError:  # a family no longer found: its spelling as stored
                keys = list(self.strategies)
        return result_key(asdict(self) | {"strategies": keys})

    def rules_object(self) -> Rules:
        return Rules.from_dict(self.rules)

    def seats(self) -> tuple[Strategy, ...]:
        return resolve_all(list(self.strategies), self.rules_object().players, self.strategy_paths)

    def differences(self, other: RunSpec) -> list[str]:
        """Where this spec differs from the run's spec ``other``, by the options of ``oklasim simulate`` that set it."""
        rules = sorted(k for k in self.rules if self.rules[k] != other.rules.get(k))
        options = {
            "--rules/--players": (", ".join(f"{k}={self.rules[k]}" for k in rules),
                                  ", ".join(f"{k}={other.rules.get(k)}" for k in rules)),
            "--strategies/--param": ((",".join(self.labels), ",".join(other.labels)) if self.labels != other.labels
                                     else (",".join(self.strategies), ",".join(other.strategies))),
            "--games/--hands": (f"{self.count:,} {self.mode}", f"{other.count:,} {other.mode}"),
            "--seed": (self.seed, other.seed),
            "--shard-size": (self.shard_size, other.shard_size),
            "--strategy-path": (",".join(self.strategy_paths) or "none", ",".join(other.strategy_paths) or "none"),
        }
        return [f"{option} {mine} (the run's: {theirs})" for option, (mine, theirs) in options.items()
                if mine != theirs]

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["run_id"] = self.run_id
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RunSpec:
        fields = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        for key in ("strategies", "strategy_paths", "strategy_sources", "labels"):
            fields[key] = tuple(fields.get(key, ()))
        return cls(**fields)


def stored_spec(run_dir: str | Path, rules: Rules | None = None, players: int | None = None,
                strategies: Sequence[str] | None = None, overrides: dict[str, float] | None = None,
                games: int | None = None, hands: int | None = None, seed: int | None = None,
                shard_size: int | None = None, strategy_paths: Sequence[str] = ()) -> RunSpec:
    """The spec of the run in ``run_dir``: what is not given is read from its manifest, what is given must agree
    with it (an error names each option that does not), and its strategies must still play as they did."""
    manifest = storage.read_manifest(Path(run_dir))
    check_same_code(manifest, Path(run_dir))
    kept = RunSpec.from_json(manifest["spec"])

    def made(rules, strategies, overrides, counted, seed, shard_size, paths) -> RunSpec:
        spec = RunSpec.create(rules, with_overrides(list(strategies), overrides, paths), **counted, seed=seed,
                              shard_size=shard_size, strategy_paths=paths)
        return replace(spec, labels=kept.labels) if spec.strategies == kept.strategies else spec

    now = made(kept.rules_object(), kept.labels, {}, {kept.mode: kept.count}, kept.seed, kept.shard_size,
               kept.strategy_paths)
    if now.run_id != kept.run_id:
        raise OklasimError(f"the strategies of {run_dir} play differently now ({', '.join(now.labels)}: their files "
                           "or families changed since the run): its games cannot be played again as they were "
                           "(simulate --overwrite plays it anew)")
    rules = (rules or now.rules_object()).replace(**({"players": players} if players else {}))
    given = {"games": games, "hands": hands} if games is not None or hands is not None else {now.mode: now.count}
    spec = made(rules, strategies or now.labels, overrides or {}, given, now.seed if seed is None else seed,
                now.shard_size if shard_size is None else shard_size, tuple(strategy_paths) or now.strategy_paths)
    differ = spec.differences(now)
    if differ:
        raise OklasimError(f"{run_dir} holds a run with other {'; '.join(differ)}: leave these out to use the "
                           "run's (or give another --out for a new run)")
    return spec


def _file_hash(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]


def play_shard(spec: RunSpec, shard: int, run_dir: str | None) -> tuple[int, Any, float]:
    """Play one shard (in a worker). Writes parquet when ``run_dir`` is given, else returns the frames.

    Returns (hands written, frames or None, the worker's peak memory in MB so far).
    """
    rules = spec.rules_object()
    first, count = spec.shard(shard)
    hands_only = spec.mode == "hands"
    hand_records, game_records, _ = run_kernel(kernel_rules(rules, hands_only), spec.seats(), spec.seed, first, count)
    hands = hands_frame(hand_records, rules.players)
    games = None if hands_only else games_frame(game_records, rules.players)
    frames = None
    if run_dir is None:
        frames = (hands, games)
    else:
        if games is not None:  # games first: a shard counts as done once its hands file exists
            storage.write_shard(Path(run_dir), "games", shard, games, spec.run_id)
        storage.write_shard(Path(run_dir), "hands", shard, hands, spec.run_id)
    return hands.height, frames, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


@dataclass
class RunResult:
    spec: RunSpec
    run_dir: Path | None
    hands_frames: list[pl.DataFrame]
    games_frames: list[pl.DataFrame]
    seconds: float
    peak_worker_mb: float

    @property
    def hands(self) -> pl.DataFrame:
        if self.run_dir is not None:
            return storage.read(self.run_dir, "hands")
        return pl.concat(self.hands_frames)

    @property
    def games(self) -> pl.DataFrame | None:
        if self.spec.mode == "hands":
            return None
        if self.run_dir is not None:
            return storage.read(self.run_dir, "games")
        return pl.concat(self.games_frames)


def prepare_run_dir(spec: RunSpec, run_dir: Path, resume: bool, overwrite: bool) -> set[int]:
    """Check the output folder and return the shards already finished (for --resume)."""
    if run_dir.exists() and not run_dir.is_dir():
        raise OklasimError(f"{run_dir} exists and is not a folder")
    exists = (run_dir / storage.MANIFEST).exists()
    if exists and not (resume or overwrite):
        raise OklasimError(f"{run_dir} already holds a run; add --resume to finish it or --overwrite to replace it")
    if not exists and run_dir.exists() and any(run_dir.iterdir()) and not overwrite:
        raise OklasimError(f"{run_dir} is not empty and holds no oklasim run; choose another --out")
    if overwrite and exists:
        for kind in storage.KINDS:
            for part in (run_dir / kind).glob("part-*.parquet"):
                part.unlink()
        return set()
    if not (resume and exists):
        return set()
    old = storage.read_manifest(run_dir)
    if old["spec"]["run_id"] != spec.run_id:
        raise OklasimError(
            f"{run_dir} holds a different run (other rules, strategies, seed or size); "
            "resume with the same arguments, or use --overwrite"
        )
    check_same_code(old, run_dir)
    hands = set(storage.shard_files(run_dir, "hands"))
    games = set(storage.shard_files(run_dir, "games")) if spec.mode == "games" else hands
    for kind in storage.KINDS if spec.mode == "games" else ("hands",):
        storage.checked_shards(run_dir, kind, {**old, "status": "running"})  # foreign or unreadable files
    return hands & games


def written_by_this_code(manifest: dict[str, Any]) -> bool:
    """Whether a run's records came from this oklasim version and these kernel sources."""
    return manifest.get("source_hash") == SOURCE_HASH and manifest.get("version") == __version__


def check_same_code(manifest: dict[str, Any], run_dir: Path) -> None:
    """Shards of older kernel code or another version must not be mixed with this one's."""
    if not written_by_this_code(manifest):
        raise OklasimError(
            f"{run_dir} was written by oklasim {manifest.get('version', '?')} with other kernel code; its "
            "records would not match this version's: replay it with --overwrite (or use that version)"
        )


def run_manifest(spec: RunSpec, done: int, status: str, seconds: float, hands: int, executor_name: str, peak_mb=0.0):
    return {
        "spec": spec.to_json(),
        "version": __version__,
        "source_hash": SOURCE_HASH,
        "stream_key": stream_key(spec.seed),
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "status": status,
        "shards_done": done,
        "shards_total": spec.n_shards,
        "hands_written": hands,
        "seconds": round(seconds, 3),
        "backend": executor_name,
        "peak_worker_mb": round(peak_mb, 1),
        "driver": {"host": socket.gethostname(), "pid": os.getpid()},  # tells a killed run from a running one
    }


def run(
    spec: RunSpec,
    run_dir: str | Path | None = None,
    workers: int | None = 1,
    resume: bool = False,
    overwrite: bool = False,
    progress: bool = True,
    scheduler: str | None = None,
    dask_local: int | None = None,
    executor: Executor | None = None,
) -> RunResult:
    """Play every shard of ``spec`` not yet done; write to ``run_dir`` or keep the frames in memory.

    ``workers=None`` picks in-process play for small runs and every core otherwise. ``executor``: play the shards
    on this ``concurrent.futures.Executor`` instead (the caller's: started and shut down by it; for a process
    pool, one whose workers can import oklasim and the strategy files).
    """
    out = Path(run_dir) if run_dir is not None else None
    if out is None and spec.hands_estimate > MAX_IN_MEMORY_HANDS:
        raise OklasimError(
            f"{spec.count:,} {spec.mode} kept in memory would take about {spec.hands_estimate * 100 / 1e9:,.0f} GB "
            f"(the limit is {MAX_IN_MEMORY_HANDS:,} hands); play fewer, or write them to a folder "
            "(simulate --out)"
        )
    done = prepare_run_dir(spec, out, resume, overwrite) if out is not None else set()
    started = time.perf_counter()
    backend = make_executor(spec, workers, scheduler, dask_local, executor)
    log.info("run %s: %d of %d shards to play on %s%s", spec.run_id[:12], spec.n_shards - len(done), spec.n_shards,
             backend.name, f", {len(done)} kept from before" if done else "")
    hands_written = sum(storage.shard_rows(out, "hands", s, spec.run_id) or 0 for s in done) if out else 0
    if out is not None:
        storage.write_manifest(out, run_manifest(spec, len(done), "running", 0.0, hands_written, backend.name))
    frames: dict[int, tuple] = {}
    peak_mb = 0.0
    bar = progress_bar(spec, done, progress)
    status = "interrupted"
    try:
        target = str(out) if out is not None else None
        todo = (shard for shard in range(spec.n_shards) if shard not in done)  # lazily: the plan may be huge
        for shard, (hands, shard_frames, peak) in play_shards(backend.executor, spec, todo, target):
            hands_written += hands
            frames[shard] = shard_frames
            peak_mb = max(peak_mb, peak)
            done.add(shard)
            bar.update(spec.shard(shard)[1])
            log.debug("shard %d done: %d hands", shard, hands)
        status = "complete"
    except BaseException:
        backend.abandon()  # a pool that saw an interrupt or a crash is killed, not reused
        raise
    finally:
        bar.close()
        backend.close()
        seconds = time.perf_counter() - started
        log.info("run %s %s after %.1f s: %d of %d shards done", spec.run_id[:12], status, seconds, len(done),
                 spec.n_shards)
        if out is not None:
            storage.write_manifest(out, run_manifest(spec, len(done), status, seconds, hands_written, backend.name,
                                                  peak_mb))
    ordered = [frames[s] for s in sorted(frames)]
    return RunResult(
        spec,
        out,
        [f[0] for f in ordered if f is not None],
        [f[1] for f in ordered if f is not None and f[1] is not None],
        seconds,
        peak_mb,
    )


def play_shards(executor: Executor, spec: RunSpec, todo, target: str | None, player=None):
    """Yield (shard, ``player(spec, shard, target)``) as shards finish (``play_shard`` unless told), keeping at most
    MAX_IN_FLIGHT submitted (in-process: one, so each shard counts as done, for the progress bar and the manifest,
    as soon as it is played)."""
    player = player or play_shard
    in_flight = 1 if isinstance(executor, SerialExecutor) else MAX_IN_FLIGHT
    pending: dict[Future, int] = {}
    while True:
        for shard in todo:
            pending[executor.submit(player, spec, shard, target)] = shard
            if len(pending) >= in_flight:
                break
        if not pending:
            return
        # A timeout, so the main thread wakes to run a signal handler: Ctrl-C may be delivered to another thread.
        finished, _ = wait(pending, timeout=WAKE_SECONDS, return_when=FIRST_COMPLETED)
        for future in finished:
            try:
                result = future.result()
            except BrokenExecutor:
                raise OklasimError("a worker process died (killed, or out of memory); what was finished is kept: "
                                   "rerun with --resume") from None
            yield pending.pop(future), result


def progress_bar(spec: RunSpec, done: set[int], enabled: bool):
    """A tqdm bar in games (or hands) per second with ETA; silent when not on a terminal."""
    from tqdm import tqdm

    initial = sum(spec.shard(s)[1] for s in done)
    return tqdm(
        total=spec.count,
        initial=initial,
        unit=" " + spec.mode,
        unit_scale=True,
        disable=None if enabled else True,  # None: only on a terminal
        smoothing=0.1,
        dynamic_ncols=True,
    )
