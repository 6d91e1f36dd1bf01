"""Each constant once: the literals that used to be copied between modules are not, and the names defined for
them are defined in one module only."""

import re
from pathlib import Path

import pytest

import oklasim

SOURCES = {path: path.read_text() for path in Path(oklasim.__file__).parent.rglob("*.py")}


def where(pattern: str) -> list[str]:
    return sorted(str(p.relative_to(Path(oklasim.__file__).parent)) for p, text in SOURCES.items()
                  if re.search(pattern, text))


@pytest.mark.parametrize("name", ["Z95", "LIMIT_NAMES", "HANDS_PER_GAME", "TRACE_ROWS_PER_HAND",
                                  "MAX_MELDS_IN_ARRANGEMENT", "LONGEST_HAND_DRAWS"])
def test_a_named_constant_is_defined_once(name):
    assert len(where(rf"(?m)^{name} = ")) == 1, where(rf"(?m)^{name} = ")


@pytest.mark.parametrize("pattern, meaning", [
    (r"\b1\.96\b", "the normal 97.5% quantile: analysis.stats.Z95"),
    (r"MAX_ARRANGEMENTS, 4\)|V_ARRANGEMENTS \+ 4\b|C_MELDS \+ 4\b|range\(4\):", "melds per arrangement"),
    (r"0x5EED\b", "a stream salt: named in _kernels/rng_nb.py"),
    (r"seed must be a non-negative integer", "the seed check: sim.engine.stream_key"),
])
def test_no_stray_literal(pattern, meaning):
    found = where(pattern)
    allowed = {"_kernels/rng_nb.py"} if "5EED" in pattern else {"sim/engine.py"} if "seed must" in pattern else set()
    assert set(found) <= allowed, f"{meaning} written out in {found}"
