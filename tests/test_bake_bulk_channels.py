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
