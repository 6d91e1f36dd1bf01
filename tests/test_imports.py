"""No import circle: every module of the package imports on its own, first, in a fresh interpreter.

A circle (A imports B at the top, B imports A) fails only when the import starts at the right module, so
each module is imported first once: one child interpreter forgets every ``oklasim`` module between them.
"""

import pkgutil
import subprocess
import sys

import pytest

import oklasim


def modules() -> list[str]:
    return [m.name for m in pkgutil.walk_packages(oklasim.__path__, "oklasim.")]


CHILD = """
import importlib, sys, traceback
failed = []
for name in sys.argv[1:]:
    for loaded in [m for m in sys.modules if m == "oklasim" or m.startswith("oklasim.")]:
        del sys.modules[loaded]
    try:
        importlib.import_module(name)
    except Exception:
        failed.append(name + ": " + traceback.format_exc(limit=-1).strip().splitlines()[-1])
print("\\n".join(failed))
sys.exit(1 if failed else 0)
"""


@pytest.mark.slow  # ~40 s: every module and the kernels it loads, imported afresh
def test_every_module_imports_alone():
    names = modules()
    assert "oklasim.studies.experiment" in names and "oklasim.studies.spec" in names  # the walk found the package
    done = subprocess.run([sys.executable, "-c", CHILD, *names], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"modules that fail to import first:\n{done.stdout}{done.stderr[-2000:]}"


def test_a_circle_is_caught(tmp_path):
    """The check above fails on a circle: two modules importing each other at the top."""
    package = tmp_path / "circle_demo"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from .b import B\nA = 1\n")
    (package / "b.py").write_text("from .a import A\nB = 2\n")
    child = CHILD.replace('"oklasim"', '"circle_demo"').replace('"oklasim."', '"circle_demo."')
    done = subprocess.run([sys.executable, "-c", child, "circle_demo.a", "circle_demo.b"], capture_output=True,
                          text=True, timeout=60, cwd=tmp_path)
    assert done.returncode == 1 and "circle_demo.a" in done.stdout and "circle_demo.b" in done.stdout
