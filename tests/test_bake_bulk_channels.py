"""Quaternion channels of many frames at once (``bridge/bake/bulk_channels.py``) without
Blender: the per-frame conversion's numbers, sign continuity included."""

from __future__ import annotations

import numpy as np

from tests.bridge_stubs import bridge_module
from tests.solver_checks import random_rotation

bulk = bridge_module("bake.bulk_channels")
rotations = bridge_module("blender.channel_rotations")


def _one_by_one(matrices: np.ndarray, first: np.ndarray) -> np.ndarray:
    out, last = [], first
    for m in matrices:
        last = rotations.matrix_to_quaternion(m, last)
        out.append(last)
    return np.array(out)


def test_quaternions_of_many_frames_are_the_per_frame_ones():
    """Random rotations (every branch of the conversion: positive trace, each diagonal
    entry largest) and a slow turn through a half-turn, whose quaternion sign must be kept
    from frame to frame."""
    rng = np.random.default_rng(4)
    scattered = np.array([random_rotation(rng) for _ in range(200)])
    angles = np.linspace(0.0, 2.5 * np.pi, 90)
    turning = np.array([rotations.axes_rotation([0, 2], [a, 0.3 * a]) for a in angles])
    for matrices in (scattered, turning):
        for first in (np.array([1.0, 0.0, 0.0, 0.0]), np.array([-0.5, 0.5, -0.5, 0.5])):
            expected = _one_by_one(matrices, first)
            assert np.allclose(bulk.quaternions(matrices, first), expected, atol=1e-12)
    traces = np.trace(scattered, axis1=1, axis2=2)
    largest = np.argmax(np.diagonal(scattered, axis1=1, axis2=2), axis=1)
    assert (traces > 0).any() and {0, 1, 2} <= set(largest[traces <= 0].tolist())


def test_revolutes_of_many_frames_are_the_per_frame_products():
    rng = np.random.default_rng(5)
    angles = rng.uniform(-3.0, 3.0, (50, 3))
    stacked = np.broadcast_to(np.eye(3), (50, 3, 3))
    for axis in (2, 0, 1):
        stacked = bulk._turned(stacked, axis, angles[:, axis])
    for f in range(50):
        one = rotations.axes_rotation([2, 0, 1], angles[f, [2, 0, 1]])
        assert np.allclose(stacked[f], one, atol=1e-14)


def _eulers_one_by_one(matrices: np.ndarray, order: str, first: np.ndarray) -> np.ndarray:
    out, last = [], first
    for m in matrices:
        last = rotations.matrix_to_euler(m, order, last)
        out.append(last)
    return np.array(out)


def test_euler_angles_of_many_frames_are_the_per_frame_ones():
    """Every order: random rotations (either decomposition nearest), a turn past a half-turn
    about each axis (angles carried on past pi, not wrapped back), and rotations at gimbal
    lock (the middle angle at +-90 degrees), from a start several turns away."""
    rng = np.random.default_rng(6)
    scattered = np.array([random_rotation(rng) for _ in range(100)])
    angles = np.linspace(0.0, 3.5 * np.pi, 80)
    for order in ("XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX"):
        middle = rotations.AXIS_INDEX[order[1]]
        turning = np.array(
            [rotations.euler_to_matrix(np.array([a, 0.1, -0.2]), order) for a in angles]
        )
        wound = _eulers_one_by_one(turning, order, np.zeros(3))[:, 0]
        assert np.ptp(wound) > 3 * np.pi  # carried on past pi, not wrapped back
        locked = np.zeros((20, 3))
        locked[:, middle] = np.pi / 2 * np.sign(np.linspace(-1, 1, 20) + 1e-3)
        locked[:, (middle + 1) % 3] = np.linspace(-2.0, 2.0, 20)
        gimbal = np.array([rotations.euler_to_matrix(e, order) for e in locked])
        for matrices in (scattered, turning, gimbal):
            for first in (np.zeros(3), np.array([4 * np.pi, -2 * np.pi + 0.3, 7.0])):
                expected = _eulers_one_by_one(matrices, order, first)
                assert np.allclose(bulk.eulers(matrices, order, first), expected, atol=1e-12)


def test_quaternions_of_several_bones_at_once_are_each_bones_own():
    """A leading axis over bones: each bone's frames converted, and its signs kept, as
    that bone's alone (a bone whose start has the other sign flips all of its frames)."""
    rng = np.random.default_rng(8)
    angles = np.linspace(0.0, 2.5 * np.pi, 40)
    bones = np.array(
        [[rotations.axes_rotation([axis, 1], [a, 0.2 * a]) for a in angles] for axis in (0, 2)]
        + [[random_rotation(rng) for _ in angles]]
    )
    firsts = np.array([[1.0, 0.0, 0.0, 0.0], [-1.0, 0.0, 0.0, 0.0], [0.5, -0.5, 0.5, 0.5]])
    together = bulk.quaternions(bones, firsts)
    assert together.shape == (3, 40, 4)
    for bone, first, got in zip(bones, firsts, together, strict=True):
        assert np.array_equal(got, bulk.quaternions(bone, first))
        assert np.allclose(got, _one_by_one(bone, first), atol=1e-12)
