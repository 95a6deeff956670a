"""The analytic two-bone limb: closed-form checks, joint values, the warm start on figures."""

import math

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
    InvalidInputError,
    PositionGoal,
    PositionOrientationGoal,
    Solver,
)
from solver.methods.joint_angles import (
    axis_rotation,
    ball_angles,
    hinge_angle,
    is_ball,
    joint_rotation,
    nearest_turn,
)
from solver.methods.two_bone import limb_points, two_bone

# ------------------------------------------------------------------ pure geometry


def random_unit(rng: np.random.Generator) -> np.ndarray:
    v = rng.normal(size=3)
    return v / np.linalg.norm(v)


def random_reach(seed: int, margin: float) -> tuple[np.ndarray, float, float, float, np.ndarray]:
    """A root, bone lengths, a reachable distance (``margin`` inside the reach), a target."""
    rng = np.random.default_rng(seed)
    root = rng.normal(size=3)
    upper, lower = rng.uniform(0.05 + margin, 3.0, size=2)
    reach = rng.uniform(abs(upper - lower) + margin, upper + lower - margin)
    return root, upper, lower, reach, root + reach * random_unit(rng)


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_both_solutions_put_the_tip_on_a_reachable_target(seed: int) -> None:
    root, upper, lower, reach, target = random_reach(seed, 0.0)
    pole = np.random.default_rng(seed + 1).normal(size=3)
    poses = two_bone(root, target, upper, lower, pole)
    for pose in poses:
        middle, tip = limb_points(root, pose.rotation, pose.bend, upper, lower)
        assert np.abs(tip - target).max() < 1e-12
        assert np.abs(middle - pose.middle).max() < 1e-12
        assert np.abs(tip - pose.tip).max() < 1e-12
        assert np.allclose(pose.rotation.T @ pose.rotation, np.eye(3), atol=1e-12)
        assert np.linalg.det(pose.rotation) > 0.0
    # The bend is the law of cosines' (seed 002, eq. 15-16 in 3D), +beta then -beta.
    cos_inner = (upper**2 + lower**2 - reach**2) / (2.0 * upper * lower)
    beta = math.pi - math.acos(np.clip(cos_inner, -1.0, 1.0))
    assert poses[0].bend == pytest.approx(beta, abs=1e-9)
    assert poses[1].bend == pytest.approx(-beta, abs=1e-9)


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_the_middle_joint_lies_in_the_pole_plane_on_either_side(seed: int) -> None:
    root, upper, lower, reach, target = random_reach(seed, 0.05)
    pole = np.random.default_rng(seed + 1).normal(size=3)
    line = (target - root) / reach
    across = pole - line * (line @ pole)  # the pole's part across the root-target line
    normal = np.cross(line, across)
    first, mirrored = two_bone(root, target, upper, lower, pole)
    for pose in (first, mirrored):
        assert abs((pose.middle - root) @ normal) < 1e-12 * np.linalg.norm(normal) * 10
    assert (first.middle - root) @ across > 0.0
    assert (mirrored.middle - root) @ across < 0.0
    # Mirror images across the root-target line.
    foot = root + line * (line @ (first.middle - root))
    assert np.allclose(first.middle - foot, -(mirrored.middle - foot), atol=1e-12)


@pytest.mark.parametrize(("upper", "lower"), [(1.0, 0.6), (0.6, 1.0)])
def test_a_target_beyond_reach_gets_the_straight_limb_pointing_at_it(
    upper: float, lower: float
) -> None:
    root, target = np.array([0.2, -0.1, 0.3]), np.array([2.0, 1.0, -1.0])
    line = (target - root) / np.linalg.norm(target - root)
    for pose in two_bone(root, target, upper, lower, (0.0, 0.0, 1.0)):
        assert pose.bend == 0.0
        assert np.allclose(pose.middle, root + upper * line, atol=1e-14)
        assert np.allclose(pose.tip, root + (upper + lower) * line, atol=1e-14)


