"""Conditioning read-out of a solved pose: closed form on a planar arm, rank and redundancy
of a 7-DOF arm, the null space by finite differences, the task rows of every goal."""

from __future__ import annotations

import dataclasses
import itertools
import math

import numpy as np
import pytest

from solver import (
    AimGoal,
    Constraint,
    EndEffector,
    Figure,
    HalfSpaceGoal,
    InvalidInputError,
    LineGoal,
    OrientationGoal,
    PlaneGoal,
    PositionGoal,
    PositionOrientationGoal,
    Solver,
    UnknownNameError,
    solve,
)
from solver.analysis.conditioning import ILL_CONDITIONED
from solver.assembly.problem import Problem
from solver.methods import METHODS
from tests import arm7

L1, L2 = 0.7, 0.4


def planar() -> Figure:
    """Two links in the XY plane: shoulder at the origin, elbow at ``L1``, tip at ``L2``."""
    fig = Figure()
    fig.add_segment("upper")
    fig.add_revolute("upper", "z", name="shoulder")
    fig.add_segment("lower", parent="upper", translation=(L1, 0, 0))
    fig.add_revolute("lower", "z", name="elbow")
    return fig


TIP = EndEffector("lower", (L2, 0, 0))


def at_pose(fig: Figure, constraints: list[Constraint], coords: np.ndarray):
    """A solve that takes no step: its result is the pose ``coords``."""
    result = solve(fig, constraints, initial=coords, max_iterations=0, restarts=0)
    assert np.array_equal(result.x, coords)
    return result


def planar_at(q: np.ndarray):
    tip = np.array(planar().forward(q)["lower"]) @ np.array([L2, 0, 0, 1.0])
    return at_pose(planar(), [Constraint(TIP, PositionGoal(tip[:3]), name="reach")], q)


@pytest.mark.parametrize("q", [(0.3, 1.2), (-1.0, 0.4), (2.0, -0.05), (0.0, 2.9)])
def test_planar_singular_values_closed_form(q: tuple[float, float]) -> None:
    q1, q2 = q
    conditioning = planar_at(np.array(q)).conditioning
    s1, s12, c1, c12 = math.sin(q1), math.sin(q1 + q2), math.cos(q1), math.cos(q1 + q2)
    jacobian = np.array([[-L1 * s1 - L2 * s12, -L2 * s12], [L1 * c1 + L2 * c12, L2 * c12]])
    # sigma_1^2 + sigma_2^2 = |J|_F^2 and sigma_1 sigma_2 = |det J| = L1 L2 |sin q2|
    frobenius = float((jacobian**2).sum())
    det = L1 * L2 * abs(math.sin(q2))
    root = math.sqrt(frobenius**2 - 4 * det**2)
    expected = np.sqrt([(frobenius + root) / 2, (frobenius - root) / 2])
    entry = conditioning.constraint("reach")
    assert np.allclose(entry.singular_values, expected, rtol=1e-9)
    assert entry.condition == pytest.approx(expected[0] / expected[1], rel=1e-9)
    assert entry.rank == 2 and entry.task_rows == 3  # a 3D position; the arm moves in 2D
    assert conditioning.dof == 2 and conditioning.redundancy == 0
    assert conditioning.null_space.shape == (2, 0)


def test_planar_kappa_grows_to_inf_as_the_elbow_straightens() -> None:
    bends = (1.0, 0.1, 1e-2, 1e-3)
    kappas = [planar_at(np.array([0.3, q2])).conditioning.condition for q2 in bends]
    assert all(a < b for a, b in itertools.pairwise(kappas))
    straight = planar_at(np.array([0.3, 0.0])).conditioning
    assert straight.condition == math.inf and straight.rank == 1 and straight.stacked.singular
    assert straight.redundancy == 1
    assert straight.summary.startswith("singular (rank 1 of 2): kappa = inf")


