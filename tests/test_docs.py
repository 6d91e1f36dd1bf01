"""The examples in the docstrings run, so they stay true: every module with a ``>>>`` line is checked. The docs site
builds with every warning an error, offline, and shows the package's version, as ``oklasim --version`` does."""

import doctest
import importlib
import os
import re
import subprocess
import sys
from importlib import metadata
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


# The documentation site (mkdocs.yml, docs/): it builds with every warning an error, offline, and shows the version.

ROOT = PACKAGE.parent


def test_the_site_builds_strictly_and_shows_the_version(tmp_path):
    """``mkdocs build --strict`` as ``make docs`` runs it: a broken link or anchor between pages, a page left out of
    the navigation or an API reference that no longer resolves fails the suite."""
    pytest.importorskip("mkdocs")
    pytest.importorskip("mkdocstrings")
    site = tmp_path / "site"
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)], cwd=ROOT,
                          capture_output=True, text=True, timeout=600, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert done.returncode == 0, done.stderr[-3000:]
    assert f"oklasim {oklasim.__version__}" in (site / "index.html").read_text()
    rules_title = (ROOT / "seeds" / "RULES.md").read_text().splitlines()[0].lstrip("# ")
    assert rules_title in (site / "rules" / "index.html").read_text(), "seeds/RULES.md was not included"


def test_the_site_fetches_nothing():
    """No web fonts, no social cards or privacy plugin downloads, no external inventories."""
    config = (ROOT / "mkdocs.yml").read_text()
    assert "font: false" in config
    assert not re.search(r"^\s*-\s*(social|privacy|optimize)\b", config, re.M)
    assert "import:" not in config and "http" not in config


def test_the_version_option_prints_the_package_version():
    done = subprocess.run([sys.executable, "-m", "oklasim.cli", "--version"], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.split() == ["oklasim,", "version", metadata.version("oklasim")]
