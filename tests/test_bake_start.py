"""Where a baked frame's solve starts (:mod:`bridge.bake.start`): the last motion continued
on the coordinates whose parametrisation held, nothing otherwise."""

from __future__ import annotations

import numpy as np

from tests.bridge_stubs import bridge_module

bake_start = bridge_module("bake.start")


def test_a_steady_motion_is_continued_exactly() -> None:
    starts = bake_start.MotionStart()
    velocity = np.array([0.1, -0.2, 0.05])
    x = np.array([0.3, 0.4, -0.1])
    plain = x.copy()
    starts.record(plain, x, solved=False)  # the first frame: from rest, no motion passed on
    assert np.array_equal(starts.start(x), x)
    for step in range(3):  # each frame solves to the pose moved on by one step
        plain = x.copy()
        expected = plain if step == 0 else plain + velocity  # no motion known before step 1
        assert np.allclose(starts.start(plain), expected, atol=1e-15)
        solution = x + velocity
        starts.record(plain, solution, solved=True)
        x = solution
    # after a solved frame the next start is the last solution plus the last step
    assert np.allclose(starts.start(x), x + velocity, atol=1e-15)


def test_a_coordinate_whose_start_changed_starts_plain() -> None:
    starts = bake_start.MotionStart()
    starts.record(np.zeros(3), np.array([0.1, 0.2, 0.3]), solved=True)
    # coordinate 1 was relinearised (its plain start is no longer the last solution)
    plain = np.array([0.1, 0.0, 0.3])
    assert np.allclose(starts.start(plain), [0.2, 0.0, 0.6])
    # within round-off of the last solution it still counts as unchanged
    plain = np.array([0.1 + 0.5 * bake_start.SAME, 0.2, 0.3])
    assert np.allclose(starts.start(plain), [0.2, 0.4, 0.6])


def test_an_unsolved_frame_passes_no_motion_on() -> None:
    starts = bake_start.MotionStart()
    starts.record(np.zeros(2), np.ones(2), solved=True)
    starts.record(np.ones(2), np.array([5.0, 5.0]), solved=False)  # e.g. goals missed
    assert np.array_equal(starts.start(np.array([5.0, 5.0])), [5.0, 5.0])


def test_a_different_coordinate_count_starts_plain() -> None:
    starts = bake_start.MotionStart()
    starts.record(np.zeros(2), np.ones(2), solved=True)
    plain = np.array([1.0, 1.0, 0.0])
    assert np.array_equal(starts.start(plain), plain)
