"""Suite-wide checks."""

import os

import pytest
from hypothesis import settings
from processes import descendants, wait_for

from oklasim.runs import backends

# No time limit per example (hypothesis' default is 200 ms): the suite runs on loaded machines, and the first
# example of a kernel's property compiles the kernel.
settings.register_profile("suite", deadline=None)
settings.load_profile("suite")
# A few examples per property: for the kernels run in plain Python (tests/test_kernel_coverage.py).
settings.register_profile("plain_python", max_examples=10, deadline=None)

# multiprocessing's servers: idle, they exit when the test process does (their pipes close).
SERVERS = ("multiprocessing.forkserver import main", "multiprocessing.resource_tracker import main")


@pytest.fixture(scope="session", autouse=True)
def no_process_left_behind():
    """After the whole suite, no worker, cluster or command it started is still running."""
    yield
    backends._close_pools()

    def workers() -> dict[int, str]:
        below = descendants(os.getpid())
        servers = {pid for pid, args in below.items() if any(s in args for s in SERVERS)}
        # the servers themselves may stay until exit; anything they or the tests started may not
        return {pid: args for pid, args in below.items() if pid not in servers}

    assert wait_for(lambda: not workers(), 20), f"processes left behind: {workers()}"
