"""The research environment's optional dependencies, imported only when an environment is built."""

from __future__ import annotations

import importlib

from oklasim.errors import OklasimError

INSTALL = "pip install 'oklasim[rl]'"


def require(module: str):
    """Import ``module`` (gymnasium, pettingzoo) or fail with one line saying how to install it."""
    try:
        return importlib.import_module(module)
    except ImportError as missing:
        raise OklasimError(f"oklasim.env needs {module.split('.')[0]}: {INSTALL}") from missing
