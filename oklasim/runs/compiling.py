"""`oklasim compile`: every kernel compiled now, on every core, so that no later command waits for one.

A unit is one module of ``oklasim._kernels`` whose entry points have a fixed signature (``lazy_njit``: the
engine's and the advisor's; the kernels they call compile with them), or one strategy family's decision kernel.
Each unit compiles in a worker process of its own and leaves its code in numba's cache on disk, which is all the
processes share; the commands that come later read it from there. A family that links other families' kernels
into its own (``cache_depends_on``, as ``mc`` does) compiles after the rest, so that it finds theirs cached.
"""

from __future__ import annotations

import importlib
import pkgutil
import time
from collections.abc import Callable
from concurrent.futures import as_completed

from oklasim._kernels.linking import LazyDispatcher
from oklasim.errors import OklasimError
from oklasim.runs.backends import drop_pool, process_pool
from oklasim.strategies.registry import families, resolve

KERNELS = "oklasim._kernels"


def kernel_modules() -> list[str]:
    """The modules of ``oklasim._kernels`` that define kernels of a fixed signature."""
    found = []
    for info in pkgutil.iter_modules(importlib.import_module(KERNELS).__path__, f"{KERNELS}."):
        module = importlib.import_module(info.name)
        if any(isinstance(v, LazyDispatcher) and v.py_func.__module__ == info.name for v in vars(module).values()):
            found.append(info.name)
    return found


def _links_other_families(source) -> bool:
    return "cache_depends_on(" in source.read_text()


def units(strategy_paths: tuple[str, ...] = ()) -> list[list[tuple[str, str]]]:
    """The units in waves: every unit of a wave may compile at the same time as the others of its wave.

    The families come first, longest source first: one family's kernel is one compilation that no core can share
    (``expert``'s takes most of the time), while the kernel modules are many smaller ones."""
    known = sorted(families(strategy_paths).items(), key=lambda item: -item[1].source.stat().st_size)
    first = [("family", name) for name, lf in known if not _links_other_families(lf.source)]
    first += [("kernels", name) for name in kernel_modules()]
    second = [("family", name) for name, lf in known if _links_other_families(lf.source)]
    return [wave for wave in (first, second) if wave]


def compile_unit(unit: tuple[str, str], strategy_paths: tuple[str, ...] = ()) -> float:
    """Compile (or load from the cache) one unit in this process; returns the seconds it took."""
    started = time.perf_counter()
    kind, name = unit
    if kind == "kernels":
        module = importlib.import_module(name)
        for value in vars(module).values():
            if isinstance(value, LazyDispatcher) and value.py_func.__module__ == name:
                value.compile_now()
    else:
        resolve(name, extra_paths=strategy_paths).compile()
    return time.perf_counter() - started


def compile_all(jobs: int, strategy_paths: tuple[str, ...] = (),
                on_done: Callable[[tuple[str, str], float], None] | None = None) -> dict[tuple[str, str], float]:
    """Compile every unit on ``jobs`` processes (1: in this one); returns the seconds each took."""
    if jobs < 1:
        raise OklasimError(f"--jobs must be at least 1, got {jobs}")
    took: dict[tuple[str, str], float] = {}
    for wave in units(strategy_paths):
        for unit, seconds in (_in_this_process(wave, strategy_paths) if jobs == 1 else
                              _on_a_pool(wave, strategy_paths, jobs)):
            took[unit] = seconds
            if on_done is not None:
                on_done(unit, seconds)
    return took


def _in_this_process(wave, strategy_paths):
    for unit in wave:
        yield unit, compile_unit(unit, strategy_paths)


def _on_a_pool(wave, strategy_paths, jobs: int):
    """(unit, seconds) as each finishes; an interrupt or a failure kills the pool's workers."""
    pool = process_pool(jobs)
    try:
        futures = {pool.submit(compile_unit, unit, strategy_paths): unit for unit in wave}
        for future in as_completed(futures):
            yield futures[future], future.result()
    except BaseException:
        drop_pool(jobs)
        raise
