"""All numba code of oklasim.

Modules here take only ints, floats and numpy arrays, end their jitted
functions in ``_nb`` and import nothing beyond numpy and numba, so that they
compile once and are cached on disk (``cache=True``).

The cache lives in a directory keyed by numba's version and a hash of this
package's sources: numba checks only the edited file's contents, so a
cached caller in another file could otherwise keep calling stale code.
Override the root with ``OKLASIM_CACHE_DIR``. Inside it, the package's
kernels (and the shipped strategies) are filed by module name, not by the
folder they are installed in: a wheel installed in a fresh environment finds
what an earlier install of the same sources compiled.
"""

import hashlib
import os
from pathlib import Path

import numba
from numba.core import caching


def source_hash() -> str:
    """SHA-256 over every kernel source file, for cache keys and provenance."""
    digest = hashlib.sha256(numba.__version__.encode())
    for path in sorted(Path(__file__).parent.glob("*.py")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


SOURCE_HASH = source_hash()
CACHE_ROOT = Path(os.environ.get("OKLASIM_CACHE_DIR", Path.home() / ".cache" / "oklasim"))
numba.config.CACHE_DIR = str(CACHE_ROOT / f"numba-{SOURCE_HASH[:16]}")


class PackageCacheLocator(caching.UserProvidedCacheLocator):
    """Files the cache of oklasim's own functions under their package's dotted name within the cache directory,
    where numba's own locator uses a hash of the folder they are installed in. numba checks a cached function
    against its source file's contents, and its index against the function's code, so a cache found from
    another install of the same source is as fresh as one written by this install."""

    def __init__(self, py_func, py_file):
        super().__init__(py_func, py_file)
        self._cache_path = os.path.join(numba.config.CACHE_DIR, py_func.__module__.rpartition(".")[0])

    @classmethod
    def from_function(cls, py_func, py_file):
        if not (py_func.__module__ or "").startswith("oklasim."):
            return None  # a user's strategy file, loaded from a path: numba's own locators
        return super().from_function(py_func, py_file)


if PackageCacheLocator not in caching.CacheImpl._locator_classes:
    caching.CacheImpl._locator_classes.insert(0, PackageCacheLocator)
