"""oklasim: Monte Carlo strategy analysis for Oklahoma Gin.

The public entry points are re-exported here; the numba kernels live in
``oklasim._kernels`` and take only ints and arrays.
"""

from importlib.metadata import PackageNotFoundError, version as _version

try:
    __version__ = _version("oklasim")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0+source"

__all__ = ["__version__"]
