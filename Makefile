# Ludothek: two commands set up a fresh machine.
#   make run   - create .venv, install, start the main job
#   make test  - create .venv, install, run every test
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
# make run HOST=0.0.0.0 PORT=8080 (WORKERS=2 for several server processes, with LUDOTHEK_REDIS set;
# BOT_WORKERS=N bot worker processes, started and stopped with the server)
HOST    ?= 127.0.0.1
PORT    ?= 8000
WORKERS ?= 1
BOT_WORKERS ?= $(or $(LUDOTHEK_BOT_WORKERS),2)

.PHONY: run test bench probe lint setup browser clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev,research]'
	touch $(STAMP)

setup: $(STAMP)

run: $(STAMP)
	$(VENV)/bin/ludothek serve --host $(HOST) --port $(PORT) --workers $(WORKERS) --bot-workers $(BOT_WORKERS)

test: $(STAMP)
	$(PY) -m ludothek.devtools.services
	$(PY) -m pytest $(PYTEST_ARGS)

bench: $(STAMP)
	$(PY) -m benchmarks

# The security regression probe (docs/operations.md): PROBE_ARGS="--full" for the issue's scale.
probe: $(STAMP)
	$(PY) -m benchmarks.probe_security $(PROBE_ARGS)

lint: $(STAMP)
	$(VENV)/bin/ruff check ludothek tests benchmarks
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports
	$(PY) -m ludothek.devtools.textcheck

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
