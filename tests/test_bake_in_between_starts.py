"""Where a batched bake's in-between frames start (bridge/bake/batched.py, ``hermite_starts``):
on the cubic through the anchors' solutions, which follows a curving motion between anchors
where the straight line between them cuts the corner (fewer iterations of the batch), its
tangents the slopes of the parabolas through each anchor and its neighbours."""

from __future__ import annotations

import itertools

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


def test_a_curving_motion_is_followed_in_the_end_intervals_too() -> None:
    """The tangents at the first and last anchors (the parabola through the two nearest
    anchors too) and at the anchor before the shorter last interval (uneven neighbours) are
    exact for a quadratic motion, so every in-between frame starts on it; with the slope of
    the end interval as the end tangent the first interval missed by 0.085 rad, and on the
    demo 3 frames of its end intervals took a third iteration of the batch (a fourth pass)."""
    frames = np.array([f for f in range(1, KNOTS[-1]) if f not in KNOTS])
    starts = batched.hermite_starts(KNOTS, _motion(KNOTS), frames)
    assert np.allclose(starts, _motion(frames), rtol=0.0, atol=1e-12)


def test_two_anchors_give_the_straight_line() -> None:
    """A bake of up to 13 frames has the first frame and the last as its only anchors: no
    parabola through three, the straight line between them."""
    knots = np.array([0, 9])
    values = _motion(knots)
    frames = np.arange(1, 9)
    w = (frames / 9.0)[:, None]
    expected = (1.0 - w) * values[0] + w * values[1]
    assert np.allclose(batched.hermite_starts(knots, values, frames), expected, atol=1e-12)


def test_every_interval_is_nearer_than_the_straight_line() -> None:
    """For a motion no parabola follows (a sine, a radian every 20 frames), every interval's
    cubic is nearer than its straight line."""

    def wave(t: np.ndarray) -> np.ndarray:
        return np.sin(np.asarray(t, dtype=float) / 20.0)[:, None]

    frames = np.array([f for f in range(1, KNOTS[-1]) if f not in KNOTS])
    exact = wave(frames)
    starts = batched.hermite_starts(KNOTS, wave(KNOTS), frames)
    right = np.searchsorted(KNOTS, frames)
    a, b = KNOTS[right - 1], KNOTS[right]
    w = ((frames - a) / (b - a))[:, None]
    straight = (1.0 - w) * wave(a) + w * wave(b)
    for lo, hi in itertools.pairwise(KNOTS):
        inside = (frames > lo) & (frames < hi)
        assert np.abs(starts - exact)[inside].max() < np.abs(straight - exact)[inside].max()