@pytest.mark.parametrize(("upper", "lower"), [(1.0, 0.6), (0.6, 1.0)])
def test_a_target_too_near_gets_the_folded_limb_with_its_tip_towards_it(
    upper: float, lower: float
) -> None:
    root = np.array([0.2, -0.1, 0.3])
    direction = np.array([1.0, 2.0, -2.0]) / 3.0
    target = root + 0.1 * direction  # nearer than |upper - lower| = 0.4
    for pose in two_bone(root, target, upper, lower, (0.0, 0.0, 1.0)):
        assert abs(abs(pose.bend) - math.pi) < 1e-12
        assert np.allclose(pose.tip, root + 0.4 * direction, atol=1e-12)
        assert np.linalg.norm(pose.middle - root) == pytest.approx(upper)


def test_a_pole_along_the_target_line_still_gives_two_mirrored_solutions() -> None:
    root, target = np.zeros(3), np.array([0.0, 1.2, 0.0])
    first, mirrored = two_bone(root, target, 1.0, 0.8, (0.0, 5.0, 0.0))
    assert np.allclose(first.tip, target, atol=1e-12)
    assert np.allclose(mirrored.tip, target, atol=1e-12)
    assert np.allclose(first.middle[[0, 2]], -mirrored.middle[[0, 2]], atol=1e-12)
    assert np.linalg.norm(first.middle[[0, 2]]) > 0.1


@pytest.mark.parametrize(
    ("argument", "args"),
    [
        ("root", ((np.nan, 0, 0), (1, 0, 0), 1.0, 1.0, (0, 0, 1))),
        ("target", ((0, 0, 0), (1, 0), 1.0, 1.0, (0, 0, 1))),
        ("upper", ((0, 0, 0), (1, 0, 0), 0.0, 1.0, (0, 0, 1))),
        ("lower", ((0, 0, 0), (1, 0, 0), 1.0, -2.0, (0, 0, 1))),
        ("pole", ((0, 0, 0), (1, 0, 0), 1.0, 1.0, (0, np.inf, 1))),
    ],
)
def test_bad_input_names_the_argument(argument: str, args: tuple) -> None:
    with pytest.raises(InvalidInputError, match=argument):
        two_bone(*args)


# ------------------------------------------------------------------ joint values

ORDERS = [(i, j, k) for i in range(3) for j in range(3) for k in range(3) if i != j and j != k]


@pytest.mark.parametrize("order", ORDERS)
def test_ball_angles_rebuild_any_rotation_in_every_euler_order(order: tuple) -> None:
    rng = np.random.default_rng(sum(order))
    axes = np.eye(3)[list(order)] * rng.choice([-1.0, 1.0], size=(3, 1))
    assert is_ball(axes)
    for _ in range(50):
        wanted = joint_rotation(axes, rng.uniform(-np.pi, np.pi, size=3))
        branches = ball_angles(axes, wanted, 0.3)
        assert len(branches) == 2
        for q in branches:
            assert np.abs(joint_rotation(axes, q) - wanted).max() < 1e-12
        assert not np.allclose(branches[0], branches[1])


def test_ball_angles_at_gimbal_lock_keep_the_held_first_angle() -> None:
    axes = np.eye(3)
    wanted = joint_rotation(axes, np.array([0.4, math.pi / 2, -0.7]))
    for q in ball_angles(axes, wanted, 1.1):
        assert q[0] == 1.1
        assert np.abs(joint_rotation(axes, q) - wanted).max() < 1e-9


def test_hinge_angle_is_exact_for_a_rotation_about_its_axis_and_nearest_otherwise() -> None:
    rng = np.random.default_rng(3)
    for _ in range(50):
        axis, angle = random_unit(rng), rng.uniform(-np.pi, np.pi)
        assert hinge_angle(axis, axis_rotation(axis, angle)) == pytest.approx(angle, abs=1e-12)
        other = axis_rotation(random_unit(rng), rng.uniform(-np.pi, np.pi))
        best = hinge_angle(axis, other)
        grid = np.linspace(-np.pi, np.pi, 721)
        errors = [np.linalg.norm(axis_rotation(axis, g) - other) for g in grid]
        assert np.linalg.norm(axis_rotation(axis, best) - other) <= min(errors) + 1e-12


