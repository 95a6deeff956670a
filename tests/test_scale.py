"""Scale-free defaults: the same task in different units behaves the same."""

import numpy as np
import pytest

from solver import (
    Constraint,
    EndEffector,
    Figure,
    OrientationGoal,
    PositionGoal,
    PositionOrientationGoal,
    Solver,
    Status,
)
from solver.assembly.problem import Problem
from solver.assembly.scale import ScaledProblem, characteristic_length
from tests import arm7
from tests.solver_checks import central_difference


def test_characteristic_length_sums_the_offsets_down_the_chain() -> None:
    fig = Figure()
    fig.add_segment("root", translation=(5.0, 0.0, 0.0))  # placement in the world: not reach
    fig.add_revolute("root", "z", -1, 1)
    fig.add_segment("upper", parent="root", translation=(0.0, 3.0, 4.0))
    fig.add_revolute("upper", "x", -1, 1)
    fig.add_segment("lower", parent="upper", translation=(2.0, 0.0, 0.0))
    tip = EndEffector("lower", point=(0.0, 0.5, 0.0))
    short = EndEffector("upper")
    assert characteristic_length(fig, [Constraint(tip, PositionGoal((0, 0, 0)))]) == 7.5
    both = [Constraint(short, PositionGoal((0, 0, 0))), Constraint(tip, PositionGoal((0, 0, 0)))]
    assert characteristic_length(fig, both) == 7.5
    rooted = Constraint(tip, PositionGoal((0, 0, 0)), chain_root="upper")
    assert characteristic_length(fig, [rooted]) == 2.5


def test_characteristic_length_falls_back_to_prismatic_travel_then_one() -> None:
    fig = Figure()
    fig.add_segment("slide")
    fig.add_prismatic("slide", "x", -0.25, 0.5)
    c = Constraint(EndEffector("slide"), PositionGoal((0.1, 0, 0)))
    assert characteristic_length(fig, [c]) == 0.75
    bare = Figure()
    bare.add_segment("a")
    bare.add_revolute("a", "z", -1, 1)
    assert characteristic_length(bare, [Constraint(EndEffector("a"), PositionGoal((0, 0, 0)))]) == 1


def test_default_orientation_weight_is_one_radian_per_length() -> None:
    """P = c^2 |x_e - x_g|^2 with c = L: a 90 degree error costs 2 L^2."""
    fig = Figure()
    fig.add_segment("a")
    fig.add_revolute("a", "z", -3, 3)
    fig.add_segment("b", parent="a", translation=(4.0, 0.0, 0.0))
    tip = EndEffector("b", x=(1, 0, 0))
    solver = Solver(
        fig, [Constraint(tip, OrientationGoal(x=(0, 1, 0)))], max_iterations=0, restarts=0
    )
    result = solver.solve(initial=[0.0])
    assert solver.length == 4.0
    assert result.fun == pytest.approx(2.0 * 16.0, rel=1e-12)


def _scaled_gradient_check(scale: float) -> None:
    fig = Figure()
    fig.add_segment("a")
    fig.add_revolute("a", "z", -3, 3)
    fig.add_segment("b", parent="a", translation=(scale, 0.0, 0.0))
    fig.add_prismatic("b", "x", 0.0, scale)
    fig.add_revolute("b", "y", -3, 3)
    tip = EndEffector("b", point=(0.5 * scale, 0, 0), x=(1, 0, 0), y=(0, 1, 0))
    goal = PositionOrientationGoal(
        (0.3 * scale, 0.9 * scale, 0.2 * scale), x=(0, 1, 0), y=(0, 0, 1)
    )
    solver = Solver(fig, [Constraint(tip, goal)])
    problem = solver.problem
    scaled = ScaledProblem(problem, solver.length)
    assert np.allclose(scaled.unit, [1.0, solver.length, 1.0])
    z = scaled.from_y(problem.from_coordinates(np.array([0.4, 0.3 * scale, -0.2])))
    e = scaled.evaluate(z)
    assert np.allclose(e.g, central_difference(lambda v: scaled.evaluate(v).f, z), atol=1e-7)
    raw = problem.evaluate(scaled.to_y(z))
    inverse_square = 1.0 / solver.length**2
    assert e.f == pytest.approx(raw.f * inverse_square, rel=1e-14)
    unit = np.outer(scaled.unit, scaled.unit)
    assert np.allclose(e.gauss_newton(), unit * raw.gauss_newton() * inverse_square, rtol=1e-14)


@pytest.mark.parametrize("scale", [1e-3, 1.0, 1e3])
def test_scaled_objective_gradient_matches_finite_differences(scale: float) -> None:
    _scaled_gradient_check(scale)


