"""The shipped studies. Each module offers ``check(experiment)``, ``run(experiment, run_dir, workers)``
and ``report(experiment, run_dir, report_dir) -> Path``; experiment files (``experiments/*.toml``: the shipped
ones) name them by ``kind``.
What they share (``Experiment``, ``ensure_run``, ``provenance``, ``result_key``) is in ``spec``."""

from oklasim.studies import dealt_hands, knock_thresholds, ladder, tournament, upcard_effects

STUDIES = {
    "dealt_hands": dealt_hands,
    "knock_thresholds": knock_thresholds,
    "ladder": ladder,
    "tournament": tournament,
    "upcard_effects": upcard_effects,
}