def test_nearest_turn_prefers_the_copy_near_the_start_then_one_within_the_limits() -> None:
    assert nearest_turn(-3.0, 3.0, -np.inf, np.inf) == pytest.approx(-3.0 + 2 * math.pi)
    assert nearest_turn(0.5, 0.0, -1.0, 1.0) == 0.5
    assert nearest_turn(-0.5, 0.2, 0.0, 6.0) == pytest.approx(-0.5 + 2 * math.pi)
    assert nearest_turn(-2.0, 0.0, 0.0, 1.0) == -2.0  # no copy inside: projection moves it


# ------------------------------------------------------------------ on a figure


def limb_figure(shoulder: str, elbow: str, limits: bool = False, hand: bool = True) -> Figure:
    """A shoulder (ball or hinge), an elbow (hinge or ball) and a joint-less hand.

    The bones lie off the segments' axes, the rest poses are rotated and the elbow
    hinge is not perpendicular to the forearm: the adapter must read the geometry.
    """
    fig = Figure()
    fig.add_segment("torso", translation=(0.1, -0.2, 1.3), rpy=(0.2, -0.1, 0.4))
    fig.add_segment("upper", "torso", translation=(0.2, 0.05, 0.1), rpy=(0.3, 0.2, -0.5))
    if shoulder == "ball":
        lo, hi = ((-2.0, -1.2, -1.5), (2.2, 1.4, 1.1)) if limits else (-np.inf, np.inf)
        fig.add_ball("upper", lo, hi)
    else:
        fig.add_revolute("upper", (1, 0, 0), name="upper.x")
    fig.add_segment("lower", "upper", translation=(0.02, 0.31, -0.01), rpy=(0.1, 0.0, 0.05))
    if elbow == "hinge":
        lo, hi = (0.0, 2.6) if limits else (-np.inf, np.inf)
        fig.add_revolute("lower", (1.0, 0.0, 0.05), lo, hi, name="lower.flex")
    else:
        fig.add_ball("lower")
    if hand:
        fig.add_segment("hand", "lower", translation=(0.0, 0.26, 0.02), rpy=(0.0, 0.3, 0.0))
    return fig


def tip_of(fig: Figure, coords: np.ndarray, effector: EndEffector) -> np.ndarray:
    frame = fig.forward(coords)[effector.segment]
    return frame[:3, :3] @ effector.point + frame[:3, 3]


def random_coords(fig: Figure, rng: np.random.Generator) -> np.ndarray:
    lower, upper = fig.coordinate_bounds()
    return rng.uniform(np.maximum(lower, -np.pi), np.minimum(upper, np.pi))


def first_start(solver: Solver, start: np.ndarray) -> tuple[np.ndarray, float, int]:
    """The coordinates and G the solve method started from, and the iterations taken."""
    seen: list[tuple[np.ndarray, float]] = []
    result = solver.solve(start, lambda x, g: seen.append((x.copy(), g)))
    return seen[0][0], seen[0][1], result.nit


CASES = [("ball", "hinge"), ("ball", "ball"), ("hinge", "hinge")]


@pytest.mark.parametrize(("shoulder", "elbow"), CASES)
@pytest.mark.parametrize("limits", [False, True])
def test_the_analytic_start_alone_puts_the_tip_on_a_reachable_in_limit_target(
    shoulder: str, elbow: str, limits: bool
) -> None:
    """Exact every time without limits. With a ball root's box limits the start may be
    one the limits pulled short, when it is much nearer the start than any candidate
    that reaches (the continuity rule of ``_choose``), or none of the planes tried may
    lie within the limits: about nine in ten reach (400 targets: 92 % with a hinge
    elbow, 87 % with a ball elbow)."""
    fig = limb_figure(shoulder, elbow, limits)
    effector = EndEffector("hand", (0.01, 0.2, 0.0))
    goal = PositionGoal((0.0, 0.0, 0.0))
    solver = Solver(fig, [Constraint(effector, goal)], analytic_start=True, restarts=0)
    rng = np.random.default_rng(7)
    reached = 0
    for _ in range(40):
        goal.point = tip_of(fig, random_coords(fig, rng), effector)  # reachable, in limits
        start = random_coords(fig, rng)
        coords, g, nit = first_start(solver, start)
        if np.linalg.norm(tip_of(fig, coords, effector) - goal.point) < 1e-10:
            assert g < 1e-20
            assert nit == 0
            reached += 1
    assert reached == 40 if not limits or shoulder == "hinge" else reached >= 30