def test_nearly_straight_names_the_elbow_and_the_radial_direction() -> None:
    q1 = 0.3
    conditioning = planar_at(np.array([q1, 1e-3])).conditioning
    assert conditioning.ill_conditioned and conditioning.condition > ILL_CONDITIONED
    assert conditioning.weakest_joints == ("elbow",)
    assert conditioning.weakest_constraint == "reach"
    radial = np.array([math.cos(q1), math.sin(q1), 0.0])
    assert conditioning.weakest_direction is not None
    assert abs(float(conditioning.weakest_direction @ radial)) > 0.999
    assert conditioning.summary.startswith("ill-conditioned: kappa = ")
    assert "mostly joint 'elbow'; 'reach' barely moves along (" in conditioning.summary
    bent = planar_at(np.array([q1, 1.5])).conditioning
    assert not bent.ill_conditioned and bent.summary.startswith("well-conditioned: kappa = ")


def seven_dof(goal: str) -> tuple[Figure, list[Constraint], np.ndarray]:
    fig = arm7.arm()
    coords = arm7.mid_range(fig) + np.linspace(0.3, -0.4, 7)
    pose = arm7.tool_pose(fig, coords)
    if goal == "position":
        constraint = Constraint(arm7.tool(), PositionGoal(pose[:3, 3]), name="tool")
    else:
        constraint = arm7.pose_constraint(pose)
    return fig, [constraint], coords


@pytest.mark.parametrize(("goal", "rank"), [("position", 3), ("pose", 6)])
def test_seven_dof_rank_and_redundancy(goal: str, rank: int) -> None:
    conditioning = at_pose(*seven_dof(goal)).conditioning
    assert conditioning.dof == 7
    assert conditioning.rank == rank and conditioning.stacked.task_rows == rank
    assert conditioning.redundancy == 7 - rank
    assert conditioning.null_space.shape == (7, 7 - rank)
    assert np.allclose(conditioning.null_space.T @ conditioning.null_space, np.eye(7 - rank))


def residuals(fig: Figure, constraints: list[Constraint], coords: np.ndarray) -> np.ndarray:
    """Every constraint's residual (stacked) at ``coords``, in scene units."""
    problem = Problem(fig, constraints, coords)
    evaluation = problem.evaluate(problem.from_coordinates(coords))
    return np.concatenate([t.residual for t in evaluation.terms])


def test_null_space_steps_change_no_constraint_to_first_order() -> None:
    """Rigidity (internal scaling) and a coupling equality: the null space is still in the
    figure's coordinates, keeps the equality, and moves the goals only to second order."""
    fig, constraints, coords = seven_dof("position")
    fig.set_rigidity("j1", 0.6)
    fig.set_rigidity("j3", 0.9)
    fig.add_equality({"j2": 1.0, "j4": -1.0}, 0.0, label="coupled")
    coords[4] = coords[2]
    pose = arm7.tool_pose(fig, coords)
    constraints = [Constraint(arm7.tool(), PositionGoal(pose[:3, 3]), name="tool")]
    conditioning = at_pose(fig, constraints, coords).conditioning
    assert conditioning.dof == 6 and conditioning.redundancy == 3
    null = conditioning.null_space
    assert np.allclose(null[2], null[4])  # the equality holds along every direction
    rng = np.random.default_rng(4)
    step = null @ rng.normal(size=3)
    other = rng.normal(size=7)
    other[4] = other[2]
    base = residuals(fig, constraints, coords)
    for h in (1e-2, 1e-3, 1e-4):
        along = np.linalg.norm(residuals(fig, constraints, coords + h * step) - base)
        across = np.linalg.norm(residuals(fig, constraints, coords + h * other) - base)
        assert along < 2.0 * h * h  # second order (the arm's curvature is below 2)
        assert across > 0.01 * h  # a general step moves the tip to first order


def test_pose_null_space_by_finite_differences() -> None:
    fig, constraints, coords = seven_dof("pose")
    null = at_pose(fig, constraints, coords).conditioning.null_space[:, 0]
    base = residuals(fig, constraints, coords)
    changes = [
        np.linalg.norm(residuals(fig, constraints, coords + h * null) - base) for h in (1e-3, 1e-4)
    ]
    assert changes[1] < 0.02 * changes[0]  # 100x for 10x shorter: second order
    assert changes[0] < 2e-6


