# The two commands: `make run` and `make test`. Both create .venv when it is missing.
# More: `make test-stress` (the suite under a CPU hog, random order, three times), `make
# test-deep` (property tests with fresh examples, ten times as many), `make test-versions` (the
# tests on each supported Python, 3.11, 3.12 and 3.13, each in a venv of its own), `make bench`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
HOST ?= 127.0.0.1
PORT ?= 8000
# pytest-xdist workers: two per core, since many tests wait (for a server they started, a
# browser, PostgreSQL's commits) while another could run: the suite took 433 s with 4 workers on
# 2 cores against 488 s with 2. PYTEST_WORKERS=0 runs in one process. An idle worker takes
# tests from a busy one (worksteal): the slow tests do not pile up at the end.
PYTEST_WORKERS ?= $(shell $(PYTHON) -c "import os; print(2 * (os.cpu_count() or 1))")
# Every run the same order (pytest-randomly off); test-stress shuffles.
PYTEST_RUN := $(BIN)/python -m pytest -n $(PYTEST_WORKERS) --dist worksteal -p no:randomly --durations=20

.PHONY: run test lint typecheck pytest test-stress test-deep test-versions bench screenshots clean

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

# The package compiled first: every worker and every `referee` process a test starts reads its
# bytecode, even where PYTHONDONTWRITEBYTECODE keeps Python from writing it (0.25 s less CPU for
# each process that imports the service).
pytest: $(STAMP)
	$(BIN)/python -m compileall -q -j 0 src
	$(PYTEST_RUN) $(PYTEST_ARGS)

test: lint typecheck pytest

# The whole suite under a CPU hog on every core, in random order (pytest-randomly), three
# times; each run and the hog are bounded in time. STRESS_ARGS: e.g. --runs 1 --minutes 30.
test-stress: $(STAMP)
	$(BIN)/python .ci/stress.py $(STRESS_ARGS) -- $(PYTEST_ARGS)

# Property tests draw fresh examples, REFEREE_TEST_DEPTH times as many (tests/depth.py).
test-deep: $(STAMP)
	REFEREE_TEST_DEPTH=$${REFEREE_TEST_DEPTH:-10} $(PYTEST_RUN) $(PYTEST_ARGS)

# The tests (`make pytest`) on each supported Python, each in a venv of its own, .venv-X.Y
# (git-ignored), then one line per version: passed or FAILED, with pytest's counts. PYTHONS: the
# interpreters (names on PATH or paths; by default python3.11, python3.12 and python3.13). One
# that is not there, or does not run, is skipped with a line saying so; with CI=true that fails
# the target when PYTHONS named it. Lint and typecheck do not depend on the interpreter: `make
# test` runs them. PYTEST_ARGS and PYTEST_WORKERS apply to every version.
SUPPORTED_PYTHONS := python3.11 python3.12 python3.13
PYTHONS ?=

test-versions:
	@named="$(PYTHONS)"; status=0; ran=0; report=""; \
	for py in $${named:-$(SUPPORTED_PYTHONS)}; do \
	  if ! version=$$("$$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null); then \
	    if [ -n "$$named" ] && [ "$$CI" = true ]; then line="$$py: not found or does not run: FAILED (PYTHONS names it)"; status=1; \
	    else line="$$py: not found or does not run: skipped"; fi; \
	  else \
	    venv=.venv-$$version; mkdir -p "$$venv"; ran=1; \
	    echo "== Python $$version ($$py) in $$venv"; \
	    ( $(MAKE) --no-print-directory pytest PYTHON="$$py" VENV="$$venv"; echo $$? >"$$venv/pytest.rc" ) 2>&1 \
	      | tee "$$venv/pytest.log"; \
	    counts=$$(grep -E '[0-9]+ (passed|failed|errors?)' "$$venv/pytest.log" | tail -n 1); \
	    if [ "$$(cat "$$venv/pytest.rc")" = 0 ]; then line="Python $$version ($$py): passed: $$counts"; \
	    else line="Python $$version ($$py): FAILED: $${counts:-see $$venv/pytest.log}"; status=1; fi; \
	  fi; \
	  echo "== $$line"; report="$$report== $$line\n"; \
	done; \
	if [ $$ran = 0 ]; then report="$$report== no supported Python found: FAILED\n"; status=1; fi; \
	printf "== test-versions\n%b" "$$report"; exit $$status

# Rewrites docs/screenshots/*.png from the browser tests (`make test` never writes them).
screenshots: $(STAMP)
	REFEREE_SCREENSHOTS=docs/screenshots $(BIN)/python -m pytest -q -m browser tests

bench: $(STAMP)
	for f in benchmarks/bench_*.py; do $(BIN)/python $$f || exit 1; done

clean:
	rm -rf $(VENV) .venv-3.* .mypy_cache .pytest_cache .ruff_cache build src/*.egg-info
