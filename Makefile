# Ludothek: two commands set up a fresh machine.
#   make run   - create .venv, install, start the main job
#   make test  - create .venv, install, run every test
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: run test bench lint setup browser clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

setup: $(STAMP)

run: $(STAMP)
	$(VENV)/bin/ludothek serve

test: $(STAMP)
	$(PY) -m ludothek.devtools.services
	$(PY) -m pytest $(PYTEST_ARGS)

bench: $(STAMP)
	$(PY) -m benchmarks

lint: $(STAMP)
	$(VENV)/bin/ruff check ludothek tests benchmarks
	$(VENV)/bin/mypy

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
