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


def farthest_hand(fig: Figure, origin: np.ndarray, seed: int) -> float:
    """The farthest the hand point is from ``origin`` over 300 random poses within limits."""
    lower, upper = fig.coordinate_bounds()
    rng = np.random.default_rng(seed)
    out = 0.0
    for _ in range(300):
        frame = fig.forward(rng.uniform(np.maximum(lower, -4), np.minimum(upper, 4)))["hand"]
        hand = frame[:3, :3] @ HAND.point + frame[:3, 3]
        out = max(out, float(np.linalg.norm(hand - origin)))
    return out


def test_no_pose_puts_the_hand_beyond_the_bound() -> None:
    fig = arm()
    origin, farthest = reach(fig, fig.segment_index("hand"), HAND.point)
    assert np.array_equal(origin, ROOT) and farthest == pytest.approx(2.1)
    assert farthest_hand(fig, ROOT, seed=0) <= farthest + 1e-12


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


def torso_and_arm() -> Figure:
    """The arm of :func:`arm` (without its slide) on a jointless torso: hips at ROOT turned
    at rest, a chest above them that does not inherit rotation, a shoulder 0.4 off it."""
    fig = Figure()
    fig.add_segment("hips", translation=tuple(ROOT), rpy=(0.2, -0.4, 0.9))
    fig.add_segment("chest", parent="hips", translation=(0.0, 0.0, 1.5), rpy=(0.0, 0.3, 0.0),
                    inherit_rotation=False)  # fmt: skip
    fig.add_segment("upper", parent="chest", translation=(0.4, 0.1, 0.2), rpy=(0.1, 0.0, -0.5))
    fig.add_ball("upper")
    fig.add_segment("fore", parent="upper", translation=(1.0, 0.0, 0.0), rpy=(0.3, 0.2, 0.1))
    fig.add_revolute("fore", "z", -2.0, 2.0, name="elbow")
    fig.add_segment("hand", parent="fore", translation=(0.0, 0.8, 0.0))
    return fig


def test_the_reach_is_measured_from_the_top_moving_segment() -> None:
    """The hand's reach from the shoulder, whose place the jointless torso's rest fixes: a
    target 1.3 times the arm's length from the shoulder is out of reach (measured from the
    hips, the torso's 1.6 made it look within reach)."""
    fig = torso_and_arm()
    origin, farthest = reach(fig, fig.segment_index("hand"), HAND.point)
    assert np.allclose(origin, fig.forward()["upper"][:3, 3])
    assert farthest == pytest.approx(1.9)
    assert farthest_hand(fig, origin, seed=1) <= farthest + 1e-12
    away = origin + 1.3 * 1.9 * np.array([0.0, 0.6, 0.8])
    assert out_of_reach(fig, [Constraint(HAND, PositionGoal(away))], 1e-6)