def _arm_run(scale: float) -> tuple[list[bool], list[int]]:
    """Full-pose targets of a 7-DOF arm, solved from mid-range at ``scale`` x its size."""
    fig = arm7.arm(scale)
    poses = arm7.targets(fig, 24, seed=5, scale=scale)
    constraint = arm7.pose_constraint(poses[0], scale)
    # No wall-time budget: the comparison is of iterations, which a loaded machine must not cut.
    solver = Solver(fig, [constraint], restarts=0, max_iterations=200, time_limit=None)
    successes, iterations = [], []
    for pose in poses:
        arm7.retarget(constraint, pose)
        result = solver.solve(initial=arm7.mid_range(fig))
        successes.append(result.success)
        iterations.append(result.nit)
    return successes, iterations


def test_same_solve_rate_and_iterations_at_every_scale() -> None:
    """The arm at 1e-3, 1 and 1e3 times its size: the same targets are solved, alike."""
    runs = {scale: _arm_run(scale) for scale in (1e-3, 1.0, 1e3)}
    base_success, base_iterations = runs[1.0]
    assert sum(base_success) >= len(base_success) // 2  # a meaningful task
    for scale in (1e-3, 1e3):
        success, iterations = runs[scale]
        assert success == base_success, scale
        assert iterations == base_iterations, scale


def test_tiny_rig_does_not_stop_at_the_first_iteration() -> None:
    """Defect: at scale 1e-6 an absolute stationarity threshold ended the solve at once."""
    scale = 1e-6
    fig = Figure()
    fig.add_segment("a")
    fig.add_revolute("a", "z", -3, 3)
    fig.add_segment("b", parent="a", translation=(scale, 0, 0))
    fig.add_revolute("b", "z", -3, 3)
    fig.add_segment("c", parent="b", translation=(scale, 0, 0))
    target = np.array([0.5, 1.2, 0.0]) * scale
    result = Solver(fig, [Constraint(EndEffector("c"), PositionGoal(target))]).solve(
        initial=[0.3, 0.4]
    )
    assert result.status == Status.GOAL_REACHED and result.success
    assert result.residuals[0].distance <= 1e-5 * 2 * scale
    assert result.nit > 1


def _slider_run(scale: float) -> list[tuple[bool, int]]:
    """A revolute-prismatic-revolute arm reaching targets at ``scale`` times its size."""
    fig = Figure()
    fig.add_segment("base")
    fig.add_revolute("base", "z", -3.0, 3.0)
    fig.add_segment("boom", parent="base", translation=(0.5 * scale, 0.0, 0.0))
    fig.add_prismatic("boom", "x", 0.0, 1.5 * scale)
    fig.add_revolute("boom", "y", -1.5, 1.5)
    fig.add_segment("tool", parent="boom", translation=(0.4 * scale, 0.0, 0.0))
    rng = np.random.default_rng(7)
    lower, upper = fig.coordinate_bounds()
    goal = PositionGoal((scale, 0.0, 0.0))
    solver = Solver(fig, [Constraint(EndEffector("tool"), goal)], restarts=0, time_limit=None)
    runs = []
    for _ in range(12):
        goal.point = fig.forward(rng.uniform(lower, upper))["tool"][:3, 3]  # reachable
        result = solver.solve(initial=[0.0, 0.0, 0.0])
        runs.append((result.success, result.nit))
    return runs


def test_prismatic_joints_move_in_units_of_the_length() -> None:
    """Sliding joints are measured in units of L, so their step cap scales with the rig."""
    base = _slider_run(1.0)
    assert sum(ok for ok, _ in base) >= 6 and max(nit for _, nit in base) > 1
    assert _slider_run(1e-3) == base
    assert _slider_run(1e3) == base


def test_rebased_rows_equal_freshly_scaled_rows() -> None:
    """A Solver reuses its scaled rows between solves; only ``b`` follows the new start."""
    fig = Figure()
    fig.add_segment("a")
    fig.add_prismatic("a", "x", -2.0, 3.0)
    fig.add_revolute("a", "z", -1.0, 1.0)
    fig.add_segment("b", parent="a", translation=(2.0, 0.0, 0.0))
    fig.add_revolute("b", "z", -1.0, 1.0, rigidity=1.0)  # fixed: its value moves b
    fig.add_linear_constraint({fig.joint_names[1]: 1.0, fig.joint_names[2]: 1.0}, upper=0.5)
    solver = Solver(fig, [Constraint(EndEffector("b"), PositionGoal((1.0, 1.0, 0.0)))])
    solver.solve(initial=[0.0, 0.0, 0.2])
    kept = solver._scaled
    solver.solve(initial=[0.5, 0.1, -0.4])
    assert solver._scaled is kept
    fresh = ScaledProblem(solver.problem, solver.length)
    assert np.allclose(kept.system.A, fresh.system.A) and np.allclose(kept.system.b, fresh.system.b)
    assert kept.system.labels == fresh.system.labels


