"""Decision datasets: every decision of every seat of a ``simulate`` run, as the research environment encodes it.

``oklasim dataset --strategies expert,search --hands N --out DIR`` (or ``export``
from Python) plays the run ``oklasim simulate`` plays with the same seed, rules
and strategies (game ``g`` of seed ``s`` is the same game: the same deals, the
same play) and writes one parquet row per decision of every seat. Needs
neither gymnasium nor pettingzoo.

A dataset folder is a run folder (``oklasim show DIR`` summarises it)::

    DIR/manifest.json                    the spec (rules, strategies with every parameter, seed, the encoding's
                                         version and sizes), the oklasim version and kernel hash, the progress
    DIR/decisions/part-00012.parquet      the decisions of shard 12
    DIR/hands/part-00012.parquet          its hand records, as simulate writes them
    DIR/games/part-00012.parquet          its game records (--games only)

Columns of ``decisions`` (one row per decision, in play order):

| column | type | meaning |
|---|---|---|
| ``game`` | int64 | the game's number in the run (``--hands``: the hand's) |
| ``hand`` | int32 | the hand's number in its game, from 0 (the ``hand`` of the hands table) |
| ``step`` | int32 | the decision's number in its hand, every seat counted, from 0 |
| ``seat`` | int8 | the seat asked |
| ``kind`` | int8 | the decision (``layout.D_*``): 0 take the upcard, 1 draw, 2 knock, 3 discard, 4 arrange |
| ``action`` | int16 | the action the seat's strategy took (``oklasim.env`` action ids, 0..142) |
| ``obs`` | fixed_size_binary[938] | the seat's observation, int8 bytes exactly as ``env_nb.encode_nb`` writes it |
| ``mask`` | fixed_size_binary[143] | the legal actions, int8 bytes (1 legal) as ``env_nb.mask_nb`` writes them |
| ``points`` | int32 | the seat's points of the hand, once it ended |
| ``reward`` | float32 | those points less the mean of the other seats' (a hand episode's reward in ``oklasim.env``) |
| ``game_total`` | int32 | ``--games`` only: the seat's final total of the game, bonuses in |
| ``game_winner`` | int8 | ``--games`` only: the game's winner, -1 for none |

The observation and the mask are binary columns of fixed width, not lists:
parquet writes and reads them several times faster, and they load into numpy
without a copy per row: ``matrix(frame["obs"])`` gives ``int8[rows, 938]``
(polars reads them as ``Binary``; pyarrow as ``fixed_size_binary``).
``load(DIR)`` reads a whole dataset as numpy arrays.
"""

from __future__ import annotations

import os
import resource
import tempfile
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

from oklasim._kernels import env_dataset_nb as D
from oklasim._kernels import engine_nb as E
from oklasim._kernels import env_nb as K
from oklasim._kernels import layout as L
from oklasim.errors import OklasimError
from oklasim.game.rules import Rules
from oklasim.runs import storage
from oklasim.runs.backends import log, make_executor
from oklasim.runs.batch import (
    RunSpec,
    run_manifest,
    progress_bar,
    play_shards,
    prepare_run_dir,
    stored_spec,
)
from oklasim.sim.engine import (
    games_frame,
    hands_frame,
    kernel_rules,
    play_count,
    raise_illegal,
    seat_arguments,
    stream_key,
)
from oklasim.strategies.registry import Strategy

DECISIONS = "decisions"
OBS_SIZE = K.OBS_SIZE
N_ACTIONS = K.N_ACTIONS
ENCODING_VERSION = K.ENCODING_VERSION
# A shard's observations are played and written a row group at a time, in two sets of buffers used in turn
# (one is written by a thread while the kernel fills the other): ~20 MB, whatever the shard size.
ROWS_PER_CALL = 8_192
# Shards: ~16 per run, each of ~35 decisions a hand for 2 players, so ~40 MB of parquet at most.
SHARD_LIMITS = {"games": (100, 1_000), "hands": (1_000, 10_000)}
SHARDS_WANTED = 16
# Columns written with a dictionary (small ints); the observation and the mask are not (every row differs).
DICTIONARY_COLUMNS = ["hand", "step", "seat", "kind", "action", "points", "reward", "game_total", "game_winner"]


