"""The pages a reader copies examples from (the README and every page of the docs site) and their code blocks."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
# A block preceded by this comment is a file the page asks the reader to save (a strategy file), not a script to run.
FILE_MARK = re.compile(r"<!-- file: ([\w.-]+) -->\s*\n```python\n(.*?)```", re.S)


def name(page: Path) -> str:
    return str(page.relative_to(ROOT))


def blocks(page: Path, language: str) -> list[str]:
    """The page's ```LANGUAGE blocks, in order, without the files it asks the reader to save."""
    text = FILE_MARK.sub("", page.read_text())
    return re.findall(rf"^```{language}\n(.*?)^```", text, re.S | re.M)


def files(page: Path) -> dict[str, str]:
    """The files the page asks the reader to save, by name."""
    return dict(FILE_MARK.findall(page.read_text()))


def write_files(page: Path, folder: Path) -> None:
    for file_name, text in files(page).items():
        (folder / file_name).write_text(text)


def commands(page: Path) -> list[str]:
    """The oklasim commands of every ```sh block, continuation lines joined, comments dropped, ``&&`` split."""
    found = []
    for block in blocks(page, "sh"):
        for line in block.replace("\\\n", " ").splitlines():
            line = re.sub(r"\s+#.*$", "", line).strip()
            found += [part.strip() for part in line.split("&&") if part.strip().startswith("oklasim ")]
    return found