def test_rebased_problem_rows_equal_fresh_rows_and_follow_new_rows() -> None:
    """The problem normalises its rows in ``y`` once; a rebase must give the rows a fresh
    problem builds at the new start, and a row added to the figure must reach the next solve."""
    fig = Figure()
    fig.add_segment("a")
    fig.add_revolute("a", "z", -1.0, 1.0)
    fig.add_revolute("a", "y", -1.0, 1.0)
    fig.add_segment("b", parent="a", translation=(2.0, 0.0, 0.0))
    fig.add_revolute("b", "z", -1.0, 1.0, rigidity=1.0)  # held: its value moves b of a row
    fig.add_linear_constraint({fig.joint_names[0]: 0.5, fig.joint_names[2]: 1.0}, upper=0.5)
    fig.add_segment("tip", parent="b", translation=(2.0, 0.0, 0.0))
    constraints = [Constraint(EndEffector("tip"), PositionGoal((3.0, 1.0, 0.0)))]
    solver = Solver(fig, constraints, restarts=0)
    solver.solve(initial=[0.0, 0.0, 0.2])
    kept = solver.problem
    solver.solve(initial=[0.1, 0.2, -0.4])
    assert solver.problem is kept
    fresh = Problem(fig, constraints, np.array([0.1, 0.2, -0.4]))
    np.testing.assert_array_equal(kept.system.A, fresh.system.A)
    np.testing.assert_array_equal(kept.system.b, fresh.system.b)
    assert kept.system.labels == fresh.system.labels
    assert not np.array_equal(kept.system.b, Problem(fig, constraints, np.zeros(3)).system.b)
    # A new row changes A: the next solve must obey it.
    fig.add_linear_constraint({fig.joint_names[0]: 1.0, fig.joint_names[1]: 1.0}, upper=-0.3)
    result = solver.solve(initial=[0.0, 0.0, 0.0])
    assert result.x[0] + result.x[1] <= -0.3 + 1e-9
    assert solver.problem.system.A.shape[0] == kept.system.A.shape[0] + 1


def test_rest_change_between_solves_rescales_the_defaults() -> None:
    """A rig rescaled through ``set_rest`` gets a length and tolerance of its new size."""
    fig = Figure()
    fig.add_segment("a")
    fig.add_revolute("a", "z", -3, 3)
    fig.add_segment("b", parent="a", translation=(2.0, 0.0, 0.0))
    fig.add_revolute("b", "z", -3, 3)
    fig.add_segment("tip", parent="b", translation=(2.0, 0.0, 0.0))
    goal = PositionGoal((2.0, 2.0, 0.0))
    solver = Solver(fig, [Constraint(EndEffector("tip"), goal)], restarts=0)
    assert solver.solve(initial=[0.3, 0.3]).success
    assert solver.length == 4.0
    fig.set_rest("b", translation=(2e3, 0.0, 0.0))
    fig.set_rest("tip", translation=(2e3, 0.0, 0.0))
    goal.point = (2e3, 2e3, 0.0)
    result = solver.solve(initial=[0.3, 0.3])
    assert solver.length == 4e3
    assert solver.problem.tolerance == pytest.approx(1e3 * 4.0 * 1e-6)
    assert result.success


def test_offsets_are_remeasured_only_when_a_rest_translation_changes() -> None:
    """A new rest rotation (a bridge re-reads the pose into it before every solve) keeps the
    figure's reach; a new rest translation bumps ``offset_version``, which the solver's length
    follows."""
    fig = Figure()
    fig.add_segment("a")
    fig.add_revolute("a", "z", -3, 3)
    fig.add_segment("tip", parent="a", translation=(2.0, 0.0, 0.0))
    version = fig.offset_version
    fig.set_rest("tip", rotation=np.array([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]))
    fig.set_rest("tip", translation=(2.0, 0.0, 0.0))  # the same offset
    assert fig.offset_version == version
    fig.set_rest("tip", translation=(3.0, 0.0, 0.0))
    assert fig.offset_version == version + 1
    solver = Solver(fig, [Constraint(EndEffector("tip"), PositionGoal((0, 2, 0)))], restarts=0)
    solver.solve(initial=[0.1])
    assert solver.length == 3.0


def test_rest_change_is_seen_at_an_unchanged_pose() -> None:
    """The problem's last forward pass is reused only while the rest offsets are unchanged."""
    fig = Figure()
    fig.add_segment("a")
    fig.add_revolute("a", "z", -3, 3)
    fig.add_segment("tip", parent="a", translation=(2.0, 0.0, 0.0))
    problem = Solver(fig, [Constraint(EndEffector("tip"), PositionGoal((0, 2, 0)))]).problem
    y = problem.from_coordinates(np.array([0.5]))
    before = problem.evaluate(y).f
    fig.set_rest("tip", translation=(3.0, 0.0, 0.0))
    assert problem.evaluate(y).f != pytest.approx(before)
    expected = np.linalg.norm(3.0 * np.array([np.cos(0.5), np.sin(0.5), 0]) - (0, 2, 0)) ** 2
    assert problem.evaluate(y).f == pytest.approx(expected)
