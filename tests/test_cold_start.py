"""A first run on an empty kernel cache: what must not compile does not, and what compiles says so at once.

Importing any module of the package compiles nothing (kernels of a fixed signature compile at their first call,
``lazy_njit``; a strategy's kernel when it is first played), so ``--help``, ``rules`` and a listing of the
strategies answer at once; ``oklasim compile`` does every kernel ahead, on every core.
"""

import os
import subprocess
import sys
import threading
from pathlib import Path

import numba
import pexpect
import pytest
from numba import int64

from oklasim._kernels.linking import LazyDispatcher, lazy_njit
from oklasim.runs.compiling import kernel_modules, units
from oklasim.strategies.registry import families, resolve

OKLASIM = [sys.executable, "-m", "oklasim.cli"]
COUNT_COMPILES = """
import importlib, pkgutil, sys
from numba.core import event
compiled = []
class Count(event.Listener):
    def on_start(self, ev): compiled.append(ev.data["dispatcher"].py_func.__qualname__)
    def on_end(self, ev): pass
event.register("numba:compile", Count())
import oklasim
for info in pkgutil.walk_packages(oklasim.__path__, "oklasim."):
    if not info.name.endswith("__main__"):
        importlib.import_module(info.name)
from oklasim.strategies.registry import families, resolve
for name in families():
    resolve(name)  # a name resolved, not played
print(",".join(compiled))
"""


def cold(tmp_path: Path) -> dict:
    return {**os.environ, "OKLASIM_CACHE_DIR": str(tmp_path / "cache")}


def cached_files(tmp_path: Path) -> list[Path]:
    return list((tmp_path / "cache").rglob("*.nbi"))


def test_importing_every_module_and_resolving_every_family_compiles_nothing(tmp_path):
    done = subprocess.run([sys.executable, "-c", COUNT_COMPILES], env=cold(tmp_path), capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "", f"compiled at import: {done.stdout}"
    assert not cached_files(tmp_path)


@pytest.mark.parametrize("args", [["--help"], ["rules"], ["rules", "pagat"], ["strategies"], ["run", "--list"],
                                  ["match", "--help"], ["advise", "--help"], ["play", "--help"], ["agent", "--help"],
                                  ["simulate", "--help"], ["tune", "--help"], ["compile", "--help"]])
def test_help_rules_and_listings_compile_nothing(tmp_path, args):
    done = subprocess.run([*OKLASIM, *args], env=cold(tmp_path), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "compiling" not in done.stderr and not cached_files(tmp_path)


def test_the_first_compiling_command_says_so_at_once_on_a_terminal(tmp_path):
    """On a terminal the notice comes before the answer, then the count of kernels compiled. The running count is
    rewritten in place (``\\r``) every second while the kernels compile; the last one ends its line once the answer
    is out. A slow machine only makes the wait longer (the timeout is a safety net)."""
    child = pexpect.spawn(OKLASIM[0], [*OKLASIM[1:], "deadwood", "2h 3h 4h 7s 7d 7h Jc Qc Kc 5d 9s"],
                          env=cold(tmp_path), encoding="utf-8", timeout=900)
    child.expect("compiling the game kernels once")
    child.expect(f"cached in {tmp_path / 'cache'}")
    child.expect("deadwood  14 with no discard")
    child.expect(r"compiled (\d+) kernels in \d+ s\r?\n")
    assert int(child.match.group(1)) > 0
    child.expect(pexpect.EOF)
    again = subprocess.run([*OKLASIM, "deadwood", "2h 3h 4h 7s 7d 7h Jc Qc Kc 5d 9s"], env=cold(tmp_path),
                           capture_output=True, text=True, timeout=120)
    assert again.returncode == 0 and again.stderr == ""  # cached: nothing to say


def test_elsewhere_the_notice_goes_to_the_log(tmp_path):
    quiet = subprocess.run([*OKLASIM, "deadwood", "2h 3h 4h 7s 7d 7h Jc Qc Kc 5d"], env=cold(tmp_path), capture_output=True, text=True,
                           timeout=240)
    assert quiet.returncode == 0 and quiet.stderr == ""  # a pipe: the output stays clean
    (tmp_path / "cache").rename(tmp_path / "old")
    logged = subprocess.run([*OKLASIM, "-v", "deadwood", "2h 3h 4h 7s 7d 7h Jc Qc Kc 5d"], env=cold(tmp_path), capture_output=True,
                            text=True, timeout=240)
    assert "oklasim: compiling the game kernels once" in logged.stderr
    assert "oklasim: compiled" in logged.stderr


@lazy_njit(int64(int64))
def _plus_one(n):
    return n + 1


def test_a_lazy_kernel_compiles_once_at_first_call_even_from_racing_threads():
    assert isinstance(_plus_one, LazyDispatcher) and not _plus_one.signatures  # nothing at import
    results, errors = [], []

    def call():
        try:
            results.append(_plus_one(41))
        except Exception as exc:  # noqa: BLE001 - any failure of a racing thread is the test's failure
            errors.append(exc)

    threads = [threading.Thread(target=call) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors and results == [42] * 8
    assert _plus_one(2.0) == 3  # converted to the one signature, as with njit(signature): no second compile
    assert _plus_one.signatures == [(int64,)]


def test_a_strategy_compiles_when_played_and_a_broken_one_says_why(tmp_path):
    (tmp_path / "broken.py").write_text(
        "from oklasim.strategy_api import Family, decide_kernel\n"
        "FAMILY = Family(name='broken', doc='does not type')\n"
        "@decide_kernel()\n"
        "def decide_nb(kind, view, params):\n"
        "    return view + 'x'\n"
    )
    paths = (str(tmp_path),)
    assert "broken" in families(paths)  # listed without compiling
    strategy = resolve("broken", extra_paths=paths)  # resolved without compiling
    if numba.config.DISABLE_JIT:
        return
    with pytest.raises(ValueError, match=r"broken.py: decide_nb does not compile: "):
        strategy.decide  # noqa: B018 - playing it compiles


def test_compile_units_put_the_families_first_and_the_linking_ones_last():
    waves = units()
    first, last = waves
    assert sorted(last) == [("family", "mc"), ("family", "search")]  # they link simple, greedy and expert: after them
    assert first[0] == ("family", "expert")  # the longest compilation starts first
    assert {("kernels", name) for name in kernel_modules()} <= set(first)
    assert {name for kind, name in first + last if kind == "family"} == set(families())
    assert "oklasim._kernels.engine_nb" in kernel_modules()


def test_compiling_a_family_unit_leaves_its_kernel_in_the_cache(tmp_path):
    code = ("from oklasim.runs.compiling import compile_unit; compile_unit(('family', 'random')); "
            "compile_unit(('kernels', 'oklasim._kernels.advise_columns_nb'))")
    done = subprocess.run([sys.executable, "-c", code], env=cold(tmp_path), capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    names = {path.name.split("-")[0] for path in cached_files(tmp_path)}
    assert "random.decide_nb" in names and "advise_columns_nb.candidates_nb" in names, names
