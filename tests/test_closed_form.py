"""Solutions checked against closed forms.

The 2-link planar reach follows seed 002 (eqs. 13-16): with link lengths
l1, l2 and target (x, y), cos(b) = (x^2 + y^2 - l1^2 - l2^2) / (2 l1 l2) and
a = atan2(y, x) - atan2(l2 sin b, l1 + l2 cos b), two elbow solutions +-b.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solver import (
    AimGoal,
    Constraint,
    Disjunction,
    EndEffector,
    Figure,
    HalfSpaceGoal,
    LineGoal,
    OrientationGoal,
    PlaneGoal,
    PositionGoal,
    Status,
    solve,
)

L1, L2 = 1.0, 0.7


def planar_arm(l1: float = L1, l2: float = L2) -> Figure:
    """Two links in the xy plane; joints ``a`` (shoulder) and ``b`` (elbow)."""
    fig = Figure()
    fig.add_segment("upper")
    fig.add_revolute("upper", (0, 0, 1), name="a")
    fig.add_segment("lower", parent="upper", translation=(l1, 0.0, 0.0))
    fig.add_revolute("lower", (0, 0, 1), name="b")
    return fig


def two_link_solution(x: float, y: float, elbow: float) -> tuple[float, float]:
    """Law of cosines; ``elbow`` = +1 or -1 picks the branch."""
    cos_b = (x * x + y * y - L1 * L1 - L2 * L2) / (2.0 * L1 * L2)
    b = elbow * np.arccos(np.clip(cos_b, -1.0, 1.0))
    a = np.arctan2(y, x) - np.arctan2(L2 * np.sin(b), L1 + L2 * np.cos(b))
    return a, b


def wrap(angle: float) -> float:
    return float((angle + np.pi) % (2.0 * np.pi) - np.pi)


def tip_constraint(target: tuple[float, float, float]) -> Constraint:
    return Constraint(EndEffector("lower", (L2, 0.0, 0.0)), PositionGoal(target), name="tip")


@settings(max_examples=30, deadline=None)
@given(
    radius=st.floats(0.45, 1.6),
    heading=st.floats(-np.pi, np.pi),
    elbow=st.sampled_from([1.0, -1.0]),
    noise=st.tuples(st.floats(-0.25, 0.25), st.floats(-0.25, 0.25)),
)
def test_two_link_reach_matches_law_of_cosines(radius, heading, elbow, noise) -> None:
    """Started near one elbow solution, the solver lands on that solution."""
    x, y = radius * np.cos(heading), radius * np.sin(heading)
    a, b = two_link_solution(x, y, elbow)
    fig = planar_arm()
    result = solve(fig, [tip_constraint((x, y, 0.0))], initial=np.array([a, b]) + noise)
    assert result.success
    q = result.values()
    assert wrap(q["a"] - a) == pytest.approx(0.0, abs=1e-4)
    assert wrap(q["b"] - b) == pytest.approx(0.0, abs=1e-4)


def test_both_elbow_solutions_depend_on_the_start() -> None:
    fig = planar_arm()
    target = (1.1, 0.6, 0.0)
    up = solve(fig, [tip_constraint(target)], initial=np.array([0.0, 1.0]))
    down = solve(fig, [tip_constraint(target)], initial=np.array([1.0, -1.0]))
    assert up.values()["b"] == pytest.approx(two_link_solution(1.1, 0.6, 1.0)[1], abs=1e-4)
    assert down.values()["b"] == pytest.approx(two_link_solution(1.1, 0.6, -1.0)[1], abs=1e-4)


@settings(max_examples=20, deadline=None)
@given(distance=st.floats(1.8, 4.0), heading=st.floats(-3.0, 3.0))
def test_unreachable_target_straightens_the_chain(distance, heading) -> None:
    """Out of reach: the arm points at the target, residual = distance - reach."""
    target = (distance * np.cos(heading), distance * np.sin(heading), 0.0)
    fig = planar_arm()
    result = solve(fig, [tip_constraint(target)], initial=np.array([0.3, 0.4]), restarts=0)
    assert not result.success
    assert result.status != Status.GOAL_REACHED
    q = result.values()
    assert wrap(q["b"]) == pytest.approx(0.0, abs=1e-3)
    assert wrap(q["a"] - heading) == pytest.approx(0.0, abs=1e-3)
    (residual,) = result.residuals
    assert residual.distance == pytest.approx(distance - (L1 + L2), abs=1e-5)


def ball() -> Figure:
    fig = Figure()
    fig.add_segment("head", translation=(0.2, -0.1, 1.5))
    fig.add_ball("head")
    return fig


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_orientation_only_goal(seed) -> None:
    """Eq. (9) with both directions: the effector frame turns onto the goal frame."""
    rng = np.random.default_rng(seed)
    # Keep the goal within ~100 degrees of the start to stay clear of gimbal lock.
    axis = rng.normal(size=3)
    axis /= np.linalg.norm(axis)
    angle = rng.uniform(0.1, 1.7)
    k = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    goal_frame = np.eye(3) + np.sin(angle) * k + (1 - np.cos(angle)) * k @ k
    fig = ball()
    effector = EndEffector("head", x=(1, 0, 0), y=(0, 1, 0))
    goal = OrientationGoal(x=goal_frame[:, 0], y=goal_frame[:, 1])
    result = solve(fig, [Constraint(effector, goal, name="turn")])
    assert result.success
    rotation = fig.forward(result.x)["head"][:3, :3]
    assert np.allclose(rotation, goal_frame, atol=np.radians(0.01) * 1.5)
    (residual,) = result.residuals
    assert residual.angle <= 0.01


def test_orientation_goal_with_suppressed_direction_leaves_roll_free() -> None:
    """y = None: only x is aligned; a rigid roll would cost nothing, so nothing else moves."""
    fig = ball()
    goal = OrientationGoal(x=(0.0, 1.0, 0.0), y=None)
    result = solve(fig, [Constraint(EndEffector("head", x=(1, 0, 0)), goal, name="point")])
    assert result.success
    x_axis = fig.forward(result.x)["head"][:3, 0]
    assert np.allclose(x_axis, (0.0, 1.0, 0.0), atol=1e-4)


def test_aim_goal_points_the_ray_through_the_target() -> None:
    """Eq. (13): the ray from the eye along x passes through the target."""
    fig = ball()
    eye = np.array([0.1, 0.0, 0.05])
    target = np.array([1.0, 2.0, 0.3])
    effector = EndEffector("head", point=eye, x=(1, 0, 0))
    result = solve(fig, [Constraint(effector, AimGoal(target), name="look")])
    assert result.success
    frame = fig.forward(result.x)["head"]
    origin = frame[:3, :3] @ eye + frame[:3, 3]
    to_target = (target - origin) / np.linalg.norm(target - origin)
    assert np.degrees(np.arccos(np.clip(frame[:3, 0] @ to_target, -1, 1))) <= 0.01


def slider_arm() -> Figure:
    """A 3-DOF prismatic base carrying a point: reaches anything, linear in q."""
    fig = Figure()
    fig.add_segment("base")
    for k, axis in enumerate(np.eye(3)):
        fig.add_prismatic("base", axis, -2.0, 2.0, name=f"t{k}")
    return fig


def test_plane_goal_projects_onto_the_plane() -> None:
    """Eq. (18): the point moves straight onto the plane (shortest motion in q)."""
    fig = slider_arm()
    normal = np.array([1.0, 2.0, 2.0]) / 3.0
    goal = PlaneGoal((0.3, 0.1, 0.2), normal)
    result = solve(fig, [Constraint(EndEffector("base"), goal, name="plane")])
    point = fig.forward(result.x)["base"][:3, 3]
    assert abs((point - [0.3, 0.1, 0.2]) @ normal) <= 1e-5
    assert np.allclose(np.cross(point, normal), 0.0, atol=1e-5)  # moved along the normal


def test_line_goal_puts_the_point_on_the_line() -> None:
    """Eq. (16): the point lands on the line at the foot of the perpendicular."""
    fig = slider_arm()
    p, d = np.array([0.5, -0.2, 0.1]), np.array([0.0, 0.6, 0.8])
    result = solve(fig, [Constraint(EndEffector("base"), LineGoal(p, d), name="line")])
    point = fig.forward(result.x)["base"][:3, 3]
    foot = p + ((-p) @ d) * d
    assert np.allclose(point, foot, atol=1e-5)


def test_half_space_goal_is_inactive_inside_and_pulls_from_outside() -> None:
    """Eq. (20): zero inside; from outside the point reaches the boundary plane."""
    fig = slider_arm()
    normal = np.array([0.0, 0.0, 1.0])
    inside = solve(fig, [Constraint(EndEffector("base"), HalfSpaceGoal((0, 0, -1), normal))])
    assert inside.status == Status.GOAL_REACHED
    assert np.array_equal(inside.x, fig.neutral())
    outside = solve(fig, [Constraint(EndEffector("base"), HalfSpaceGoal((0, 0, 0.5), normal))])
    z = fig.forward(outside.x)["base"][2, 3]
    assert z >= 0.5 - 1e-5
    assert outside.success


def test_disjunction_keeps_a_point_outside_a_cube() -> None:
    """Eq. (27): the min over the outward half-spaces of a cube's faces keeps out.

    A weak goal pulls the point to the cube's centre; the strong disjunction
    keeps it on the surface (without the disjunction it would go to the centre).
    """
    fig = slider_arm()
    centre, half = np.array([0.6, 0.2, 0.1]), 0.25
    faces = []
    for axis in np.eye(3):
        for sign in (1.0, -1.0):
            faces.append(HalfSpaceGoal(centre + sign * half * axis, sign * axis))
    effector = EndEffector("base")
    pull = Constraint(effector, PositionGoal(centre), weight=1.0, name="pull")
    keep_out = Constraint(effector, Disjunction(faces), weight=1e4, name="keep out")
    result = solve(fig, [pull, keep_out])
    point = fig.forward(result.x)["base"][:3, 3]
    outside = np.max(np.abs(point - centre)) - half  # >= 0 outside the cube
    assert outside >= -half / 1e4 * 1.5
    assert np.linalg.norm(point - centre) <= half * np.sqrt(3) + 1e-6
    alone = solve(fig, [pull])
    assert np.allclose(fig.forward(alone.x)["base"][:3, 3], centre, atol=1e-5)


def two_arms() -> Figure:
    """Two planar 2-link arms on one base, shoulders 1 apart: joints l1, l2 and r1, r2."""
    fig = Figure()
    fig.add_segment("base")
    for side, x in (("l", -0.5), ("r", 0.5)):
        fig.add_segment(f"{side}_upper", parent="base", translation=(x, 0.0, 0.0))
        fig.add_revolute(f"{side}_upper", (0, 0, 1), name=f"{side}1")
        fig.add_segment(f"{side}_lower", parent=f"{side}_upper", translation=(0.0, 0.6, 0.0))
        fig.add_revolute(f"{side}_lower", (0, 0, 1), name=f"{side}2")
    return fig


def test_goal_carried_by_a_segment_closes_a_loop() -> None:
    """A goal point on the left hand pulls the right hand to it; both chains move (§5 carrier)."""
    fig = two_arms()
    goal = PositionGoal((0.0, 0.6, 0.0), carrier="l_lower")  # the left fingertip
    c = Constraint(EndEffector("r_lower", (0.0, 0.6, 0.0)), goal, name="hands meet")
    result = solve(fig, [c], initial=np.array([0.1, 0.2, -0.1, -0.2]))
    assert result.success
    frames = fig.forward(result.x)
    left = frames["l_lower"][:3, :3] @ [0, 0.6, 0] + frames["l_lower"][:3, 3]
    right = frames["r_lower"][:3, :3] @ [0, 0.6, 0] + frames["r_lower"][:3, 3]
    assert np.linalg.norm(left - right) <= 1e-5
    q = result.values()
    assert abs(q["l1"] - 0.1) + abs(q["l2"] - 0.2) > 1e-2, "the carrier's chain did not move"
    assert abs(q["r1"] + 0.1) + abs(q["r2"] + 0.2) > 1e-2
    # By symmetry of the start and of the arms, both hands meet on the mid-plane.
    assert abs(left[0]) <= 1e-4


def test_chain_root_limits_which_joints_move() -> None:
    """With chain_root at the lower segment only the elbow may move (§10)."""
    fig = planar_arm()
    c = Constraint(
        EndEffector("lower", (L2, 0, 0)), PositionGoal((1.2, 0.5, 0)), chain_root="lower"
    )
    result = solve(fig, [c])
    assert result.values()["a"] == 0.0
    assert not result.success  # the elbow alone sweeps a circle that misses the target


@pytest.mark.parametrize("tolerance", [1e-2, 1e-4, 1e-7])
def test_distance_tolerance_is_honoured(tolerance: float) -> None:
    fig = planar_arm()
    result = solve(fig, [tip_constraint((0.9, 0.8, 0.0))], tolerance=tolerance)
    assert result.status == Status.GOAL_REACHED
    (residual,) = result.residuals
    assert residual.distance <= tolerance


def test_neutral_pose_is_zero_clipped_into_the_limits() -> None:
    fig = Figure()
    fig.add_segment("a")
    fig.add_revolute("a", (0, 0, 1), 0.2, 1.0, name="up")
    fig.add_revolute("a", (0, 1, 0), -1.0, -0.3, name="down")
    fig.add_prismatic("a", (1, 0, 0), -1.0, 1.0, name="free")
    assert np.allclose(fig.neutral(), (0.2, -0.3, 0.0))
