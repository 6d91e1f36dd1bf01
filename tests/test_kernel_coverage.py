"""The kernel tests run again in plain Python (NUMBA_DISABLE_JIT=1), measuring the kernels' line coverage.

Compiled code is invisible to coverage; in plain Python every kernel line is
an ordinary line. The run fails if a kernel test fails in plain Python or the
coverage of the game kernels (all but advise's, which ``tests/test_advise.py``
runs compiled) falls below ``MIN_COVERAGE``; ``pytest -rP`` prints the report
of every kernel module. The kernel tests marked slow (digests of
a million hands) and most hypothesis examples are left to the compiled run,
which keeps this one to a few minutes.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
KERNEL_TESTS = ["tests/test_melds.py", "tests/test_engine.py", "tests/test_cards.py", "tests/test_kit.py"]
# The advisor's and the research env's kernels have their own tests; this measure is the game kernels'.
ADVISE_KERNELS = "*/_kernels/advise_*,*/_kernels/mc_nb.py,*/_kernels/env_*"
MIN_COVERAGE = 85  # percent of the game kernels' lines (measured 2026-12-01: 93)


@pytest.mark.slow
def test_kernels_in_plain_python_with_coverage(tmp_path):
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    data = ["--data-file", str(tmp_path / ".coverage")]
    pytest_args = ["-q", "-p", "no:cacheprovider", "-m", "not slow", "--hypothesis-profile", "plain_python",
                   "-W", "ignore:overflow encountered:RuntimeWarning"]  # uint64 streams wrap on purpose
    run = [sys.executable, "-m", "coverage", "run", *data, "--source", "oklasim._kernels", "-m", "pytest",
           *pytest_args, *KERNEL_TESTS]
    tests = subprocess.run(run, cwd=ROOT, env=env, capture_output=True, text=True)
    assert tests.returncode == 0, tests.stdout[-3000:] + tests.stderr[-3000:]
    report = [sys.executable, "-m", "coverage", "report", *data]
    print(subprocess.run(report, cwd=ROOT, capture_output=True, text=True).stdout)
    game = subprocess.run([*report, "--omit", ADVISE_KERNELS, "--fail-under", str(MIN_COVERAGE)], cwd=ROOT,
                          capture_output=True, text=True)
    assert game.returncode == 0, game.stdout + game.stderr
