"""The armature's world matrix as the model sees it: the similarity test, closed form cases.

``similarity_scale`` is the test ``M^T M = s^2 I`` on a 3x3 matrix; the cases below have
known answers (a rotation or reflection times ``s`` passes with ``s``; a non-uniform scale
and a shear with equal column lengths fail).
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.bridge_stubs import bridge_module

object_frame = bridge_module("object_frame")


def _rotation(axis: tuple[float, float, float], angle: float) -> np.ndarray:
    k = np.asarray(axis, dtype=float) / np.linalg.norm(axis)
    cross = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + np.sin(angle) * cross + (1 - np.cos(angle)) * cross @ cross


@pytest.mark.parametrize("scale", [0.01, 1.0, 250.0])
@pytest.mark.parametrize("reflect", [(1, 1, 1), (-1, 1, 1), (-1, -1, 1), (-1, -1, -1)])
def test_rotations_and_reflections_times_a_scale_pass(scale: float, reflect: tuple) -> None:
    m = scale * _rotation((0.3, -0.5, 0.8), 1.1) @ np.diag(reflect)
    assert object_frame.similarity_scale(m) == pytest.approx(scale, rel=1e-12)


def test_a_non_uniform_scale_fails() -> None:
    assert object_frame.similarity_scale(np.diag([1.0, 1.0 + 1e-3, 1.0])) is None


def test_a_shear_with_equal_columns_fails() -> None:
    u = np.ones(3) / np.sqrt(3.0)
    m = np.eye(3) + u[:, None] * u[None, :]  # R diag(2, 1, 1) R^T, R's X on u
    norms = np.linalg.norm(m, axis=0)
    assert np.ptp(norms) < 1e-15  # a check on column lengths alone would pass it
    assert object_frame.similarity_scale(m) is None


def test_single_precision_round_off_passes() -> None:
    m = (3.0 * _rotation((1.0, 2.0, 0.5), 0.7)).astype(np.float32).astype(float)
    assert object_frame.similarity_scale(m) == pytest.approx(3.0, rel=1e-6)
