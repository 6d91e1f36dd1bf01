"""Confidence intervals used by every table: proportions, means, paired differences.

>>> round(wilson(50, 100)[0], 4), round(wilson(50, 100)[1], 4)
(0.4038, 0.5962)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from oklasim.errors import OklasimError

Z95 = 1.959963984540054


@dataclass(frozen=True)
class Estimate:
    """A mean (or proportion) with its 95% interval and the sample size behind it."""

    mean: float
    low: float
    high: float
    n: int

    @property
    def half_width(self) -> float:
        return (self.high - self.low) / 2

    def as_dict(self) -> dict:
        return {"mean": self.mean, "ci95": [self.low, self.high], "n": self.n}

    @classmethod
    def from_dict(cls, data: dict) -> Estimate:
        """The inverse of ``as_dict``.

        >>> Estimate.from_dict(Estimate(0.5, 0.25, 0.75, 8).as_dict())
        Estimate(mean=0.5, low=0.25, high=0.75, n=8)
        """
        return cls(float(data["mean"]), float(data["ci95"][0]), float(data["ci95"][1]), int(data["n"]))

    def bracketed(self, spec: str = "+.3f", scale: float = 1, unit: str = "") -> str:
        """The mean, then its 95% interval in brackets, each in format ``spec`` after scaling.

        >>> Estimate(0.0077, 0.0051, 0.0103, 40000).bracketed("+.2f", 100, " pp")
        '+0.77 pp [+0.51, +1.03]'
        """
        mean, low, high = (format(scale * x, spec) for x in (self.mean, self.low, self.high))
        return f"{mean}{unit} [{low}, {high}]"

    def text(self, digits: int = 2, percent: bool = False) -> str:
        if self.n == 0:
            return "n/a"  # nothing to measure, e.g. undercuts of a seat that never knocked
        scale, unit = (100, "%") if percent else (1, "")
        return f"{self.mean * scale:.{digits}f}{unit} ±{self.half_width * scale:.{digits}f}"


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a proportion (well behaved near 0 and 1)."""
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    spread = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    low = 0.0 if successes == 0 else max(0.0, centre - spread)  # exact ends: rounding leaves ~1e-19
    high = 1.0 if successes == n else min(1.0, centre + spread)
    return low, high


def proportion(successes: int, n: int) -> Estimate:
    low, high = wilson(successes, n)
    return Estimate(successes / n if n else float("nan"), low, high, n)


def mean_ci(values, z: float = Z95) -> Estimate:
    """Mean with a normal-approximation interval (the samples here number thousands)."""
    x = np.asarray(values, dtype=np.float64)
    n = x.size
    if n == 0:
        return Estimate(float("nan"), float("nan"), float("nan"), 0)
    mean = float(x.mean())
    if n == 1:
        return Estimate(mean, float("-inf"), float("inf"), 1)
    half = z * float(x.std(ddof=1)) / math.sqrt(n)
    return Estimate(mean, mean - half, mean + half, n)


def paired_difference(a, b) -> Estimate:
    """Mean of ``a - b`` over pairs (the same deal seen by both), with its interval."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if a.shape != b.shape:
        raise OklasimError("paired samples must have the same length")
    return mean_ci(a - b)


def ratio_ci(numerators, denominators, z: float = Z95) -> Estimate:
    """sum(x) / sum(y) over independent units (e.g. points per hand over games), delta-method interval."""
    x, y = np.asarray(numerators, dtype=np.float64), np.asarray(denominators, dtype=np.float64)
    n = x.size
    ratio = float(x.sum() / y.sum())
    if n < 2:
        return Estimate(ratio, float("-inf"), float("inf"), n)
    residual = x - ratio * y
    half = z * float(np.sqrt(residual.var(ddof=1) * n)) / float(y.sum())
    return Estimate(ratio, ratio - half, ratio + half, n)
