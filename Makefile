# The two commands: `make run` and `make test`. Both create .venv when it is missing.
# More: `make test-stress` (the suite under a CPU hog, random order, three times), `make
# test-deep` (property tests with fresh examples, ten times as many), `make bench`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
HOST ?= 127.0.0.1
PORT ?= 8000
# pytest-xdist workers: one per core ("auto"); PYTEST_WORKERS=0 runs in one process. An idle
# worker takes tests from a busy one (worksteal): the slow tests do not pile up at the end.
PYTEST_WORKERS ?= auto
# Every run the same order (pytest-randomly off); test-stress shuffles.
PYTEST_RUN := $(BIN)/python -m pytest -n $(PYTEST_WORKERS) --dist worksteal -p no:randomly --durations=20

.PHONY: run test lint typecheck pytest test-stress test-deep bench screenshots clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# Reinstall only when the project's metadata changed (editable install: code changes need nothing).
$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[all,dev]"
	touch $(STAMP)

# Starts the referee service (HTTP API, chat endpoint, web console) with an SQLite database.
run: $(STAMP)
	$(BIN)/referee serve --host $(HOST) --port $(PORT)

# ruff, and the import contracts of docs/architecture.md ([tool.importlinter] in pyproject.toml).
lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks tools .ci
	$(BIN)/ruff format --check src tests benchmarks tools .ci
	$(BIN)/lint-imports --no-cache

typecheck: $(STAMP)
	$(BIN)/mypy

pytest: $(STAMP)
	$(PYTEST_RUN) $(PYTEST_ARGS)

test: lint typecheck pytest

# The whole suite under a CPU hog on every core, in random order (pytest-randomly), three
# times; each run and the hog are bounded in time. STRESS_ARGS: e.g. --runs 1 --minutes 30.
test-stress: $(STAMP)
	$(BIN)/python .ci/stress.py $(STRESS_ARGS) -- $(PYTEST_ARGS)

# Property tests draw fresh examples, REFEREE_TEST_DEPTH times as many (tests/depth.py).
test-deep: $(STAMP)
	REFEREE_TEST_DEPTH=$${REFEREE_TEST_DEPTH:-10} $(PYTEST_RUN) $(PYTEST_ARGS)

# Rewrites docs/screenshots/*.png from the browser tests (`make test` never writes them).
screenshots: $(STAMP)
	REFEREE_SCREENSHOTS=docs/screenshots $(BIN)/python -m pytest -q -m browser tests

bench: $(STAMP)
	for f in benchmarks/bench_*.py; do $(BIN)/python $$f || exit 1; done

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache build src/*.egg-info
