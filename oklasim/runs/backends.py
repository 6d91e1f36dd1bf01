"""Where a run's shards are played: in this process, on a local process pool kept for the process's life (its
workers die with the driver, see ``lifetime``), or on a Dask cluster; the kernels are compiled here first, once.
"""

from __future__ import annotations

import atexit
import logging
import multiprocessing
import os
import warnings
from collections.abc import Callable, Sequence
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from typing import NamedTuple, Protocol

from oklasim.errors import OklasimError
from oklasim.runs import lifetime
from oklasim.sim.engine import compile_kernels
from oklasim.strategies.registry import Strategy

SECONDS_PER_UNIT = {"games": 1e-4, "hands": 1e-5}  # one core, the simplest strategies, roughly (expert: ~6x)
log = logging.getLogger("oklasim")
_POOLS: dict[int, ProcessPoolExecutor] = {}


def process_pool(workers: int) -> ProcessPoolExecutor:
    """A process pool kept for the life of the process: studies run many configurations, and
    starting workers (imports, loading compiled kernels) costs seconds each time."""
    if workers not in _POOLS:
        # forkserver: workers start clean (no inherited numba/LLVM state) and fast. It preloads only our
        # module, so that it and its workers die with the driver and ignore Ctrl-C (see lifetime).
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(["oklasim.runs._forkserver"])
        lifetime.launch_forkserver()
        _POOLS[workers] = ProcessPoolExecutor(
            max_workers=workers, mp_context=context, initializer=lifetime.start_worker, initargs=(os.getpid(),)
        )
        log.info("started a pool of %d worker processes", workers)
    return _POOLS[workers]


def drop_pool(workers: int) -> None:
    """Kill a pool's workers (after an interrupt or a crash a pool is not reused)."""
    pool = _POOLS.pop(workers, None)
    if pool is not None:
        lifetime.kill_pool(pool)
        log.info("killed the pool of %d worker processes", workers)


def _close_pools() -> None:
    for pool in _POOLS.values():
        pool.shutdown(wait=True, cancel_futures=True)
    _POOLS.clear()


atexit.register(_close_pools)


def core_time(seconds: float) -> str:
    """``seconds`` of one core's time in the unit a person would use: core-hours, -days or -years."""
    hours = seconds / 3600
    if hours < 48:
        return f"about {hours:,.1f} core-hours"
    if hours < 24 * 730:
        return f"about {hours / 24:,.0f} core-days"
    return f"about {hours / (24 * 365.25):,.1f} core-years"


class RunPlan(Protocol):
    """What a backend needs of a run's spec (``batch.RunSpec``, which a dataset's extends): its size, to choose the
    number of workers, and its seats, to compile their kernels before the workers start."""

    @property
    def mode(self) -> str: ...  # "games" or "hands"

    @property
    def count(self) -> int: ...

    @property
    def n_shards(self) -> int: ...

    def seats(self) -> Sequence[Strategy]: ...


def auto_workers(spec: RunPlan) -> int:
    """In-process below ~2 s of play (a pool does not pay), else every core."""
    seconds = spec.count * SECONDS_PER_UNIT[spec.mode]
    return 1 if seconds < 2 else max(1, min(os.cpu_count() or 1, spec.n_shards))


class SerialExecutor(Executor):
    """Plays each submitted task at once, in this process: the pool-less backend, behind the same interface.

    An exception of the task is kept in its future, as a pool would; an interrupt stops the submit itself.
    """

    def submit(self, fn, /, *args, **kwargs) -> Future:
        future: Future = Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except Exception as exc:
            future.set_exception(exc)
        return future


def _nothing() -> None:
    pass


class Backend(NamedTuple):
    """Where shards are played, and how to let go of it (a tuple too: ``executor, abandon, close, name = ...``)."""

    executor: Executor
    abandon: Callable[[], None]  # after an error or an interrupt: a pool that saw one is not reused
    close: Callable[[], None]  # at the end of a run
    name: str  # for the manifest


def _local_cluster(cluster_class, workers: int):
    """A local Dask cluster that says nothing on our stderr. The workers' own log lines (cancelled tasks on Ctrl-C,
    say) would follow our one-line messages; a failure that matters reaches the driver as the task's exception. The
    scheduler's HTTP server warns when another cluster holds its port (two runs at once) and takes another one."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Port .* is already in use", category=UserWarning)
        return cluster_class(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None,
                             silence_logs=logging.CRITICAL, preload=["oklasim.runs._dask_worker"])


def make_executor(spec: RunPlan, workers: int | None, scheduler: str | None = None,
                  dask_local: int | None = None, executor: Executor | None = None) -> Backend:
    """The backend for ``workers`` local processes (1: this process), a Dask scheduler, a local Dask cluster, or
    the caller's own ``executor`` (started and shut down by the caller)."""
    compile_kernels(spec.seats())  # here, once, rather than in every worker
    if executor is not None:
        return Backend(executor, _nothing, _nothing, type(executor).__name__)
    if scheduler or dask_local is not None:
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise OklasimError("Dask is not installed: pip install 'oklasim[dask]'") from None
        if scheduler:
            try:
                client = Client(scheduler, timeout="10s")
            except OSError as exc:
                raise OklasimError(f"cannot reach the Dask scheduler at {scheduler}: {exc}") from None
            return Backend(client.get_executor(), client.close, client.close, f"dask {scheduler}")
        if dask_local < 1:
            raise OklasimError(f"--dask-local needs at least 1 worker, got {dask_local}")
        cluster = lifetime.without_interrupts(lambda: _local_cluster(LocalCluster, dask_local))
        client = Client(cluster)

        def close() -> None:
            client.close()
            cluster.close()

        def abandon() -> None:
            logging.getLogger("distributed").setLevel(logging.CRITICAL)  # its workers' last words, not ours
            close()

        return Backend(client.get_executor(), abandon, close, f"dask local x{dask_local}")
    if workers is None:
        workers = auto_workers(spec)
    if workers < 1:
        raise OklasimError(f"--workers must be at least 1, got {workers}")
    if workers == 1:
        return Backend(SerialExecutor(), _nothing, _nothing, "in-process")
    return Backend(process_pool(workers), lambda: drop_pool(workers), _nothing, f"process pool x{workers}")
