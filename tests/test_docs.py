"""The examples in the docstrings run, so they stay true: every module with a ``>>>`` line is checked."""

import doctest
import importlib
from pathlib import Path

import pytest

import oklasim

PACKAGE = Path(oklasim.__file__).parent


def modules_with_examples() -> list[str]:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if ">>>" in path.read_text():
            parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
            found.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return found


def test_the_examples_are_found():
    assert {"oklasim.sim.engine", "oklasim.game.rules", "oklasim.analysis.stats"} <= set(modules_with_examples())


@pytest.mark.parametrize("name", modules_with_examples())
def test_examples(name):
    module = importlib.import_module(name)
    outcome = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert outcome.failed == 0, f"{outcome.failed} example(s) of {name} fail (printed above)"
