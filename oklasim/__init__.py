"""oklasim: Monte Carlo strategy analysis for Oklahoma Gin.

The public entry points are re-exported here, loaded on first use so that
``import oklasim`` stays cheap (no numba, polars or kernels until needed)::

    import oklasim
    oklasim.simulate(oklasim.Rules.preset("pagat"), ["simple", "greedy"], games=1000, seed=1)
    oklasim.match("asap", "gin_only", hands=10_000)

The numba kernels live in ``oklasim._kernels`` and take only ints and arrays.
"""

from importlib import import_module
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as _version

try:
    __version__ = _version("oklasim")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0+source"


def lazy_exports(package: str, exports: dict[str, str]):
    """``__getattr__`` and ``__dir__`` for ``package``, which re-exports names of its modules (``exports``: name ->
    module below ``package``) imported when first used, so that importing the package itself stays cheap."""
    namespace = vars(import_module(package))

    def __getattr__(name: str):
        if name not in exports:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(f"{package}.{exports[name]}"), name)
        namespace[name] = value  # later look-ups skip this function
        return value

    def __dir__() -> list[str]:
        return sorted(namespace.get("__all__", exports))

    return __getattr__, __dir__


# public name -> the module that defines it
__getattr__, __dir__ = lazy_exports(__name__, {
    "Rules": "game.rules",
    "simulate": "sim.engine",
    "play_situation": "sim.engine",
    "match": "analysis.match",
    "tournament": "analysis.match",
    "RunSpec": "runs.batch",
    "run": "runs.batch",
    "resolve": "strategies.registry",
    "parse_card": "game.cards",
    "parse_hand": "game.cards",
    "format_hand": "game.cards",
})

__all__ = ["__version__", "Rules", "simulate", "play_situation", "match", "tournament", "RunSpec", "run", "resolve",
           "parse_card", "parse_hand", "format_hand"]
