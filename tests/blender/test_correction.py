"""``bridge.solve.correction.Corrector``: the accelerated goal shift of the correction passes,
checked on closed-form discrepancies (no scene needed beyond the installed extension)."""

from __future__ import annotations

import importlib
from types import ModuleType

import numpy as np


def _corrector(extension: ModuleType) -> object:
    return importlib.import_module(f"{extension.__name__}.bridge.solve.correction").Corrector()


def test_first_step_is_the_plain_map(extension: ModuleType) -> None:
    corrector = _corrector(extension)
    x, target = np.array([1.0, 2.0, 3.0]), np.array([1.5, 1.0, 3.25])
    assert np.array_equal(corrector._step(("c", 0), x, target), target)


def test_linear_discrepancy_is_solved(extension: ModuleType) -> None:
    """Blender's effector is ``p_b = M x + d`` for a model reaching ``x``: the plain map
    contracts only by ``|I - M|`` per pass; Broyden reaches the root ``M x* + d = g`` in a
    few passes (at most 2n = 6 steps for a linear map in exact arithmetic)."""
    rng = np.random.default_rng(3)
    m = np.eye(3) * 0.5 + 0.2 * rng.standard_normal((3, 3))  # a half-influence override
    d, g = rng.standard_normal(3), np.array([0.3, -0.2, 1.1])
    root = np.linalg.solve(m, g - d)
    corrector, x = _corrector(extension), g.copy()
    for _ in range(7):
        blender = m @ x + d
        x = corrector._step(("c", 0), x, g + (x - blender))  # p_model = x: the model reaches x
    assert np.linalg.norm(x - root) < 1e-9
    assert np.linalg.norm(m @ x + d - g) < 1e-9
