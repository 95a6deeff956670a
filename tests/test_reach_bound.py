"""Goals provably out of reach: the bound holds for every pose, and only bounded goals count."""

import numpy as np
import pytest

from solver import (
    Constraint,
    Disjunction,
    EndEffector,
    Figure,
    OrientationGoal,
    PositionGoal,
    PositionOrientationGoal,
)
from solver.search.reach_bound import out_of_reach, reach

ROOT = np.array([5.0, 0.0, 1.0])


def at(*offset: float) -> np.ndarray:
    """(3,) the point ``offset`` from ROOT."""
    return ROOT + np.array(offset, dtype=float)


def arm(slide: float = 0.2) -> Figure:
    """A ball shoulder at ROOT, a 1.0 upper arm that slides by up to ``slide``, a 0.8 forearm
    rotated at rest, and a hand point 0.1 off the forearm's end: reach 1.9 + ``slide``."""
    fig = Figure()
    fig.add_segment("upper", translation=ROOT)
    fig.add_ball("upper")
    fig.add_segment("fore", parent="upper", translation=(1.0, 0.0, 0.0), rpy=(0.3, 0.2, 0.1))
    fig.add_prismatic("fore", "x", -slide, slide / 2, name="slide")
    fig.add_revolute("fore", "z", -2.0, 2.0, name="elbow")
    fig.add_segment("hand", parent="fore", translation=(0.0, 0.8, 0.0))
    return fig


HAND = EndEffector("hand", (0.0, 0.1, 0.0), x=(1, 0, 0), y=(0, 1, 0))


def test_no_pose_puts_the_hand_beyond_the_bound() -> None:
    fig = arm()
    origin, farthest = reach(fig, fig.segment_index("hand"), HAND.point)
    assert np.array_equal(origin, ROOT) and farthest == pytest.approx(2.1)
    lower, upper = fig.coordinate_bounds()
    rng = np.random.default_rng(0)
    for _ in range(300):
        frame = fig.forward(rng.uniform(np.maximum(lower, -4), np.minimum(upper, 4)))["hand"]
        hand = frame[:3, :3] @ HAND.point + frame[:3, 3]
        assert np.linalg.norm(hand - ROOT) <= farthest + 1e-12


@pytest.mark.parametrize(
    ("goal", "beyond"),
    [
        (PositionGoal(at(2.2, 0, 0)), True),
        (PositionGoal(at(0, 2.0, 0)), False),
        (PositionOrientationGoal(at(0, 0, -2.2), x=(1, 0, 0), y=(0, 1, 0)), True),
        (PositionOrientationGoal(at(0, 0, -2.2), (1, 0, 0), (0, 1, 0), 0.0), False),
        (OrientationGoal(x=(0, 0, 1)), False),
        (PositionGoal((9.0, 0.0, 0.0), carrier="upper"), False),
        (Disjunction([PositionGoal(at(3, 0, 0)), PositionGoal(at(-3, 0, 0))]), True),
        (Disjunction([PositionGoal(at(3, 0, 0)), PositionGoal(ROOT)]), False),
    ],
    ids=[
        "position beyond",
        "position within",
        "pose beyond",
        "pose with no position weight",
        "orientation",
        "carried",
        "either beyond",
        "one within",
    ],
)
def test_only_bounded_goals_beyond_the_reach_count(goal: object, beyond: bool) -> None:
    c = Constraint(HAND, goal)  # type: ignore[arg-type]
    assert out_of_reach(arm(), [c], 1e-6) is beyond


def test_a_goal_within_the_tolerance_of_the_reach_or_ignored_does_not_count() -> None:
    fig = arm()
    edge = Constraint(HAND, PositionGoal(at(2.1 + 1e-7, 0, 0)))
    assert not out_of_reach(fig, [edge], 1e-6)
    far = PositionGoal(at(3.0, 0, 0))
    assert not out_of_reach(fig, [Constraint(HAND, far, weight=0.0)], 1e-6)
    assert not out_of_reach(fig, [Constraint(HAND, far, enabled=False)], 1e-6)
    assert out_of_reach(fig, [edge, Constraint(HAND, far)], 1e-6)


def test_an_unbounded_slide_reaches_anywhere() -> None:
    fig = arm(slide=np.inf)
    assert reach(fig, fig.segment_index("hand"), HAND.point)[1] == np.inf
    assert not out_of_reach(fig, [Constraint(HAND, PositionGoal(at(1e6, 0, 0)))], 1e-6)
