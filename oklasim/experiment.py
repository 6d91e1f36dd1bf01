"""Studies described in TOML: load and check a spec, run it through the batch runner, build its report.

An experiment file looks like::

    [study]
    kind = "upcard_effects"        # one of oklasim.studies.STUDIES
    title = "What the upcard does to a hand"
    seed = 2026
    hands = 400000                 # per configuration (or games = ...)
    quick_hands = 20000            # what --quick plays instead
    strategies = ["simple", "simple"]

    [rules]                        # the base rules: a preset and/or fields
    preset = "seeds"

    [options]                      # what the study kind needs (see its module)

``oklasim run FILE`` keeps the raw runs in ``runs/NAME`` (reused when the
spec is unchanged, resumed when interrupted) and writes ``reports/NAME``;
``--quick`` uses ``runs/NAME-quick`` and ``reports/NAME-quick``.
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from . import storage
from .batch import RunResult, RunSpec, run
from .rules import Rules

STUDY_FILE = "study.json"


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


def load(path: str | Path, quick: bool = False) -> Experiment:
    """Read and check an experiment file; every problem is a ValueError naming the file and the field."""
    from .studies import STUDIES

    path = Path(path)
    if not path.is_file():
        raise ValueError(f"no experiment file {path}")
    try:
        data = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{path}: not valid TOML ({exc})") from None
    study = data.get("study")
    if not isinstance(study, dict):
        raise ValueError(f"{path}: needs a [study] table")
    unknown = set(data) - {"study", "rules", "options"}
    if unknown:
        raise ValueError(f"{path}: unknown table(s) {', '.join(sorted(unknown))}; use [study], [rules], [options]")
    kind = study.get("kind")
    if kind not in STUDIES:
        raise ValueError(f"{path}: study kind {kind!r} is not one of {', '.join(STUDIES)}")
    modes = [m for m in ("hands", "games") if m in study]
    if len(modes) != 1:
        raise ValueError(f"{path}: give exactly one of hands = N or games = N in [study]")
    mode = modes[0]
    count = study.get(f"quick_{mode}", max(1, study[mode] // 20)) if quick else study[mode]
    if not isinstance(count, int) or count < 1:
        raise ValueError(f"{path}: {mode} must be a positive whole number")
    rules = Rules.from_dict(data.get("rules", {}))  # validates
    experiment = Experiment(
        name=path.stem,
        kind=kind,
        title=str(study.get("title", path.stem.replace("_", " "))),
        seed=int(study.get("seed", 0)),
        mode=mode,
        count=count,
        strategies=tuple(study.get("strategies", ("simple", "simple"))),
        rules=rules.to_dict(),
        options=dict(data.get("options", {})),
        quick=quick,
        source=str(path),
    )
    STUDIES[kind].check(experiment)
    return experiment


def ensure_run(spec: RunSpec, run_dir: Path, workers: int) -> RunResult:
    """The run of ``spec`` in ``run_dir``: reused if complete, resumed if interrupted, else (re)played."""
    if (run_dir / storage.MANIFEST).exists():
        manifest = storage.read_manifest(run_dir)
        if manifest["spec"].get("run_id") == spec.run_id:
            if manifest["status"] == "complete":
                return RunResult(spec, run_dir, [], [], manifest.get("seconds", 0.0), manifest.get("peak_worker_mb", 0.0))
            return run(spec, run_dir, workers=workers, resume=True)
        return run(spec, run_dir, workers=workers, overwrite=True)
    return run(spec, run_dir, workers=workers)


def run_experiment(path: str | Path, quick: bool = False, workers: int = 1, runs_root="runs", reports_root="reports"):
    """Run a study and write its report; returns the report's index.html path."""
    from .studies import STUDIES

    experiment = load(path, quick)
    run_dir = Path(runs_root) / experiment.label
    run_dir.mkdir(parents=True, exist_ok=True)
    storage.atomic_write_bytes(run_dir / STUDY_FILE, json.dumps(asdict(experiment), indent=2).encode())
    STUDIES[experiment.kind].run(experiment, run_dir, workers)
    return build_report(run_dir, reports_root)


def build_report(run_dir: str | Path, reports_root="reports") -> Path:
    """The report of a study folder (made by ``oklasim run``) or of a plain ``simulate`` run."""
    from .studies import STUDIES, plain_run

    run_dir = Path(run_dir)
    study_file = run_dir / STUDY_FILE
    if study_file.is_file():
        data = json.loads(study_file.read_text())
        experiment = Experiment(**{**data, "strategies": tuple(data["strategies"])})
        return STUDIES[experiment.kind].report(experiment, run_dir, Path(reports_root) / experiment.label)
    storage.read_manifest(run_dir)  # a clear error if this is not a run at all
    return plain_run.report(run_dir, Path(reports_root) / run_dir.name)


def provenance(experiment: Experiment, runs: dict[str, RunSpec], size: str | None = None,
               **extra: str) -> dict[str, str]:
    """The facts a reader needs to trust and reproduce a report.

    ``size`` replaces the default description of the sample (for studies that are not N runs of one size);
    ``extra`` adds facts (their keys with underscores shown as spaces).
    """
    quick = " --quick" if experiment.quick else ""
    facts = {
        "study": f"{experiment.source} ({experiment.kind})",
        "reproduce": f"oklasim run {experiment.source}{quick}",
        "seed": str(experiment.seed),
        "size": size or f"{experiment.count:,} {experiment.mode} per configuration, {len(runs)} configurations",
        "strategies": ", ".join(experiment.strategies),
        "rules": json.dumps(experiment.rules, sort_keys=True),
    }
    facts |= {key.replace("_", " "): value for key, value in extra.items()}
    return facts
