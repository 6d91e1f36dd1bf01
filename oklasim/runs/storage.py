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
import socket
import tempfile
from pathlib import Path
from typing import Any

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

from oklasim.errors import OklasimError

MANIFEST = "manifest.json"
METADATA_KEY = b"oklasim.run"
KINDS = ("hands", "games")
SPEC_KEYS = {"mode", "count", "seed", "shard_size", "run_id", "labels", "strategies", "rules"}


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


def _damaged(path: Path, exc: Exception, fix: str) -> OklasimError:
    first = next((line.strip() for line in str(exc).splitlines() if line.strip()), type(exc).__name__)
    return OklasimError(f"{path} is damaged ({first}); {fix}")


def read_json(path: Path, fix: str) -> Any:
    """A JSON file oklasim wrote; an ``OklasimError`` naming it, and saying ``fix`` (what to do), if it is damaged."""
    try:
        return json.loads(Path(path).read_bytes())
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise _damaged(path, exc, fix) from None


def read_table(path: Path, fix: str, columns: dict[str, Any] | tuple[str, ...] = ()) -> pl.DataFrame:
    """A table oklasim wrote (parquet, or CSV), holding ``columns`` (names, or names and their polars types); an
    ``OklasimError`` naming the file, and saying ``fix``, if it is damaged (unreadable, or other columns)."""
    path = Path(path)
    try:
        if path.suffix == ".parquet":
            frame = pl.read_parquet(path)
        else:
            frame = pl.read_csv(path, schema_overrides=columns if isinstance(columns, dict) else None)
    except (pl.exceptions.PolarsError, OSError, UnicodeDecodeError) as exc:
        raise _damaged(path, exc, fix) from None
    missing = [name for name in columns if name not in frame.columns]
    if missing:
        raise _damaged(path, ValueError(f"no column {', '.join(missing)}"), fix)
    return frame


def read_manifest(run_dir: Path) -> dict[str, Any]:
    """A run's manifest, checked to hold what the readers need (a clear error otherwise)."""
    path = Path(run_dir) / MANIFEST
    if not path.is_file():
        raise OklasimError(f"{run_dir} is not an oklasim run (no {MANIFEST})")
    manifest = read_json(path, "delete the run or rerun with --overwrite")
    spec = manifest.get("spec") if isinstance(manifest, dict) else None
    if not isinstance(spec, dict) or not SPEC_KEYS <= set(spec) or not isinstance(manifest.get("status"), str):
        raise OklasimError(f"{path} is not an oklasim manifest (no run spec); delete the run or rerun with --overwrite")
    return manifest


def planned_shards(manifest: dict[str, Any]) -> int:
    spec = manifest["spec"]
    return -(-int(spec["count"]) // int(spec["shard_size"]))


def driver_gone(manifest: dict[str, Any]) -> bool:
    """True when the process that wrote a "running" manifest on this machine no longer exists (killed)."""
    driver = manifest.get("driver") or {}
    if manifest.get("status") != "running" or driver.get("host") != socket.gethostname():
        return False
    try:
        os.kill(int(driver["pid"]), 0)
    except ProcessLookupError:
        return True
    except (OSError, KeyError, ValueError, TypeError):
        return False
    return False


def status(manifest: dict[str, Any]) -> str:
    """The run's status, "interrupted" also for a run whose driver was killed before it could say so."""
    return "interrupted" if driver_gone(manifest) else manifest["status"]


def checked_status(run_dir: Path, manifest: dict[str, Any]) -> str:
    """The run's ``status``, or "damaged" when a shard file is foreign, unreadable, outside the plan or missing from
    a complete run (``checked_shards`` says which)."""
    try:
        for kind in KINDS if manifest["spec"]["mode"] == "games" else ("hands",):
            checked_shards(run_dir, kind, manifest)
    except OklasimError:
        return "damaged"
    return status(manifest)


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
    except (pa.ArrowException, OSError) as exc:
        raise OklasimError(f"{path} is not a readable parquet file ({exc}); delete it and rerun with --resume") from None
    owner = (meta.schema.to_arrow_schema().metadata or {}).get(METADATA_KEY, b"").decode()
    if owner != run_id:
        raise OklasimError(f"{path} belongs to another run ({owner or 'not oklasim'}); refusing to mix results")
    return meta.num_rows


def shard_files(run_dir: Path, kind: str) -> dict[int, Path]:
    """The finished shard files of one kind in a run folder, by shard number."""
    found = {}
    for path in (Path(run_dir) / kind).glob("part-*.parquet"):
        number = path.name[len("part-") : -len(".parquet")]
        if not number.isdigit():
            raise OklasimError(f"{path} is not a shard of an oklasim run; remove it")
        found[int(number)] = path
    return found


def checked_shards(run_dir: Path, kind: str, manifest: dict[str, Any]) -> list[Path]:
    """The shard files of a run after checking each against the manifest: in its plan, written for its run
    id, and none missing from a run the manifest calls complete."""
    planned, run_id = planned_shards(manifest), manifest["spec"]["run_id"]
    files = shard_files(run_dir, kind)
    for number, path in sorted(files.items()):
        if number >= planned:
            raise OklasimError(f"{path} is not in the run's plan of {planned} shards; remove it")
        shard_rows(run_dir, kind, number, run_id)  # raises for a foreign or unreadable file
    missing = planned - len(files)
    if missing and manifest["status"] == "complete":
        first = min(set(range(planned)) - set(files))
        raise OklasimError(f"{run_dir} is marked complete but {missing} of its {planned} {kind} shards are missing "
                           f"(first: {shard_path(run_dir, kind, first).name}); rerun it with --resume")
    return [files[n] for n in sorted(files)]


def read(run_dir: Path, kind: str) -> pl.DataFrame:
    """All checked shards of one kind of a run."""
    paths = checked_shards(run_dir, kind, read_manifest(run_dir))
    if not paths:
        raise OklasimError(f"{run_dir} has no {kind} records")
    try:
        return pl.read_parquet([str(p) for p in paths])
    except (pl.exceptions.PolarsError, OSError) as exc:
        raise OklasimError(f"{run_dir}: cannot read its {kind} records ({str(exc).splitlines()[0]})") from None


def list_runs(root: Path) -> list[tuple[Path, dict[str, Any]]]:
    """Runs under ``root`` (directly or one level down, inside a study folder), with their manifests,
    newest first; folders whose manifest cannot be read are skipped."""
    found = []
    for pattern in (f"*/{MANIFEST}", f"*/*/{MANIFEST}"):
        for manifest in sorted(Path(root).glob(pattern)):
            try:
                found.append((manifest.parent, read_manifest(manifest.parent)))
            except (ValueError, OSError):
                continue
    return sorted(found, key=lambda item: str(item[1].get("created", "")), reverse=True)
