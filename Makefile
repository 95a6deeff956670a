# Set-up is bootstrapped here: `make test` and `make demo` work on a fresh
# machine with only python3 (3.11) and make.
#
#   .venv        dev + bench + blender groups (bpy 5.0.1): the whole test suite, demo, bench
#   .venv-bpy42  blender42 group (bpy 4.2 LTS): tests/blender again, on the oldest
#                Blender the manifest supports
#   .venv-types  types group (pyright, fake-bpy-module stubs, numpy; no bpy): `make typecheck`
#
# Each venv is (re)installed when pyproject.toml changes (stamp file .installed).
PYTHON ?= python3
PIP_VERSION := 26.0.1
VENV := .venv
PY := $(VENV)/bin/python
VENV42 := .venv-bpy42
PY42 := $(VENV42)/bin/python
VENVTYPES := .venv-types
PYTYPES := $(VENVTYPES)/bin/python

.PHONY: test test-main test-bpy42 demo tube bench bench-blender lint typecheck format clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip==$(PIP_VERSION)
	$(PY) -m pip install --quiet --group dev --group bench --group blender
	touch $@

$(VENV42)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV42)
	$(PY42) -m pip install --quiet --upgrade pip==$(PIP_VERSION)
	$(PY42) -m pip install --quiet --group blender42
	touch $@

$(VENVTYPES)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENVTYPES)
	$(PYTYPES) -m pip install --quiet --upgrade pip==$(PIP_VERSION)
	$(PYTYPES) -m pip install --quiet --group types
	touch $@

# pytest exits non-zero on failures and with 5 when it collects nothing; make stops on
# the first non-zero recipe line and returns it, so an empty run cannot pass.
test: test-main test-bpy42

test-main: $(VENV)/.installed
	$(PY) -m pytest -q

test-bpy42: $(VENV42)/.installed
	$(PY42) -m pytest -q tests/blender

# The main job: headless Blender bakes 120 frames of a human rig through the operators.
demo: $(VENV)/.installed
	$(PY) -m examples.blender_demo

# The solver alone: the tube task of Zhao and Badler's Figure 3, no Blender involved.
tube: $(VENV)/.installed
	$(PY) -m examples.tube

# One BLAS thread: the solvers' small matrices gain nothing from threads, and an
# oversubscribed thread pool makes timings noisy. Applies to every peer alike (Blender's own
# IK in bench-blender is C++ and uses no BLAS).
bench: $(VENV)/.installed
	OPENBLAS_NUM_THREADS=1 $(PY) -m bench

bench-blender: $(VENV)/.installed
	OPENBLAS_NUM_THREADS=1 $(PY) -m bench.blender_bake

lint: $(VENV)/.installed
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

# Static types against Blender's API stubs; what is covered and how: [tool.pyright] in
# pyproject.toml.
typecheck: $(VENVTYPES)/.installed
	$(VENVTYPES)/bin/pyright

format: $(VENV)/.installed
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

clean:
	rm -rf $(VENV) $(VENV42) $(VENVTYPES) .pytest_cache .ruff_cache .hypothesis out dist
