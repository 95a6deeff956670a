"""The bridge's rotation helpers in closed form: coordinate-axis rotations (Rodrigues) and
the nearest rotation of a drifted matrix."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests.bridge_stubs import bridge_module

rotations = bridge_module("rotations")


def _rodrigues(axis: np.ndarray, angle: float) -> np.ndarray:
    k = np.array([[0.0, -axis[2], axis[1]], [axis[2], 0.0, -axis[0]], [-axis[1], axis[0], 0.0]])
    return np.eye(3) + math.sin(angle) * k + (1.0 - math.cos(angle)) * (k @ k)


@pytest.mark.parametrize("axis", [0, 1, 2])
@pytest.mark.parametrize("angle", [0.0, 0.4, -2.1, math.pi])
def test_axis_rotation_is_the_right_handed_turn_about_the_axis(axis: int, angle: float) -> None:
    expected = _rodrigues(np.eye(3)[axis], angle)
    assert np.allclose(rotations.axis_rotation(axis, angle), expected, atol=1e-15)
    assert np.allclose(rotations.axis_rotation(axis, np.float64(angle)), expected, atol=1e-15)


def test_orthonormalize_keeps_a_rotation_and_repairs_drift_and_reflection() -> None:
    r = rotations.axis_rotation(0, 0.3) @ rotations.axis_rotation(2, -1.1)
    assert rotations.orthonormalize(r) is r or np.array_equal(rotations.orthonormalize(r), r)
    drifted = r + 1e-4 * np.arange(9.0).reshape(3, 3)
    fixed = rotations.orthonormalize(drifted)
    assert np.allclose(fixed.T @ fixed, np.eye(3), atol=1e-12)
    assert np.isclose(np.linalg.det(fixed), 1.0) and np.abs(fixed - r).max() < 1e-3
    mirrored = rotations.orthonormalize(r @ np.diag([1.0, 1.0, -1.0]))
    assert np.isclose(np.linalg.det(mirrored), 1.0)
