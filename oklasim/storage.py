"""Runs on disk: parquet shards with provenance, an atomic manifest, and reading them back.

Layout of a run folder::

    runs/NAME/manifest.json              the run's spec, shard plan and progress
    runs/NAME/hands/part-00012.parquet    hand records of shard 12
    runs/NAME/games/part-00012.parquet    game records of shard 12 (game runs only)

Every file is written to a temporary name and renamed, so an interrupted run
leaves only whole files. Each parquet file carries the run's spec in its
metadata (``oklasim.run``), so a shard is recognised as belonging to its run.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

MANIFEST = "manifest.json"
METADATA_KEY = b"oklasim.run"
KINDS = ("hands", "games")


def atomic_write_bytes(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_manifest(run_dir: Path, manifest: dict[str, Any]) -> None:
    atomic_write_bytes(run_dir / MANIFEST, json.dumps(manifest, indent=2, sort_keys=True).encode())


def read_manifest(run_dir: Path) -> dict[str, Any]:
    path = Path(run_dir) / MANIFEST
    if not path.is_file():
        raise ValueError(f"{run_dir} is not an oklasim run (no {MANIFEST})")
    try:
        return json.loads(path.read_text())
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path} is corrupt ({exc.msg}); delete the run or rerun with --overwrite") from None


def shard_path(run_dir: Path, kind: str, shard: int) -> Path:
    return Path(run_dir) / kind / f"part-{shard:05d}.parquet"


def write_shard(run_dir: Path, kind: str, shard: int, frame: pl.DataFrame, run_id: str) -> None:
    """Write one shard's records as zstd parquet with the run id in its metadata, atomically."""
    table = frame.to_arrow()
    table = table.replace_schema_metadata({**(table.schema.metadata or {}), METADATA_KEY: run_id.encode()})
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, compression="zstd", compression_level=3)
    atomic_write_bytes(shard_path(run_dir, kind, shard), sink.getvalue().to_pybytes())


def shard_rows(run_dir: Path, kind: str, shard: int, run_id: str) -> int | None:
    """Rows of a finished shard file of this run; None if missing; ValueError if foreign or corrupt."""
    path = shard_path(run_dir, kind, shard)
    if not path.exists():
        return None
    try:
        meta = pq.read_metadata(path)
    except (pa.ArrowInvalid, OSError) as exc:
        raise ValueError(f"{path} is not a readable parquet file ({exc}); delete it and rerun with --resume") from None
    owner = (meta.schema.to_arrow_schema().metadata or {}).get(METADATA_KEY, b"").decode()
    if owner != run_id:
        raise ValueError(f"{path} belongs to another run ({owner or 'not oklasim'}); refusing to mix results")
    return meta.num_rows


def scan(run_dir: Path, kind: str) -> pl.LazyFrame:
    """All shards of one kind of a run, lazily."""
    folder = Path(run_dir) / kind
    if not any(folder.glob("part-*.parquet")):
        raise ValueError(f"{run_dir} has no {kind} records")
    return pl.scan_parquet(str(folder / "part-*.parquet"))


def list_runs(root: Path) -> list[tuple[Path, dict[str, Any]]]:
    """Runs found directly under ``root``, with their manifests, newest first."""
    found = []
    for manifest in sorted(Path(root).glob(f"*/{MANIFEST}")):
        try:
            found.append((manifest.parent, json.loads(manifest.read_text())))
        except json.JSONDecodeError:
            continue
    return sorted(found, key=lambda item: item[1].get("created", ""), reverse=True)
