"""The scripts of ``benchmarks/`` as modules, for tests of their parts (each imports its neighbours, such as
``common``, from its own folder, as the script run does)."""

import importlib.util
import sys
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


def load_benchmark(name: str, module_name: str | None = None):
    """``benchmarks/<name>.py`` imported as ``module_name`` (its name by default), registered in ``sys.modules``
    (dataclasses look their module up there)."""
    sys.path.insert(0, str(BENCHMARKS))
    try:
        spec = importlib.util.spec_from_file_location(module_name or name, BENCHMARKS / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(BENCHMARKS))
