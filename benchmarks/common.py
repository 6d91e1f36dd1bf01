"""Helpers shared by the benchmarks: repeated timing and the optional OpenSpiel peer."""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable


def median_seconds(run: Callable[[], object], repeats: int) -> float:
    """Median wall time of ``run`` over ``repeats`` calls, after one warm-up call."""
    run()
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        run()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def machine_load() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.2f} (1 min), {five:.2f} (5 min) on {os.cpu_count()} cores"


def pyspiel_or_none():
    """OpenSpiel's Python module, or None when the optional peer is not installed (`make peer`)."""
    try:
        import pyspiel
    except ImportError:
        return None
    return pyspiel
