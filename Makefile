# Set-up is bootstrapped here: `make test` and `make demo` work on a fresh
# machine with only python3 (3.11) and make.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python

.PHONY: test demo bench lint format clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip==26.0.1
	$(PY) -m pip install --quiet --group dev --group bench
	touch $@

test: $(VENV)/.installed
	$(PY) -m pytest -q

demo: $(VENV)/.installed
	$(PY) -m examples.tube

bench: $(VENV)/.installed
	$(PY) -m bench

lint: $(VENV)/.installed
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

format: $(VENV)/.installed
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis out dist
