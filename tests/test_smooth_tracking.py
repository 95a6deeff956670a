"""Smooth tracking on seed 001's Fig. 1 arm: the hand crosses just under, then over the shoulder.

The arm and path are :mod:`bench.smooth_tracking`'s (the benchmark measures the same
example): upper arm and forearm 0.3, elbow flexing one way up to 3.12 rad, the hand target
moving up a vertical line 0.002 in front of the shoulder, 0.03 per frame.
"""

import math

import numpy as np
import pytest

from bench.smooth_tracking import crossing_path, hand, shoulder_arm, track
from solver import Constraint, EndEffector, PositionGoal, Solver

BOUND = 0.5  # radians per frame


def test_the_unbounded_track_flips_the_elbow_at_the_crossing() -> None:
    """Every frame is reached, so the shoulder swings through its range in one frame:
    2.88 rad (0.92 pi) between the frames just under and just over the shoulder."""
    path = crossing_path()
    run = track(path)
    assert run.reached.all()
    crossing = int(np.flatnonzero(path[:, 2] > 0.0)[0])  # first frame over the shoulder
    assert int(np.argmax(run.steps)) + 1 == crossing
    assert run.steps.max() > 0.9 * math.pi
    assert np.delete(run.steps, crossing - 1).max() < 0.15  # elsewhere it moves smoothly


def test_the_bounded_track_keeps_every_step_within_the_bound_and_recovers() -> None:
    """With ``max_change`` 0.5 rad no frame moves a joint by more; the tip falls behind at
    the crossing (worst 0.091) and reaches the target again 6 frames later: the fewest that
    a swing of 2.88 rad at 0.5 rad per frame allows (ceil(2.88 / 0.5) = 6)."""
    path = crossing_path()
    free = track(path)
    run = track(path, BOUND)
    assert run.steps.max() <= BOUND * (1.0 + 1e-9)
    assert run.steps.max() >= BOUND * (1.0 - 1e-9)  # the bound did hold
    crossing = int(np.flatnonzero(path[:, 2] > 0.0)[0])
    missed = np.flatnonzero(~run.reached)
    assert missed[0] == crossing
    swing = free.steps.max()
    assert run.recovery() == math.ceil(swing / BOUND) == 6
    assert run.reached[crossing + run.recovery() :].all()
    assert 0.05 < run.errors.max() < 0.1
    # a frame held by the bound that misses is reported missed, never reached
    assert (run.held[~run.reached]).all()
    assert not run.reached[run.errors > 1e-3].any()


def test_a_held_frame_reports_the_bound_that_holds_it() -> None:
    """The frame just over the shoulder, solved from the pose just under it: the result is
    not a success, and its message and active set name the step bound."""
    path = crossing_path()
    crossing = int(np.flatnonzero(path[:, 2] > 0.0)[0])
    fig = shoulder_arm()
    goal = PositionGoal(path[crossing - 1])
    ik = Solver(fig, [Constraint(EndEffector("forearm", (0.0, 0.0, -0.3)), goal, name="hand")])
    under = ik.solve(np.array([0.0, -1.0]))
    assert under.success
    goal.point = path[crossing]
    result = ik.solve(under.x, options=ik.options.replace(max_change=BOUND))
    assert not result.success
    assert result.restarts == 0  # skipped: the bound, not a local minimum, holds the pose
    assert "shoulder change <= 0.5 (max_change)" in result.active_set
    assert "held by" in result.message
    assert "shoulder change <= 0.5 (max_change)" in result.message
    assert abs(result.x[0] - under.x[0]) == pytest.approx(BOUND, abs=1e-12)
    assert np.linalg.norm(hand(fig, result.x) - path[crossing]) > 0.02


def test_damped_least_squares_one_step_per_frame_keeps_within_its_step_limit() -> None:
    """Way (b) of the benchmark: ``lambda = |e| / (2 s)`` (eq. 18) bounds each frame's step
    by ``s`` whatever the conditioning, so it never flips (largest change 0.106 rad)."""
    options: dict[str, object] = {"method": "dls", "step_limit": BOUND, "max_iterations": 1}
    run = track(crossing_path(), None, {**options, "restarts": 0})
    assert run.steps.max() <= BOUND
    assert run.steps.max() < 0.2
