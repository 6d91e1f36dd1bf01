"""Every ```python block of the README and of the docs site runs as written, each in a fresh interpreter in an empty
folder (with the files its page asks the reader to save): an example that breaks fails the suite."""

import subprocess
import sys

import pytest
from doc_pages import PAGES, blocks, name, write_files

EXAMPLES = [(page, index) for page in PAGES for index, _ in enumerate(blocks(page, "python"))]


def test_the_examples_are_found():
    assert len(EXAMPLES) >= 6 and any(page.name == "README.md" for page, _ in EXAMPLES)


@pytest.mark.parametrize(("page", "index"), EXAMPLES, ids=[f"{name(p)}-{i}" for p, i in EXAMPLES])
def test_example_runs(page, index, tmp_path):
    write_files(page, tmp_path)
    code = blocks(page, "python")[index]
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{name(page)}, Python example {index + 1}:\n{code}\n{done.stderr[-2000:]}"