def test_the_point_of_a_pose_goal_is_reached_by_the_analytic_start() -> None:
    fig = limb_figure("ball", "hinge")
    effector = EndEffector("hand", (0.0, 0.2, 0.0), x=(1, 0, 0), y=(0, 1, 0))
    rng = np.random.default_rng(5)
    target = tip_of(fig, random_coords(fig, rng), effector)
    goal = PositionOrientationGoal(target, x=(1, 0, 0), position_weight=0.5)
    solver = Solver(fig, [Constraint(effector, goal)], analytic_start=True, restarts=0)
    coords, _, _ = first_start(solver, random_coords(fig, rng))
    assert np.linalg.norm(tip_of(fig, coords, effector) - target) < 1e-10


def test_the_elbow_keeps_its_side_when_the_target_moves_a_little() -> None:
    fig = limb_figure("ball", "hinge")
    effector = EndEffector("hand", (0.0, 0.2, 0.0))
    goal = PositionGoal((0.0, 0.0, 0.0))
    solver = Solver(fig, [Constraint(effector, goal)], analytic_start=True, restarts=0)
    for bend in (0.8, -0.8):
        start = np.array([0.3, -0.2, 0.4, bend])
        goal.point = tip_of(fig, start, effector) + np.array([0.01, -0.02, 0.015])
        coords, _, _ = first_start(solver, start)
        assert np.sign(coords[3]) == np.sign(bend)
        assert np.abs(coords - start).max() < 0.2


@pytest.mark.parametrize("limits", [False, True])
def test_tracking_a_smooth_path_keeps_the_joint_steps_small(limits: bool) -> None:
    """The hand follows a joint-space figure-eight (steps <= 0.06 rad per frame); each
    frame's analytic start and answer stay near the previous answer."""
    fig = limb_figure("ball", "hinge", limits)
    effector = EndEffector("hand", (0.0, 0.2, 0.0))
    goal = PositionGoal((0.0, 0.0, 0.0))
    solver = Solver(fig, [Constraint(effector, goal)], analytic_start=True, restarts=0)
    t = np.linspace(0.0, 2.0 * np.pi, 160, endpoint=False)
    path = np.stack(
        [0.9 + 0.5 * np.sin(t), 0.6 * np.sin(2 * t), 0.2 + 0.6 * np.cos(t), 1.2 + 0.5 * np.sin(t)],
        axis=1,
    )
    assert np.abs(np.diff(path, axis=0)).max() < 0.06
    previous = path[0]
    for q in path[1:]:
        goal.point = tip_of(fig, q, effector)
        coords, _, _ = first_start(solver, previous)
        result = solver.solve(previous)
        assert result.success
        assert np.abs(coords - previous).max() < 0.15
        assert np.abs(result.x - previous).max() < 0.15
        previous = result.x


