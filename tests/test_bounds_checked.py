"""The tests that call kernels directly, run again with numba's bounds checking on.

The kernels run unchecked for speed: an index past an array there reads or writes whatever lies beyond it, and a
write into the heap may show only much later, if at all (a test's board one row short crashed LLVM at the
interpreter's exit, after every test had passed; the advisor wrote its forced answers past a parameter matrix with
no columns, run after run, with nothing to show for it). Checked, the same index raises IndexError in the test that
made it. The checked kernels are cached apart
(``boundscheck/`` under the cache root): numba does not key its cache on the check.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from oklasim._kernels import CACHE_ROOT

pytestmark = pytest.mark.slow

TESTS = Path(__file__).resolve().parent
KERNEL_CALL = re.compile(r"\b\w+_nb\(")


def kernel_test_files() -> list[str]:
    """The test files that call a kernel (a function named ``*_nb``) themselves, on arrays they build."""
    here = Path(__file__).resolve()
    return sorted(str(p) for p in TESTS.glob("test_*.py") if p != here and KERNEL_CALL.search(p.read_text()))


def test_the_kernel_tests_pass_with_bounds_checking():
    files = kernel_test_files()
    assert str(TESTS / "test_search.py") in files and str(TESTS / "test_advise_repeats.py") in files
    env = {**os.environ, "NUMBA_BOUNDSCHECK": "1", "OKLASIM_CACHE_DIR": str(CACHE_ROOT / "boundscheck")}
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-m", "not slow", "-p", "no:cacheprovider", *files],
                          env=env, capture_output=True, text=True, timeout=3600, cwd=TESTS.parent)
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
