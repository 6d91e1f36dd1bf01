"""The shipped studies. Each module offers ``check(experiment)``, ``run(experiment, run_dir, workers)``
and ``report(experiment, run_dir, report_dir) -> Path``; ``experiments/*.toml`` name them by ``kind``."""

from . import upcard_effects

STUDIES = {
    "upcard_effects": upcard_effects,
}
