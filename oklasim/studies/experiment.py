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
``--quick`` uses ``runs/NAME-quick`` and ``reports/NAME-quick``. The shipped
studies (``oklasim/studies/experiments/``) are run by name:
``oklasim run knock_thresholds``.
"""

from __future__ import annotations

import json
import re
import shutil
import tomllib
from dataclasses import asdict
from pathlib import Path

from oklasim.analysis.report import discard_unfinished
from oklasim.errors import OklasimError, read_text
from oklasim.game.rules import Rules
from oklasim.runs import storage
from oklasim.runs.batch import MAX_COUNT
from oklasim.studies import STUDIES, plain_run
from oklasim.studies.spec import Experiment

SHIPPED = Path(__file__).resolve().parent / "experiments"
STUDY_FILE = "study.json"
STUDY_KEYS = {"kind", "title", "seed", "hands", "games", "quick_hands", "quick_games", "strategies"}
# What a study's results depend on: two experiments that differ here must not share a run folder.
RESULT_FIELDS = ("kind", "seed", "mode", "count", "strategies", "rules", "options", "quick")
PLAIN_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")


def plain_name(name: object, what: str) -> str:
    """``name`` if it is a plain file name (letters, digits, ``_ . -``; no path, no leading dot), else an error."""
    if not isinstance(name, str) or not PLAIN_NAME.fullmatch(name) or len(name) > 100:
        raise OklasimError(f"{what}: the study name {name!r} must be a plain name (letters, digits, _ . -)")
    return name


def _whole(value: object, what: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise OklasimError(f"{what} must be a whole number from {low:,} to {high:,}, got {value!r}")
    return value


def shipped() -> dict[str, Path]:
    """The studies that come with oklasim, by name."""
    return {path.stem: path for path in sorted(SHIPPED.glob("*.toml"))}


def locate(spec: str | Path) -> tuple[Path, str]:
    """(file, how to name it again) of an experiment file's path or of a shipped study's name."""
    path = Path(spec)
    if path.is_file():
        return path, str(spec)
    if str(spec) in shipped():
        return shipped()[str(spec)], str(spec)
    raise OklasimError(f"no experiment file {spec} and no shipped study of that name; the shipped ones: "
                       f"{', '.join(shipped())}")


def load(spec: str | Path, quick: bool = False) -> Experiment:
    """Read and check an experiment file (a path, or a shipped study's name); every problem is a ValueError naming
    the file and the field."""
    path, source = locate(spec)
    try:
        data = tomllib.loads(read_text(path))
    except tomllib.TOMLDecodeError as exc:
        raise OklasimError(f"{path}: not valid TOML ({exc})") from None
    study = data.get("study")
    if not isinstance(study, dict):
        raise OklasimError(f"{path}: needs a [study] table")
    unknown = set(data) - {"study", "rules", "options"}
    if unknown:
        raise OklasimError(f"{path}: unknown table(s) {', '.join(sorted(unknown))}; use [study], [rules], [options]")
    unknown = set(study) - STUDY_KEYS
    if unknown:
        raise OklasimError(f"{path}: unknown [study] key(s) {', '.join(sorted(unknown))}; known: {', '.join(sorted(STUDY_KEYS))}")
    kind = study.get("kind")
    if kind not in STUDIES:
        raise OklasimError(f"{path}: study kind {kind!r} is not one of {', '.join(STUDIES)}")
    modes = [m for m in ("hands", "games") if m in study]
    if len(modes) != 1:
        raise OklasimError(f"{path}: give exactly one of hands = N or games = N in [study]")
    mode = modes[0]
    full = _whole(study[mode], f"{path}: {mode}", 1, MAX_COUNT)
    key = f"quick_{mode}" if quick else mode
    count = _whole(study.get(key, max(1, full // 20)), f"{path}: {key}", 1, MAX_COUNT)
    strategies = study.get("strategies", ["simple", "simple"])
    if not isinstance(strategies, list) or not all(isinstance(s, str) for s in strategies):
        raise OklasimError(f"{path}: strategies must be a list of names, e.g. strategies = [\"simple\", \"greedy\"]")
    options = data.get("options", {})
    if not isinstance(options, dict) or not isinstance(data.get("rules", {}), dict):
        raise OklasimError(f"{path}: [rules] and [options] must be tables")
    rules = Rules.from_dict(data.get("rules", {}))  # validates
    experiment = Experiment(
        name=plain_name(path.stem, str(path)),
        kind=kind,
        title=str(study.get("title", path.stem.replace("_", " "))),
        seed=_whole(study.get("seed", 0), f"{path}: seed", 0, 2**63 - 1),
        mode=mode,
        count=count,
        strategies=tuple(strategies),
        rules=rules.to_dict(),
        options=dict(options),
        quick=quick,
        source=source,
    )
    STUDIES[kind].check(experiment)
    return experiment


def run_experiment(path: str | Path, quick: bool = False, workers: int = 1, runs_root="runs", reports_root="reports",
                   overwrite: bool = False):
    """Run a study and write its report; returns the report's index.html path.

    The run folder ``runs_root/NAME`` belongs to one experiment file: an edit of that file reuses what it did
    not change; another file of the same name (other seed, size, rules...) replaces it only with ``overwrite``."""
    experiment = load(path, quick)
    run_dir = Path(runs_root) / experiment.label
    _claim(run_dir, experiment, overwrite)
    run_dir.mkdir(parents=True, exist_ok=True)
    storage.atomic_write_bytes(run_dir / STUDY_FILE, json.dumps(asdict(experiment), indent=2).encode())
    STUDIES[experiment.kind].run(experiment, run_dir, workers)
    return build_report(run_dir, reports_root)


def _claim(run_dir: Path, experiment: Experiment, overwrite: bool) -> None:
    """Check ``run_dir`` may hold this experiment's runs; with ``overwrite``, empty it of another's."""
    if run_dir.exists() and not run_dir.is_dir():
        raise OklasimError(f"{run_dir} exists and is not a folder")
    if not run_dir.is_dir() or not any(run_dir.iterdir()):
        return
    try:
        held = read_study(run_dir)
    except ValueError:
        held = None
    if held is not None:
        differs = [f for f in RESULT_FIELDS if getattr(held, f) != getattr(experiment, f)]
        if not differs or _same_file(held.source, experiment.source):
            return  # the same experiment, or its own file edited: keep what is unchanged, redo the rest
        what = f"the runs of another experiment named {experiment.name} (from {held.source}; other {', '.join(differs)})"
    else:
        what = "files that are not this study's runs"
    if not overwrite:
        raise OklasimError(f"{run_dir} holds {what}; add --overwrite to replace them, or choose another --runs folder")
    if held is None:
        raise OklasimError(f"{run_dir} holds {what}; refusing to delete them even with --overwrite: choose another --runs")
    shutil.rmtree(run_dir)


def _same_file(a: str, b: str) -> bool:
    return bool(a) and bool(b) and Path(a).resolve() == Path(b).resolve()


def read_study(run_dir: Path) -> Experiment:
    """The experiment recorded in a study folder, checked (it names the report folder)."""
    path = Path(run_dir) / STUDY_FILE
    data = storage.read_json(path, f"delete {run_dir}, or run its study again")
    try:
        experiment = Experiment(**{**data, "strategies": tuple(data["strategies"])})
    except (TypeError, KeyError) as exc:
        raise OklasimError(f"{path} is not an oklasim study record ({exc})") from None
    plain_name(experiment.name, str(path))
    if experiment.kind not in STUDIES:
        raise OklasimError(f"{path}: study kind {experiment.kind!r} is not one of {', '.join(STUDIES)}")
    return experiment


def build_report(run_dir: str | Path, reports_root="reports") -> Path:
    """The report of a study folder (made by ``oklasim run``) or of a plain ``simulate`` run."""
    run_dir, reports_root = Path(run_dir), Path(reports_root)
    if reports_root.exists() and not reports_root.is_dir():
        raise OklasimError(f"--reports {reports_root} is not a folder")
    if (run_dir / STUDY_FILE).is_file():
        experiment = read_study(run_dir)
        target = reports_root / experiment.label
        make = lambda: STUDIES[experiment.kind].report(experiment, run_dir, target)  # noqa: E731
    else:
        storage.read_manifest(run_dir)  # a clear error if this is not a run at all
        target = reports_root / plain_name(run_dir.resolve().name, str(run_dir))
        make = lambda: plain_run.report(run_dir, target)  # noqa: E731
    try:
        return make()
    finally:
        discard_unfinished(target)  # whatever a failed build left; a finished one was renamed away

