"""Preloaded into each worker of a local Dask cluster (``backends.make_executor``): the driver alone handles Ctrl-C.

The cluster is started with Ctrl-C blocked, but asyncio's runner in a Dask worker process installs its own handler
and would print a traceback of its own after our one-line message; ignoring the signal here takes it out again.
"""

import signal


def dask_setup(worker) -> None:  # noqa: ARG001 - Dask's preload hook
    signal.signal(signal.SIGINT, signal.SIG_IGN)
