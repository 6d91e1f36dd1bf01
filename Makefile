# oklasim: `make test` and `make demo` work on a bare machine with python3 and make.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install test test-fast demo bench peer clean

install: $(STAMP)

# Reinstall only when the project's dependencies change.
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	$(BIN)/oklasim compile
	touch $(STAMP)

test: install
	$(BIN)/python -m pytest -q

# Everything but the tests marked slow, for the edit-run loop.
test-fast: install
	$(BIN)/python -m pytest -q -m "not slow"

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
