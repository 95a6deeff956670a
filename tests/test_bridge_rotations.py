"""The bridge's rotation helpers in closed form: coordinate-axis rotations (Rodrigues) and
the nearest rotation of a drifted matrix."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests.bridge_stubs import bridge_module

rotations = bridge_module("blender.channel_rotations")


def _rodrigues(axis: np.ndarray, angle: float) -> np.ndarray:
    k = np.array([[0.0, -axis[2], axis[1]], [axis[2], 0.0, -axis[0]], [-axis[1], axis[0], 0.0]])
    return np.eye(3) + math.sin(angle) * k + (1.0 - math.cos(angle)) * (k @ k)


@pytest.mark.parametrize("axis", [0, 1, 2])
@pytest.mark.parametrize("angle", [0.0, 0.4, -2.1, math.pi])
def test_axis_rotation_is_the_right_handed_turn_about_the_axis(axis: int, angle: float) -> None:
    expected = _rodrigues(np.eye(3)[axis], angle)
    assert np.allclose(rotations.axis_rotation(axis, angle), expected, atol=1e-15)
    assert np.allclose(rotations.axis_rotation(axis, np.float64(angle)), expected, atol=1e-15)


@pytest.mark.parametrize("axes", [[0, 1, 2], [2, 0], [1], [], [0, 0, 2, 1]])
def test_axes_rotation_is_the_product_of_the_turns_in_order(axes: list[int]) -> None:
    angles = [0.7, -1.9, 2.6, 0.2][: len(axes)]
    expected = np.eye(3)
    for axis, angle in zip(axes, angles, strict=True):
        expected = expected @ _rodrigues(np.eye(3)[axis], angle)
    assert np.allclose(rotations.axes_rotation(axes, angles), expected, atol=1e-15)


def test_orthonormalize_keeps_a_rotation_and_repairs_drift_and_reflection() -> None:
    r = rotations.axis_rotation(0, 0.3) @ rotations.axis_rotation(2, -1.1)
    assert rotations.orthonormalize(r) is r or np.array_equal(rotations.orthonormalize(r), r)
    drifted = r + 1e-4 * np.arange(9.0).reshape(3, 3)
    fixed = rotations.orthonormalize(drifted)
    assert np.allclose(fixed.T @ fixed, np.eye(3), atol=1e-12)
    assert np.isclose(np.linalg.det(fixed), 1.0) and np.abs(fixed - r).max() < 1e-3
    mirrored = rotations.orthonormalize(r @ np.diag([1.0, 1.0, -1.0]))
    assert np.isclose(np.linalg.det(mirrored), 1.0)


@pytest.mark.parametrize("j, k", [(0, 0), (1, 1), (2, 2), (0, 1), (0, 2), (1, 2)])
def test_orthonormalize_sees_drift_in_any_one_entry_of_the_gram_matrix(j: int, k: int) -> None:
    """Drift of 1e-9 in one entry of ``m^T m`` (a column's length, or two columns' angle) is
    repaired; 1e-14 (below the 1e-12 threshold) leaves the matrix as it is."""
    r = rotations.axis_rotation(1, 0.8) @ rotations.axis_rotation(0, -0.5)
    for drift, repaired in ((1e-9, True), (1e-14, False)):
        m = r.copy()
        if j == k:
            m[:, j] *= 1.0 + drift  # (m^T m)[j, j] = 1 + 2 drift
        else:
            m[:, k] += drift * r[:, j]  # (m^T m)[j, k] = drift
        out = rotations.orthonormalize(m)
        assert (out is not m) == repaired
        assert np.abs(out.T @ out - np.eye(3)).max() < (1e-12 if repaired else 1e-13)
        assert np.abs(out - r).max() < 2 * drift


def test_quaternion_continuity_needs_a_quaternion() -> None:
    with pytest.raises(ValueError, match="compatible"):
        rotations.matrix_to_quaternion(np.eye(3), np.zeros(3))


@pytest.mark.parametrize("order", ["XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX"])
def test_euler_angles_rebuild_the_matrix_on_blenders_branch(order: str) -> None:
    rng = np.random.default_rng(7)
    for _ in range(50):
        angles = rng.uniform(-math.pi, math.pi, 3)
        matrix = rotations.euler_to_matrix(angles, order)
        out = rotations.matrix_to_euler(matrix, order)
        assert np.allclose(rotations.euler_to_matrix(out, order), matrix, atol=1e-12)
        # the other decomposition (a + pi, pi - b, c + pi on the order's axes) is not smaller
        i, j, k = (rotations.AXIS_INDEX[c] for c in order)
        other = out.copy()
        other[[i, j, k]] = out[[i, j, k]] + np.array([math.pi, -2 * out[j] + math.pi, math.pi])
        other = (other + math.pi) % (2 * math.pi) - math.pi
        assert np.allclose(rotations.euler_to_matrix(other, order), matrix, atol=1e-12)
        assert np.abs(out).sum() <= np.abs(other).sum() + 1e-12
        # near a previous pose 2*pi away the angles follow it instead
        previous = out + 2.0 * math.pi
        assert np.allclose(rotations.matrix_to_euler(matrix, order, previous), previous, atol=1e-9)


def test_quaternion_of_a_matrix_and_its_sign_continuity() -> None:
    rng = np.random.default_rng(3)
    for _ in range(200):  # every branch of the decomposition (trace > 0 and each diagonal)
        q = rng.normal(size=4)
        q /= np.linalg.norm(q)
        matrix = rotations.quaternion_to_matrix(q)
        out = rotations.matrix_to_quaternion(matrix)
        assert np.isclose(np.linalg.norm(out), 1.0)
        assert np.allclose(out, q, atol=1e-12) or np.allclose(out, -q, atol=1e-12)
        assert np.allclose(rotations.matrix_to_quaternion(matrix, -q), -q, atol=1e-12)
        assert np.allclose(rotations.matrix_to_quaternion(matrix, q), q, atol=1e-12)


def test_quaternions_in_one_pass_give_each_quaternions_own_matrix_to_the_bit() -> None:
    """The batched conversion of a pose read does what ``quaternion_to_matrix`` does per
    bone, bit for bit: unnormalised, float32-rounded, zero and NaN quaternions included."""
    rng = np.random.default_rng(5)
    quaternions = rng.normal(size=(60, 4)) * rng.uniform(0.1, 3.0, size=(60, 1))
    quaternions[:20] = quaternions[:20].astype(np.float32)  # as Blender stores them
    quaternions[20] = 0.0
    quaternions[21, 2] = np.nan
    batched = rotations.quaternions_to_matrices(quaternions)
    for q, matrix in zip(quaternions, batched, strict=True):
        assert matrix.tobytes() == rotations.quaternion_to_matrix(q).tobytes()
    np.testing.assert_array_equal(batched[20], np.eye(3))  # closed form: zero is the identity
    half = math.sqrt(0.5)  # 90 degrees about Z
    np.testing.assert_allclose(
        rotations.quaternions_to_matrices(np.array([[half, 0.0, 0.0, half]]))[0],
        [[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]],
        atol=1e-15,
    )


@pytest.mark.parametrize("order", ["XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX"])
def test_euler_matrices_of_many_frames_are_each_frames_matrix(order: str) -> None:
    """The batched Euler conversion (a target's F-curves, every frame at once) gives what
    ``euler_to_matrix`` gives one frame at a time, in every order."""
    angles = np.random.default_rng(6).uniform(-7.0, 7.0, size=(300, 3))
    batched = rotations.euler_matrices(angles, order)
    expected = np.array([rotations.euler_to_matrix(a, order) for a in angles])
    np.testing.assert_allclose(batched, expected, rtol=0.0, atol=1e-15)


def test_axis_angle_matrices_of_many_frames_are_each_frames_matrix() -> None:
    """Likewise for axis-angles, a zero axis (no turn) and an unnormalised one included."""
    rng = np.random.default_rng(7)
    values = np.column_stack([rng.uniform(-7.0, 7.0, 300), rng.normal(size=(300, 3))])
    values[0, 1:] = 0.0
    values[1, 1:] *= 40.0
    batched = rotations.axis_angle_matrices(values)
    expected = np.array([rotations.axis_angle_to_matrix(v) for v in values])
    np.testing.assert_allclose(batched, expected, rtol=0.0, atol=1e-14)
    np.testing.assert_array_equal(batched[0], np.eye(3))