@pytest.mark.parametrize("method", METHODS)
def test_every_method_gets_the_read_out_of_its_result_pose(method: str) -> None:
    fig = planar()
    target = (0.5, 0.6, 0.0)
    result = solve(fig, [Constraint(TIP, PositionGoal(target), name="reach")], method=method)
    again = at_pose(fig, [Constraint(TIP, PositionGoal(target), name="reach")], result.x)
    assert result.conditioning.summary == again.conditioning.summary
    assert np.allclose(
        result.conditioning.stacked.singular_values, again.conditioning.stacked.singular_values
    )


REACHABLE = arm7.tool_pose(arm7.arm(), arm7.mid_range(arm7.arm()) - 0.5)


@pytest.mark.parametrize(
    ("goal", "rows"),
    [
        (PositionGoal((0.5, 0.5, 0.2)), 3),
        (OrientationGoal(x=(0, 1, 0), y=(-1, 0, 0)), 3),
        (OrientationGoal(x=(0, 1, 0)), 2),
        (PositionOrientationGoal.from_matrix(REACHABLE), 6),
        (PositionOrientationGoal((0.5, 0.5, 0.2), x=(0, 1, 0), position_weight=1.0), 3),
        (AimGoal((2.0, 1.0, 0.5)), 2),
        (LineGoal((0.5, 0.5, 0.2), (0, 0, 1)), 2),
        (PlaneGoal((0.5, 0.5, 0.2), (0, 0, 1)), 1),
        (HalfSpaceGoal((0, 0, -5.0), (0, 0, 1)), 0),  # met: constrains nothing here
    ],
)
def test_task_rows_of_every_goal(goal: object, rows: int) -> None:
    fig = arm7.arm()
    coords = arm7.mid_range(fig) + 0.3
    effector = EndEffector("link6", (0, 0.1, 0), x=(1, 0, 0), y=(0, 1, 0))
    result = Solver(fig, [Constraint(effector, goal, name="goal")]).solve(coords)
    assert result.success
    entry = result.conditioning.constraint("goal")
    assert entry.task_rows == rows
    assert len(entry.singular_values) == rows and entry.rank == rows
    if rows == 0:
        assert entry.condition == 1.0


def test_stacked_rows_are_weighted_and_weight_zero_is_left_out() -> None:
    fig, constraints, coords = seven_dof("position")
    pose = arm7.tool_pose(fig, coords)
    constraints[0].weight = 4.0
    aim = Constraint(arm7.tool(), OrientationGoal(x=pose[:3, 0]), weight=0.0, name="turn")
    conditioning = at_pose(fig, [*constraints, aim], coords).conditioning
    own = conditioning.constraint("tool").singular_values
    assert np.allclose(conditioning.stacked.singular_values, 2.0 * own)
    assert conditioning.constraint("turn").task_rows == 2  # reported, not stacked
    assert conditioning.stacked.task_rows == 3


def test_nothing_to_condition() -> None:
    fig = planar()
    away = Constraint(TIP, HalfSpaceGoal((0, 0, -1.0), (0, 0, 1)), name="above")
    conditioning = at_pose(fig, [away], np.array([0.2, 0.4])).conditioning
    assert conditioning.condition == 1.0 and conditioning.rank == 0
    assert conditioning.redundancy == 2 and conditioning.null_space.shape == (2, 2)
    assert conditioning.summary == "nothing to condition: no goal constrains the pose here"


def test_computed_on_first_access_only() -> None:
    result = planar_at(np.array([0.3, 1.0]))
    assert "conditioning" not in vars(result)
    first = result.conditioning
    assert vars(result)["conditioning"] is first and result.conditioning is first


def test_unknown_constraint_name_and_missing_jacobians() -> None:
    result = planar_at(np.array([0.3, 1.0]))
    with pytest.raises(UnknownNameError, match="'grip'"):
        result.conditioning.constraint("grip")
    bare = dataclasses.replace(result, pose_jacobians=None)
    with pytest.raises(InvalidInputError, match="pose_jacobians"):
        _ = bare.conditioning
