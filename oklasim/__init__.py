"""oklasim: Monte Carlo strategy analysis for Oklahoma Gin.

The public entry points are re-exported here, loaded on first use so that
``import oklasim`` stays cheap (no numba, polars or kernels until needed)::

    import oklasim
    oklasim.simulate(oklasim.Rules.preset("pagat"), ["simple", "greedy"], games=1000, seed=1)
    oklasim.match("asap", "gin_only", hands=10_000)

The numba kernels live in ``oklasim._kernels`` and take only ints and arrays.
"""

import sys
from importlib import import_module
from types import ModuleType
from importlib.metadata import PackageNotFoundError, version as _version

try:
    __version__ = _version("oklasim")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0+source"

# public name -> the module that defines it
_EXPORTS = {
    "Rules": "rules",
    "simulate": "engine",
    "play_situation": "engine",
    "match": "match",
    "tournament": "match",
    "RunSpec": "batch",
    "run": "batch",
    "resolve": "strategy",
    "parse_card": "cards",
    "parse_hand": "cards",
    "format_hand": "cards",
}

__all__ = ["__version__", *_EXPORTS]


def __getattr__(name: str):
    if name not in _EXPORTS:
        raise AttributeError(f"module 'oklasim' has no attribute {name!r}")
    value = getattr(import_module(f".{_EXPORTS[name]}", __name__), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(__all__)


class _Package(ModuleType):
    """Keeps ``oklasim.match`` the function: importing the submodule of the same name would otherwise bind
    the module over it (submodules stay reachable as ``sys.modules["oklasim.match"]`` and by import)."""

    def __setattr__(self, name: str, value) -> None:
        if name in _EXPORTS and isinstance(value, ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