def test_a_target_out_of_reach_straightens_the_limb_towards_it() -> None:
    fig = limb_figure("ball", "hinge", hand=False)
    effector = EndEffector("lower", (0.0, 0.25, 0.0))
    goal = PositionGoal((3.0, 2.0, 1.0))
    solver = Solver(fig, [Constraint(effector, goal)], analytic_start=True, restarts=0)
    coords, _, _ = first_start(solver, np.array([0.3, 0.2, -0.1, 1.0]))
    frames = fig.forward(coords)
    shoulder = frames["upper"][:3, 3]
    tip = tip_of(fig, coords, effector)
    toward = (goal.point - shoulder) / np.linalg.norm(goal.point - shoulder)
    # The longest reach the tilted hinge allows, along the line to the target.
    assert np.linalg.norm(np.cross(tip - shoulder, toward)) < 1e-9
    reach = np.linalg.norm(tip - shoulder)
    for hinge in np.linspace(-np.pi, np.pi, 73):
        other = np.linalg.norm(tip_of(fig, np.array([*coords[:3], hinge]), effector) - shoulder)
        assert other <= reach + 1e-12


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_the_start_handed_to_the_method_is_never_worse(seed: int) -> None:
    """With limits, a second goal pulling elsewhere and any start, G never rises."""
    rng = np.random.default_rng(seed)
    fig = limb_figure("ball", "hinge", limits=True)
    hand = EndEffector("hand", (0.0, 0.2, 0.0))
    elbow = EndEffector("lower", (0.0, 0.0, 0.0))
    goals = [PositionGoal(rng.normal(size=3)), PositionGoal(rng.normal(size=3))]
    constraints = [Constraint(hand, goals[0]), Constraint(elbow, goals[1], weight=0.5)]
    start = random_coords(fig, rng)
    plain = Solver(fig, constraints, analytic_start=False, restarts=0)
    analytic = Solver(fig, constraints, analytic_start=True, restarts=0)
    _, g_plain, _ = first_start(plain, start)
    _, g_analytic, _ = first_start(analytic, start)
    assert g_analytic <= g_plain


@pytest.mark.parametrize(
    "what",
    ["three bones", "aim goal", "carried goal", "prismatic", "disjunction", "locked", "grouped"],
)
def test_chains_that_are_not_two_bone_limbs_keep_their_start(what: str) -> None:
    fig = limb_figure("ball", "hinge")
    effector = EndEffector("hand", (0.0, 0.2, 0.0))
    goal = PositionGoal((0.2, 0.1, 1.5))
    n = 4
    if what == "three bones":
        fig.add_revolute("hand", (1, 0, 0), name="wrist")
        n = 5
    elif what == "prismatic":
        fig.add_prismatic("hand", (0, 1, 0), name="slide")
        n = 5
    elif what == "aim goal":
        effector = EndEffector("hand", x=(0, 1, 0))
        goal = AimGoal((0.2, 0.1, 1.5))
    elif what == "disjunction":
        goal = Disjunction([PositionGoal((0.2, 0.1, 1.5)), PositionGoal((0.1, 0.3, 1.4))])
    elif what == "locked":  # one axis of the ball rigid: the shoulder is no ball
        fig.set_rigidity("upper.y", 1.0)
    elif what == "grouped":  # the ball's X and Z driven by one parameter
        fig.add_group("swing", ["upper.x", "upper.z"], [[1.0], [0.5]])
        n = 3
    else:
        goal = PositionGoal((0.0, 0.3, 0.0), carrier="torso")
    solver = Solver(fig, [Constraint(effector, goal)], analytic_start=True, restarts=0)
    start = np.linspace(0.1, 0.4, n)
    coords, _, _ = first_start(solver, start)
    assert np.array_equal(coords, start)


def test_the_default_leaves_the_start_alone() -> None:
    fig = limb_figure("ball", "hinge")
    effector = EndEffector("hand", (0.0, 0.2, 0.0))
    goal = PositionGoal(tip_of(fig, np.array([0.5, 0.1, -0.3, 1.0]), effector))
    solver = Solver(fig, [Constraint(effector, goal)], restarts=0)
    assert solver.options.analytic_start is False
    start = np.array([0.1, 0.2, 0.3, 0.4])
    coords, _, nit = first_start(solver, start)
    assert np.array_equal(coords, start)
    assert nit > 0


def test_analytic_start_must_be_a_flag() -> None:
    with pytest.raises(InvalidInputError, match="analytic_start"):
        Solver(
            limb_figure("ball", "hinge"),
            [Constraint(EndEffector("hand"), PositionGoal((0, 0, 1)))],
            analytic_start="yes",  # type: ignore[arg-type]
        )
