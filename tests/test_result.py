"""The result object agrees with the figure and with the goals' own geometry."""

import numpy as np
import pytest

from solver import (
    AimGoal,
    Constraint,
    EndEffector,
    Figure,
    OrientationGoal,
    PlaneGoal,
    PositionGoal,
    Solver,
    Status,
)


def arm() -> Figure:
    fig = Figure()
    fig.add_segment("upper")
    fig.add_ball("upper", -1.5, 1.5)
    fig.add_segment("lower", parent="upper", translation=(0.6, 0.0, 0.0))
    fig.add_revolute("lower", (0, 0, 1), 0.0, 2.5, name="elbow")
    return fig


def test_result_fields_are_consistent() -> None:
    fig = arm()
    tip = EndEffector("lower", (0.5, 0, 0), x=(1, 0, 0), y=(0, 1, 0))
    target = np.array([2.0, 0.5, 0.3])  # out of reach: residuals stay non-zero
    constraints = [
        Constraint(tip, PositionGoal(target), name="reach"),
        Constraint(tip, OrientationGoal(x=(0, 0, 1)), weight=0.01, name="turn"),
        Constraint(tip, PlaneGoal((0, 0, 0.1), (0, 0, 1)), weight=0.5, name="plane"),
    ]
    solver = Solver(fig, constraints)
    result = solver.solve()
    assert result.x.shape == (len(fig.coordinate_names),)
    assert np.allclose(result.joint_values, fig.joint_values(result.x))
    assert result.values() == dict(zip(fig.joint_names, result.joint_values.tolist(), strict=True))
    problem = solver.problem
    assert result.fun == pytest.approx(problem.value(problem.from_coordinates(result.x)))
    assert result.nfev >= result.nit >= 1
    assert result.success == all(r.satisfied for r in result.residuals)
    assert result.converged == (result.status in (Status.GOAL_REACHED, Status.KUHN_TUCKER))
    assert result.unmet == tuple(r.name for r in result.residuals if not r.satisfied)
    assert result.time >= 0.0
    assert [r.name for r in result.residuals] == ["reach", "turn", "plane"]
    assert result.message

    frame = fig.forward(result.x)["lower"]
    point = frame[:3, :3] @ tip.point + frame[:3, 3]
    x_axis = frame[:3, :3] @ tip.x
    reach, turn, plane = result.residuals
    assert reach.distance == pytest.approx(np.linalg.norm(point - target), rel=1e-9)
    assert reach.angle is None
    assert turn.distance is None
    assert turn.angle == pytest.approx(np.degrees(np.arccos(np.clip(x_axis[2], -1, 1))), abs=1e-6)
    assert plane.distance == pytest.approx(abs(point[2] - 0.1), abs=1e-12)
    assert not reach.satisfied and not result.success


def test_aim_residual_is_the_angle_off_the_target() -> None:
    fig = arm()
    eye = EndEffector("lower", (0.1, 0, 0), x=(1, 0, 0))
    target = np.array([0.0, 3.0, 0.0])
    solver = Solver(fig, [Constraint(eye, AimGoal(target), name="look")], max_iterations=1)
    result = solver.solve()
    frame = fig.forward(result.x)["lower"]
    origin = frame[:3, :3] @ eye.point + frame[:3, 3]
    to_target = (target - origin) / np.linalg.norm(target - origin)
    expected = np.degrees(np.arccos(np.clip(frame[:3, :3] @ eye.x @ to_target, -1, 1)))
    (residual,) = result.residuals
    assert residual.angle == pytest.approx(expected, abs=1e-6)
    assert residual.distance is None


def test_active_set_names_the_limits_holding_the_pose() -> None:
    """A planar reach below the arm needs both joints past their limits: both are active.

    TRAC-IK's meaning of success: the closest reachable pose is a converged stop with
    ``success`` False whose message names the goal and the limits holding it."""
    fig = Figure()
    fig.add_segment("upper")
    fig.add_revolute("upper", (0, 0, 1), -0.2, 0.2, name="shoulder")
    fig.add_segment("lower", parent="upper", translation=(0.6, 0.0, 0.0))
    fig.add_revolute("lower", (0, 0, 1), 0.0, 2.5, name="elbow")
    tip = EndEffector("lower", (0.5, 0, 0))
    solver = Solver(fig, [Constraint(tip, PositionGoal((0.3, -0.9, 0.0)), name="r")])
    result = solver.solve(initial=np.array([0.1, 0.5]))
    assert result.status == Status.KUHN_TUCKER
    assert result.values()["shoulder"] == pytest.approx(-0.2, abs=1e-9)
    assert result.values()["elbow"] == pytest.approx(0.0, abs=1e-9)
    assert any("shoulder" in entry for entry in result.active_set)
    assert any("elbow" in entry for entry in result.active_set)
    assert result.converged and not result.success and result.unmet == ("r",)
    assert result.message.startswith("Closest reachable pose: r not reached; held by ")
    assert "shoulder >= -0.2" in result.message and "elbow >= 0" in result.message


def test_success_when_every_goal_is_met() -> None:
    fig = arm()
    tip = EndEffector("lower", (0.5, 0, 0))
    solver = Solver(fig, [Constraint(tip, PositionGoal((0.6, 0.5, 0.0)), name="r")])
    result = solver.solve(initial=np.array([0.0, 0.0, 0.0, 0.5]))
    assert result.success and result.converged and result.unmet == ()
    assert result.message == "Every constraint is satisfied within tolerance."


def test_iteration_limit_names_the_unmet_goal() -> None:
    fig = arm()
    tip = EndEffector("lower", (0.5, 0, 0))
    result = Solver(
        fig, [Constraint(tip, PositionGoal((0.6, 0.5, 0.0)), name="r")], max_iterations=0
    ).solve()
    assert result.status == Status.MAX_ITERATIONS
    assert not result.success and not result.converged
    assert result.message.endswith("Not reached: r.")
