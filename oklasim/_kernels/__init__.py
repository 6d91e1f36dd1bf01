"""All numba code of oklasim.

Modules here take only ints, floats and numpy arrays, end their jitted
functions in ``_nb`` and import nothing beyond numpy and numba, so that they
compile once and are cached on disk (``cache=True``).

The cache lives in a directory keyed by numba's version and a hash of this
package's sources: numba checks only the edited file's timestamp, so a
cached caller in another file could otherwise keep calling stale code.
Override the root with ``OKLASIM_CACHE_DIR``.
"""

import hashlib
import os
from pathlib import Path

import numba


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
