"""The report of a plain ``oklasim simulate`` run: outcome mix, seats, and the upcard tables."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from oklasim.analysis.report import Report
from oklasim.analysis.tables import by_upcard, outcome_mix, rank_sorted, seat_table
from oklasim.runs import storage


def report(run_dir: Path, report_dir: Path) -> Path:
    manifest = storage.read_manifest(run_dir)
    spec = manifest["spec"]
    hands = storage.read(run_dir, "hands")
    games = storage.read(run_dir, "games") if spec["mode"] == "games" else None
    doc = Report(report_dir, f"Run {run_dir.name}: {' vs '.join(spec['labels'])}")
    mix = outcome_mix(hands)
    doc.summary = [f"{hands.height:,} hands" + (f" in {games.height:,} games" if games is not None else "") + "."]
    doc.summary += [f"{name}: {est.text(1, percent=True)} of hands" for name, est in mix.items()]
    rows = []
    for row in seat_table(hands, games, spec["labels"]):
        rows.append({k: (v.mean if hasattr(v, "mean") else v) for k, v in row.items()}
                    | {f"{k}_half_width": v.half_width for k, v in row.items() if hasattr(v, "half_width")})
    doc.table("seats", pl.DataFrame(rows), "By seat", "Means and shares with the half-width of their 95% interval.")
    if spec["rules"]["players"] == 2:
        doc.table("by_upcard", rank_sorted(by_upcard(hands)).with_columns(pl.col("upcard_rank").cast(pl.String)),
                  "By upcard rank", "*_lo and *_hi bound the 95% interval.")
    doc.provenance = {
        "run": str(run_dir),
        "reproduce": f"oklasim simulate --strategies {','.join(spec['strategies'])} --{spec['mode']} {spec['count']} "
        f"--seed {spec['seed']} (rules in manifest.json)",
        "rules": str(spec["rules"]),
        "seed": str(spec["seed"]),
    }
    return doc.write()
