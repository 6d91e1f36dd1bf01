"""Knock policies in whole games: game win rates against each opponent, and points per hand by score band.

A hand's score situation is the two game scores before it (own, opponent's),
each cut into bands (e.g. below 50, 50-79, 80 and over for a game to 100).
Hands in a band are compared across policies by points per hand; games part
ways after their first hand, so these comparisons are unpaired (independent
samples) and their intervals are wider than the single-hand study's.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from oklasim.analysis.stats import Z95, mean_ci, proportion
from oklasim.studies.paired_pool import GamesPlayed


def band_names(edges: list[int]) -> list[str]:
    """['0-49', '50-79', '80+'] for edges [50, 80]."""
    lows = [0, *edges]
    return [f"{low}-{high - 1}" for low, high in zip(lows, edges)] + [f"{lows[-1]}+"]


def win_rates(played: GamesPlayed) -> dict:
    won = proportion(int(played.won.sum()), played.won.size)
    points = mean_ci(played.net)
    return {"games": played.won.size, "win_rate": won.mean, "win_rate_lo": won.low, "win_rate_hi": won.high,
            "points_per_hand": points.mean, "points_lo": points.low, "points_hi": points.high}


def by_band(played: GamesPlayed, edges: list[int]) -> pl.DataFrame:
    """Points per hand (the policy's minus the opponent's) by own and opponent score band before the hand."""
    names = np.array(band_names(edges))
    frame = pl.DataFrame({
        "own_band": names[np.searchsorted(edges, played.own_before, side="right")],
        "their_band": names[np.searchsorted(edges, played.their_before, side="right")],
        "net": played.net.astype(np.float64),
    })
    out = frame.group_by("own_band", "their_band").agg(
        pl.len().alias("hands"), pl.col("net").mean().alias("points"), pl.col("net").std().alias("sd"))
    half = Z95 * pl.col("sd").fill_null(float("inf")) / pl.col("hands").cast(pl.Float64).sqrt()
    return out.with_columns(points_lo=pl.col("points") - half, points_hi=pl.col("points") + half).drop("sd")


def best_by_band(bands: pl.DataFrame) -> pl.DataFrame:
    """Per score band the policy with the most points per hand, and the policies not significantly worse
    (unpaired: the difference's interval from both half-widths reaches 0)."""
    rows = []
    for (own, their), cells in bands.group_by("own_band", "their_band", maintain_order=True):
        cells = cells.sort(["points", "strategy"], descending=[True, False])
        top = cells.row(0, named=True)
        top_half = (top["points_hi"] - top["points_lo"]) / 2
        tied = [r["strategy"] for r in cells.iter_rows(named=True)
                if top["points"] - r["points"] <= np.hypot(top_half, (r["points_hi"] - r["points_lo"]) / 2)]
        rows.append({"own_band": own, "their_band": their, "best": top["strategy"], "points": top["points"],
                     "points_lo": top["points_lo"], "points_hi": top["points_hi"], "hands": top["hands"],
                     "tied": "; ".join(tied)})
    return pl.DataFrame(rows).sort("own_band", "their_band")
