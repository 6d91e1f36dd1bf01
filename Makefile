# oklasim: `make test` and `make demo` work on a bare machine with python3 and make.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install test test-fast demo docs bench peer clean

install: $(STAMP)

# Reinstall only when the project's dependencies change.
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	$(BIN)/oklasim compile
	touch $(STAMP)

# The web page's browser tests need the system's chromium and chromedriver: installed here when missing and we are
# root (CI's bare Debian machine); elsewhere those tests skip themselves with the reason.
test: install
	@command -v chromium >/dev/null && command -v chromedriver >/dev/null || \
		{ [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null && \
		  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver; } || \
		echo "make test: no chromium/chromedriver (not root): the browser tests will be skipped"
	$(BIN)/python -m pytest -q

# Everything but the tests marked slow, for the edit-run loop.
test-fast: install
	$(BIN)/python -m pytest -q -m "not slow"

# The documentation site, into site/ (ignored by git). --strict: any warning (a broken link or anchor, a page left out
# of the navigation, an API reference that no longer resolves) is an error. `make test` builds it too
# (tests/test_docs.py), and runs every example of the README and the site (tests/test_readme.py,
# tests/test_doc_examples.py).
docs: install
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --site-dir site

# A real, small study end to end: the "when to knock" grid on a quick sample, and its report.
demo: install
	$(BIN)/oklasim run knock_thresholds --quick

# The optional public peer (OpenSpiel) for side-by-side benchmarks.
peer: install
	$(BIN)/python -m pip install --quiet -e '.[test,peer]'

bench: install
	$(BIN)/python benchmarks/bench_deadwood.py
	$(BIN)/python benchmarks/bench_engine.py
	$(BIN)/python benchmarks/bench_simulate.py

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
