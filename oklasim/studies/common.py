"""Grouped estimates with intervals, computed in polars, shared by the studies."""

from __future__ import annotations

import math

import numpy as np
import polars as pl

from ..stats import Z95, wilson

RANK_ORDER = list("A23456789TJQK")


def with_rank(hands: pl.DataFrame) -> pl.DataFrame:
    """Add the upcard's rank (A..K) and suit as columns."""
    return hands.with_columns(
        upcard_rank=pl.col("upcard").str.slice(0, 1),
        upcard_suit=pl.col("upcard").str.slice(1, 1),
    )


def group_means(frame: pl.DataFrame, by: list[str], values: dict[str, pl.Expr]) -> pl.DataFrame:
    """Mean of each expression per group with 95% normal intervals: NAME, NAME_lo, NAME_hi."""
    aggs = [pl.len().alias("n")]
    for name, expr in values.items():
        aggs += [expr.cast(pl.Float64).mean().alias(name), expr.cast(pl.Float64).std().alias(f"_{name}_sd")]
    out = frame.group_by(by).agg(aggs)
    for name in values:
        half = Z95 * pl.col(f"_{name}_sd") / pl.col("n").cast(pl.Float64).sqrt()
        out = out.with_columns((pl.col(name) - half).alias(f"{name}_lo"), (pl.col(name) + half).alias(f"{name}_hi"))
        out = out.drop(f"_{name}_sd")
    return out


def group_shares(frame: pl.DataFrame, by: list[str], conditions: dict[str, pl.Expr]) -> pl.DataFrame:
    """Share of rows meeting each condition per group, with Wilson intervals: NAME, NAME_lo, NAME_hi."""
    counts = frame.group_by(by).agg([pl.len().alias("n")] + [c.sum().alias(name) for name, c in conditions.items()])
    rows = []
    for row in counts.iter_rows(named=True):
        out = {key: row[key] for key in by} | {"n": row["n"]}
        for name in conditions:
            low, high = wilson(int(row[name]), int(row["n"]))
            out |= {name: row[name] / row["n"], f"{name}_lo": low, f"{name}_hi": high}
        rows.append(out)
    return pl.DataFrame(rows)


def rank_sorted(frame: pl.DataFrame) -> pl.DataFrame:
    return frame.with_columns(pl.col("upcard_rank").cast(pl.Enum(RANK_ORDER))).sort("upcard_rank")


def error_bars(ax, x, frame: pl.DataFrame, name: str, label: str, **style) -> None:
    mean = frame[name].to_numpy()
    low, high = frame[f"{name}_lo"].to_numpy(), frame[f"{name}_hi"].to_numpy()
    ax.errorbar(x, mean, yerr=np.vstack([mean - low, high - mean]), label=label, capsize=3, marker="o", **style)



def fmt(value: float, digits: int = 1) -> str:
    return "n/a" if value is None or math.isnan(value) else f"{value:.{digits}f}"


def quantile_ci(values, counts, q: float, z: float = Z95) -> tuple[float, float, float]:
    """The ``q`` quantile of a sample given as a histogram (sorted ``values``, their ``counts``), with a
    distribution-free 95% interval from the order statistics (binomial ranks n*q -+ z*sqrt(n*q*(1-q)))."""
    values = np.asarray(values)
    cumulative = np.cumsum(np.asarray(counts, dtype=np.int64))
    n = int(cumulative[-1])

    def at_rank(rank: int):  # the rank-th smallest value, 1-based
        return values[np.searchsorted(cumulative, min(max(rank, 1), n))].item()

    spread = z * math.sqrt(n * q * (1 - q))
    return at_rank(math.ceil(n * q)), at_rank(math.floor(n * q - spread)), at_rank(math.ceil(n * q + spread))


def fmt_interval(value: float, low: float, high: float, digits: int = 1, percent: bool = False) -> str:
    """'12.3 (95% interval 11.9 to 12.7)', in percent when asked."""
    scale, unit = (100, "%") if percent else (1, "")
    return (f"{fmt(value * scale, digits)}{unit} (95% interval {fmt(low * scale, digits)} to "
            f"{fmt(high * scale, digits)}{unit})")
