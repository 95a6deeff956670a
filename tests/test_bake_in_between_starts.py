"""Where a batched bake's in-between frames start (bridge/bake/batched.py, ``hermite_starts``):
on the cubic through the anchors' solutions, which follows a curving motion between anchors
where the straight line between them cuts the corner (fewer iterations of the batch)."""

from __future__ import annotations

import numpy as np

from tests.bridge_stubs import bridge_module

batched = bridge_module("bake.batched")

KNOTS = np.array([0, 12, 24, 36, 48, 59])  # every 12th frame and the last, as the bake's


def _motion(frames: np.ndarray) -> np.ndarray:
    """(F, 2) a joint that turns at a changing rate and one that moves at a steady one."""
    t = np.asarray(frames, dtype=float)
    return np.stack([0.3 - 0.02 * t + 0.004 * t * t, 0.1 + 0.01 * t], axis=1)


def _between(lo: int, hi: int) -> np.ndarray:
    return np.array([f for f in range(lo, hi) if f not in KNOTS])


def test_a_curving_motion_is_followed_between_inner_anchors() -> None:
    """Between two inner anchors the cubic is exact for a quadratic motion (its tangents,
    the slopes between the anchors either side, are); the straight line misses by up to
    0.004 * 6 * 6 = 0.144 rad at mid-interval."""
    frames = _between(KNOTS[1] + 1, KNOTS[3])  # evenly spaced knots either side
    starts = batched.hermite_starts(KNOTS, _motion(KNOTS), frames)
    assert np.allclose(starts, _motion(frames), rtol=0.0, atol=1e-12)


def test_a_steady_motion_is_followed_everywhere() -> None:
    """A motion at a steady rate is the straight line, in the end intervals too."""
    frames = _between(1, KNOTS[-1])
    starts = batched.hermite_starts(KNOTS, _motion(KNOTS), frames)
    assert np.allclose(starts[:, 1], _motion(frames)[:, 1], rtol=0.0, atol=1e-12)


def test_every_interval_is_nearer_than_the_straight_line() -> None:
    """In the end intervals too (one-sided tangents there: 0.085 off against 0.144)."""
    frames = np.array([f for f in range(1, KNOTS[-1]) if f not in KNOTS])
    exact = _motion(frames)
    starts = batched.hermite_starts(KNOTS, _motion(KNOTS), frames)
    right = np.searchsorted(KNOTS, frames)
    a, b = KNOTS[right - 1], KNOTS[right]
    w = ((frames - a) / (b - a))[:, None]
    straight = (1.0 - w) * _motion(a) + w * _motion(b)
    assert np.abs(starts - exact).max() < 0.75 * np.abs(straight - exact).max()
