"""What the studies' reports share: numbers with their intervals as text, quantiles of histograms, error bars."""

from __future__ import annotations

import math

import numpy as np
import polars as pl

from oklasim.analysis.stats import Z95


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