def default_shard_size(mode: str, count: int) -> int:
    low, high = SHARD_LIMITS[mode]
    return max(low, min(high, -(-count // SHARDS_WANTED)))


@dataclass(frozen=True)
class DatasetSpec(RunSpec):
    """A run's spec (``RunSpec``: rules, strategies, count, seed, shards) and the encoding its rows are written in:
    what determines a dataset's files."""

    dataset: str = field(default=DECISIONS)
    encoding_version: int = field(default=ENCODING_VERSION)
    obs_size: int = field(default=OBS_SIZE)
    n_actions: int = field(default=N_ACTIONS)

    @classmethod
    def create(cls, rules: Rules | str | None, strategies: str | Sequence[str | Strategy], games: int | None = None,
               hands: int | None = None, seed: int = 0, shard_size: int | None = None,
               strategy_paths: Sequence[str] = ()) -> DatasetSpec:
        mode, count = play_count(hands, games)
        size = default_shard_size(mode, count) if shard_size is None else shard_size
        return super().create(rules, strategies, games=games, hands=hands, seed=seed, shard_size=size,
                              strategy_paths=strategy_paths)

    @classmethod
    def of_run(cls, spec: RunSpec) -> DatasetSpec:
        """The dataset of ``spec``'s run, in this version's encoding."""
        return cls(**{k: v for k, v in asdict(spec).items() if k in RunSpec.__dataclass_fields__})


def stored_dataset_spec(run_dir: str | Path, rules: Rules | None = None, players: int | None = None,
                        strategies: Sequence[str] | None = None, overrides: dict[str, float] | None = None,
                        games: int | None = None, hands: int | None = None, seed: int | None = None,
                        shard_size: int | None = None, strategy_paths: Sequence[str] = ()) -> DatasetSpec:
    """The spec of the dataset in ``run_dir`` (``--resume``): what is not given is read from its manifest, what is
    given must agree with it (``runs.batch.stored_spec``)."""
    manifest = storage.read_manifest(Path(run_dir))
    if manifest["spec"].get("dataset") != DECISIONS:
        raise OklasimError(f"{run_dir} holds a simulate run, not a decision dataset; give another --out "
                           "(or --overwrite to replace it)")
    return DatasetSpec.of_run(stored_spec(run_dir, rules, players, strategies, overrides, games, hands, seed,
                                          shard_size, strategy_paths))


# -- playing: the kernel's buffers, a row group at a time --------------------------------------------------------


@dataclass
class Chunk:
    """The decisions of whole games played in one kernel call (views of the caller's buffers: used before the
    next call) and the hand records of those games."""

    obs: np.ndarray
    mask: np.ndarray
    rows: np.ndarray
    hands: np.ndarray


def play_chunks(rules_array: np.ndarray, seats: Sequence[Strategy], seed: int, first_game: int, n_games: int,
                game_out: np.ndarray, rows_per_call: int = ROWS_PER_CALL) -> Iterator[Chunk]:
    """Play games ``first_game .. first_game + n_games - 1`` of ``seed`` (``game_out``: their records, filled as
    they finish), yielding their decisions a few thousand rows at a time; a game longer than the buffers grows
    them. A chunk's arrays are views of two sets of buffers used in turn: a chunk stays valid while the next one is
    played (a thread may write it meanwhile) and is overwritten by the one after."""
    key = stream_key(seed)
    deciders, params = seat_arguments(seats)
    status = np.zeros(D.DS_STATUS_SIZE, dtype=np.int64)
    sets = [buffers(rows_per_call), buffers(rows_per_call)]
    turn = 0
    while status[E.ST_GAMES] < n_games:
        obs, mask, rows, hand_out = sets[turn]
        status[E.ST_HANDS] = status[D.DS_ROWS] = 0
        before = int(status[E.ST_GAMES])
        code = D.play_decisions_nb(*deciders, params, rules_array, key, first_game, n_games, hand_out, game_out,
                                   obs, mask, rows, status)
        if code == L.E_ILLEGAL:
            raise_illegal(status, seats, seed)
        if status[E.ST_GAMES] == before:  # the next game needs more rows than the buffers hold
            sets[turn] = buffers(2 * len(obs))
            continue
        n = int(status[D.DS_ROWS])
        yield Chunk(obs[:n], mask[:n], rows[:n], hand_out[: status[E.ST_HANDS]].copy())
        turn = 1 - turn


def buffers(capacity: int) -> tuple[np.ndarray, ...]:
    """The kernel's output buffers for ``capacity`` decisions (the kernel writes every field of the rows it
    reports: no need to zero them)."""
    return (np.empty((capacity, OBS_SIZE), dtype=np.int8), np.empty((capacity, N_ACTIONS), dtype=np.int8),
            np.empty((capacity, D.N_ROW_FIELDS), dtype=np.int64),
            np.empty((L.MAX_HANDS_PER_GAME + capacity // 8, L.N_HAND_FIELDS), dtype=np.int64))


def fixed_binary(matrix_: np.ndarray) -> pa.Array:
    """The rows of a C-contiguous int8 matrix as a fixed-size binary array, without a copy."""
    rows, width = matrix_.shape
    return pa.FixedSizeBinaryArray.from_buffers(pa.binary(width), rows, [None, pa.py_buffer(matrix_)])


def decisions_table(chunk: Chunk, players: int, games_mode: bool) -> pa.Table:
    """A chunk's rows in the columns of the module's table (``obs`` and ``mask`` still views of its buffers)."""
    rows = chunk.rows
    others = rows[:, D.R_OTHERS] / (players - 1)
    columns = {
        "game": pa.array(rows[:, D.R_GAME]),
        "hand": pa.array(rows[:, D.R_HAND].astype(np.int32)),
        "step": pa.array(rows[:, D.R_STEP].astype(np.int32)),
        "seat": pa.array(rows[:, D.R_SEAT].astype(np.int8)),
        "kind": pa.array(rows[:, D.R_KIND].astype(np.int8)),
        "action": pa.array(rows[:, D.R_ACTION].astype(np.int16)),
        "obs": fixed_binary(chunk.obs),
        "mask": fixed_binary(chunk.mask),
        "points": pa.array(rows[:, D.R_POINTS].astype(np.int32)),
        "reward": pa.array((rows[:, D.R_POINTS] - others).astype(np.float32)),
    }
    if games_mode:
        columns["game_total"] = pa.array(rows[:, D.R_GAME_TOTAL].astype(np.int32))
        columns["game_winner"] = pa.array(rows[:, D.R_GAME_WINNER].astype(np.int8))
    return pa.table(columns)


class ShardWriter:
    """One shard's parquet file written a row group at a time to a temporary name, renamed into place by
    ``commit``: an interrupted shard leaves no file."""

    def __init__(self, path: Path, run_id: str):
        self.path, self.run_id = path, run_id
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, self.tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        os.close(fd)
        self.writer = None
        self.rows = 0

    def write(self, table: pa.Table) -> None:
        if self.writer is None:
            schema = table.schema.with_metadata({storage.METADATA_KEY: self.run_id.encode()})
            self.writer = pq.ParquetWriter(self.tmp, schema, compression="zstd", compression_level=1,
                                           use_dictionary=[c for c in DICTIONARY_COLUMNS if c in table.column_names])
        self.writer.write_table(table.replace_schema_metadata(self.writer.schema.metadata))
        self.rows += table.num_rows

    def commit(self) -> None:
        self.writer.close()
        with open(self.tmp, "rb") as handle:
            os.fsync(handle.fileno())
        os.replace(self.tmp, self.path)

    def discard(self) -> None:
        if self.writer is not None:
            self.writer.close()
        Path(self.tmp).unlink(missing_ok=True)


def play_dataset_shard(spec: DatasetSpec, shard: int, run_dir: str) -> tuple[int, int, float]:
    """Play one shard (in a worker) and write its decisions, hands and games. Returns (hands, decisions, the
    worker's peak memory in MB so far)."""
    rules = spec.rules_object()
    first, count = spec.shard(shard)
    games_mode = spec.mode == "games"
    game_out = np.empty((count, L.N_GAME_FIELDS), dtype=np.int64)
    writer = ShardWriter(storage.shard_path(Path(run_dir), DECISIONS, shard), spec.run_id)
    hand_parts = []
    # A chunk is written by a thread while the kernel plays the next (both release the GIL): parquet's encoding
    # of the observations costs about as much as playing them.
    written = None
    try:
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="oklasim-dataset-writer") as thread:
            try:
                for chunk in play_chunks(kernel_rules(rules, not games_mode), spec.seats(), spec.seed, first, count,
                                         game_out):
                    table = decisions_table(chunk, rules.players, games_mode)
                    if written is not None:
                        written.result()  # the chunk before: its buffers are the next chunk's
                    written = thread.submit(writer.write, table)
                    hand_parts.append(chunk.hands)
            finally:
                if written is not None:
                    written.result()
        hands = hands_frame(np.concatenate(hand_parts), rules.players)
        if games_mode:  # the decisions last: a shard counts as done once its decisions file exists
            storage.write_shard(Path(run_dir), "games", shard, games_frame(game_out, rules.players), spec.run_id)
        storage.write_shard(Path(run_dir), "hands", shard, hands, spec.run_id)
        writer.commit()
    except BaseException:
        writer.discard()
        raise
    return hands.height, writer.rows, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


# -- the run ---------------------------------------------------------------------------------------------------


@dataclass
class DatasetResult:
    """A written dataset: its spec, folder, time and counts; its tables read from the folder on demand."""

    spec: DatasetSpec
    run_dir: Path
    seconds: float
    hands_written: int
    rows_written: int

    @property
    def decisions(self) -> pl.DataFrame:
        return storage.read(self.run_dir, DECISIONS)

    @property
    def hands(self) -> pl.DataFrame:
        return storage.read(self.run_dir, "hands")

    @property
    def games(self) -> pl.DataFrame | None:
        return storage.read(self.run_dir, "games") if self.spec.mode == "games" else None


def prepare(spec: DatasetSpec, run_dir: Path, resume: bool, overwrite: bool) -> set[int]:
    """Check the output folder (as ``simulate`` does) and return the shards already finished (``resume``)."""
    stored = (run_dir / storage.MANIFEST).is_file()
    if resume and stored and storage.read_manifest(run_dir)["spec"].get("dataset") != DECISIONS:
        raise OklasimError(f"{run_dir} holds a simulate run, not a decision dataset; give another --out "
                           "(or --overwrite to replace it)")
    if overwrite and stored:
        for part in (run_dir / DECISIONS).glob("part-*.parquet"):
            part.unlink()
    done = prepare_run_dir(spec, run_dir, resume, overwrite)
    if resume and stored:
        old = storage.read_manifest(run_dir)
        storage.checked_shards(run_dir, DECISIONS, {**old, "status": "running"})
        done &= set(storage.shard_files(run_dir, DECISIONS))
    return done


def manifest(spec: DatasetSpec, done: int, status: str, seconds: float, hands: int, rows: int, backend: str,
             peak_mb: float = 0.0) -> dict[str, Any]:
    data = run_manifest(spec, done, status, seconds, hands, backend, peak_mb)
    data["rows_written"] = rows
    data["encoding"] = {"version": ENCODING_VERSION, "obs_size": OBS_SIZE, "n_actions": N_ACTIONS,
                        "obs": f"fixed_size_binary[{OBS_SIZE}]: int8 bytes of env_nb.encode_nb",
                        "mask": f"fixed_size_binary[{N_ACTIONS}]: int8 bytes of env_nb.mask_nb, 1 legal"}
    return data


def write(spec: DatasetSpec, run_dir: str | Path, workers: int | None = 1, resume: bool = False,
          overwrite: bool = False, progress: bool = True) -> DatasetResult:
    """Play every shard of ``spec`` not yet done and write its decisions to ``run_dir``. ``workers=None``: in-process
    for a small run, else every core."""
    out = Path(run_dir)
    done = prepare(spec, out, resume, overwrite)
    D.play_decisions_nb.compile_now()  # here, once, rather than in every worker (the strategies: make_executor)
    started = time.perf_counter()
    backend = make_executor(spec, workers)
    log.info("dataset %s: %d of %d shards to play on %s", spec.run_id[:12], spec.n_shards - len(done),
             spec.n_shards, backend.name)
    hands_written = sum(storage.shard_rows(out, "hands", s, spec.run_id) or 0 for s in done)
    rows_written = sum(storage.shard_rows(out, DECISIONS, s, spec.run_id) or 0 for s in done)
    storage.write_manifest(out, manifest(spec, len(done), "running", 0.0, hands_written, rows_written, backend.name))
    bar = progress_bar(spec, done, progress)
    status, peak_mb = "interrupted", 0.0
    try:
        todo = (shard for shard in range(spec.n_shards) if shard not in done)
        for shard, (hands, rows, peak) in play_shards(backend.executor, spec, todo, str(out), play_dataset_shard):
            hands_written += hands
            rows_written += rows
            peak_mb = max(peak_mb, peak)
            done.add(shard)
            bar.update(spec.shard(shard)[1])
        status = "complete"
    except BaseException:
        backend.abandon()
        raise
    finally:
        bar.close()
        backend.close()
        seconds = time.perf_counter() - started
        storage.write_manifest(out, manifest(spec, len(done), status, seconds, hands_written, rows_written,
                                             backend.name, peak_mb))
    return DatasetResult(spec, out, seconds, hands_written, rows_written)


def export(run_dir: str | Path, strategies: str | Sequence[str | Strategy] = "expert", hands: int | None = None,
           games: int | None = None, seed: int = 0, rules: Rules | str | None = None, workers: int | None = 1,
           resume: bool = False, overwrite: bool = False, shard_size: int | None = None,
           strategy_paths: Sequence[str] = (), progress: bool = False) -> DatasetResult:
    """Write the decision dataset of ``hands`` independent hands or ``games`` whole games of ``seed`` to
    ``run_dir``: the run ``simulate`` plays with the same rules, strategies and seed, every decision a row."""
    spec = DatasetSpec.create(rules, strategies, games=games, hands=hands, seed=seed, shard_size=shard_size,
                              strategy_paths=strategy_paths)
    return write(spec, run_dir, workers=workers, resume=resume, overwrite=overwrite, progress=progress)


# -- reading -----------------------------------------------------------------------------------------------------


def matrix(column) -> np.ndarray:
    """An ``obs`` or ``mask`` column (a polars Series, a pyarrow array or chunked array) as ``int8[rows, width]``,
    a read-only view of the column's bytes (one copy at most, joining chunks)."""
    if isinstance(column, pl.Series):
        column = column.to_arrow()
    if isinstance(column, pa.ChunkedArray):
        column = column.chunk(0) if column.num_chunks == 1 else column.combine_chunks()
    if pa.types.is_fixed_size_binary(column.type):
        width = column.type.byte_width
        data = np.frombuffer(column.buffers()[1], dtype=np.int8) if len(column) else np.zeros(0, np.int8)
        return data[column.offset * width : (column.offset + len(column)) * width].reshape(len(column), width)
    column = column.cast(pa.large_binary())
    if len(column) == 0:
        return np.zeros((0, 0), dtype=np.int8)
    offsets = np.frombuffer(column.buffers()[1], dtype=np.int64)[column.offset : column.offset + len(column) + 1]
    widths = np.diff(offsets)
    if column.null_count or (widths != widths[0]).any():
        raise OklasimError("not a column of observations or masks: its values differ in width")
    data = np.frombuffer(column.buffers()[2], dtype=np.int8)[offsets[0] : offsets[-1]]
    return data.reshape(len(column), int(widths[0]))


def read_decisions(run_dir: str | Path) -> pl.DataFrame:
    """Every decision of the dataset in ``run_dir``, its shards checked (``obs`` and ``mask`` as Binary)."""
    return storage.read(Path(run_dir), DECISIONS)


def load(run_dir: str | Path) -> dict[str, np.ndarray]:
    """The dataset in ``run_dir`` as numpy arrays, one per column: ``obs`` ``int8[rows, 938]``, ``mask``
    ``int8[rows, 143]``, the others one value per row."""
    frame = read_decisions(run_dir)
    return {name: matrix(frame[name]) if name in ("obs", "mask") else frame[name].to_numpy()
            for name in frame.columns}
