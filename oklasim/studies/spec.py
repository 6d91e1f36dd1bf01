"""What every study shares: the experiment it runs, its stored runs, the facts its report gives.

The studies import these from here (not from ``oklasim.studies.experiment``, which loads
experiment files and dispatches to the studies), so the import graph has no circle.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from oklasim.game.rules import Rules
from oklasim.runs import storage
from oklasim.runs.batch import RunResult, RunSpec, run, written_by_this_code
from oklasim.runs.keys import result_key

__all__ = ["Experiment", "ensure_run", "provenance", "result_key"]


@dataclass(frozen=True)
class Experiment:
    name: str
    kind: str
    title: str
    seed: int
    mode: str  # "hands" or "games"
    count: int
    strategies: tuple[str, ...]
    rules: dict[str, Any]
    options: dict[str, Any] = field(default_factory=dict)
    quick: bool = False
    source: str = ""

    def base_rules(self) -> Rules:
        return Rules.from_dict(self.rules)

    def size(self) -> dict[str, int]:
        return {self.mode: self.count}

    @property
    def label(self) -> str:
        return self.name + ("-quick" if self.quick else "")

    @property
    def command(self) -> str:
        """The command that runs this study (and redoes whatever of its runs is missing or damaged)."""
        return f"oklasim run {self.source}" + (" --quick" if self.quick else "")


def ensure_run(spec: RunSpec, run_dir: Path, workers: int) -> RunResult:
    """The run of ``spec`` in ``run_dir`` (a folder of this study): reused if complete, resumed if interrupted,
    replayed if its spec or oklasim's kernels changed since."""
    if (run_dir / storage.MANIFEST).exists():
        manifest = storage.read_manifest(run_dir)
        if manifest["spec"]["run_id"] == spec.run_id and written_by_this_code(manifest):
            if manifest["status"] == "complete" and _shards_intact(run_dir, manifest):
                return RunResult(spec, run_dir, [], [], manifest.get("seconds", 0.0), manifest.get("peak_worker_mb", 0.0))
            return run(spec, run_dir, workers=workers, resume=True)
        return run(spec, run_dir, workers=workers, overwrite=True)
    return run(spec, run_dir, workers=workers)


def _shards_intact(run_dir: Path, manifest: dict) -> bool:
    """Every planned shard present (foreign or unreadable files are errors)."""
    records = storage.KINDS if manifest["spec"]["mode"] == "games" else ("hands",)  # not the study's kind
    in_progress = {**manifest, "status": "running"}  # count the missing ones instead of failing on them
    planned = storage.planned_shards(manifest)
    return all(len(storage.checked_shards(run_dir, record, in_progress)) == planned for record in records)


def provenance(experiment: Experiment, runs: dict[str, RunSpec], size: str | None = None,
               **extra: str) -> dict[str, str]:
    """The facts a reader needs to trust and reproduce a report.

    ``size`` replaces the default description of the sample (for studies that are not N runs of one size);
    ``extra`` adds facts (their keys with underscores shown as spaces).
    """
    facts = {
        "study": f"{experiment.source} ({experiment.kind})",
        "reproduce": experiment.command,
        "seed": str(experiment.seed),
        "size": size or f"{experiment.count:,} {experiment.mode} per configuration, {len(runs)} configurations",
        "strategies": ", ".join(experiment.strategies),
        "rules": json.dumps(experiment.rules, sort_keys=True),
    }
    facts |= {key.replace("_", " "): value for key, value in extra.items()}
    return facts
