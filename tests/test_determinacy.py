"""Determinacy report of a solved pose: degrees of freedom, independent equations, the
state, the redundant or conflicting constraints by name, the free motions by joint."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from solver import (
    Constraint,
    EndEffector,
    Figure,
    InvalidInputError,
    PositionGoal,
    PositionOrientationGoal,
    solve,
)
from solver.analysis.determinacy import EXACT, OVER, UNDER
from tests import arm7
from tests.test_conditioning import TIP, at_pose, planar, residuals

ELBOW = EndEffector("lower", (0, 0, 0))


def point(fig: Figure, effector: EndEffector, coords: np.ndarray) -> np.ndarray:
    """(3,) world position of ``effector``'s point at ``coords``."""
    frame = np.array(fig.forward(coords)[effector.segment])
    return (frame @ np.append(effector.point, 1.0))[:3]


def seven_dof_position():
    fig = arm7.arm()
    coords = arm7.mid_range(fig) + np.linspace(0.3, -0.4, 7)
    goal = PositionGoal(arm7.tool_pose(fig, coords)[:3, 3])
    return fig, [Constraint(arm7.tool(), goal, name="tool")], coords


def six_dof() -> Figure:
    """arm7 without its last joint: twist, pitch, twist, pitch, twist, pitch."""
    fig = Figure()
    parent = None
    for i, axis in enumerate(arm7.AXES[:6]):
        offset = (0.0, 0.0, 0.0) if i == 0 else (0.0, arm7.LENGTHS[i - 1], 0.0)
        fig.add_segment(f"link{i}", parent=parent, translation=offset)
        fig.add_revolute(f"link{i}", axis, name=f"j{i}")
        parent = f"link{i}"
    return fig


def test_seven_dof_arm_with_one_position_goal_is_under_constrained() -> None:
    report = at_pose(*seven_dof_position()).determinacy
    assert (report.dof, report.rank, report.equations) == (7, 3, 3)
    assert report.state == UNDER and report.dependent == ()
    assert len(report.free_motions) == 4
    for motion in report.free_motions:
        assert motion.names and set(motion.names) <= {f"j{i}" for i in range(7)}
        assert np.linalg.norm(motion.motion) == pytest.approx(1.0)
    assert report.summary.startswith("under-constrained: 7 DOF, 3 independent of 3 equations; ")
    assert "4 free motions: '" in report.summary


def test_six_dof_arm_with_a_full_pose_goal_is_exactly_constrained() -> None:
    fig = six_dof()
    coords = np.array([0.3, 0.8, -0.5, 1.1, 0.4, -0.9])  # no joint straight, no axes aligned
    frame = np.array(fig.forward(coords)["link5"])
    tool = EndEffector("link5", (0.0, arm7.LENGTHS[5], 0.0), x=(1, 0, 0), y=(0, 1, 0))
    target = point(fig, tool, coords)
    goal = PositionOrientationGoal(target, x=frame[:3, 0], y=frame[:3, 1])
    result = at_pose(fig, [Constraint(tool, goal, name="tool")], coords)
    report = result.determinacy
    assert (report.dof, report.rank, report.equations) == (6, 6, 6)
    assert report.state == EXACT and report.dependent == () and report.free_motions == ()
    assert report.summary == "exactly constrained: 6 DOF, 6 independent of 6 equations"


def test_planar_arm_names_the_later_redundant_goal() -> None:
    fig, q = planar(), np.array([0.3, 1.2])
    constraints = [
        Constraint(TIP, PositionGoal(point(fig, TIP, q)), name="tip"),
        Constraint(ELBOW, PositionGoal(point(fig, ELBOW, q)), name="elbow"),
    ]
    report = at_pose(fig, constraints, q).determinacy
    assert report.state == OVER and (report.dof, report.rank) == (2, 2)
    assert report.equations == 6  # two 3D positions
    names = [d.name for d in report.dependent]
    assert names == ["tip", "elbow"]  # the tip's z row moves with nothing (a planar arm)
    tip, elbow = report.dependent
    assert (tip.dependent, tip.rows) == (1, 3)
    assert (elbow.dependent, elbow.rows) == (3, 3)  # nothing the tip goal does not fix
    assert report.redundant == ("tip", "elbow") and report.conflicting == ()
    assert "redundant 'elbow'" in report.summary and "(1 of 3 rows)" in report.summary


def test_two_goals_pulling_the_tip_apart_are_named_conflicting() -> None:
    fig, q = planar(), np.array([0.3, 1.2])
    here = point(fig, TIP, q)
    constraints = [
        Constraint(TIP, PositionGoal(here - np.array([0.05, 0, 0])), name="left"),
        Constraint(TIP, PositionGoal(here + np.array([0.05, 0, 0])), name="right"),
    ]
    result = solve(fig, constraints, initial=q)
    report = result.determinacy
    assert report.state == OVER
    assert report.conflicting == ("right",)  # the later one; 'left' has only its z row idle
    assert "conflicting 'right'" in report.summary


def test_free_motions_move_no_constraint_to_first_order() -> None:
    fig, constraints, coords = seven_dof_position()
    report = at_pose(fig, constraints, coords).determinacy
    base = residuals(fig, constraints, coords)
    for motion in report.free_motions:
        for h in (1e-3, 1e-4):
            moved = residuals(fig, constraints, coords + h * motion.motion) - base
            assert np.linalg.norm(moved) < 2.0 * h * h  # second order: O(h^2)
        # a step of the same size off the free motions moves the tool to first order
    other = np.linalg.lstsq(
        np.column_stack([m.motion for m in report.free_motions]), np.ones(7), rcond=None
    )[0]
    off = np.ones(7) - np.column_stack([m.motion for m in report.free_motions]) @ other
    off /= np.linalg.norm(off)
    moved = residuals(fig, constraints, coords + 1e-4 * off) - base
    assert np.linalg.norm(moved) > 1e-6


def test_computed_on_first_access_only_and_needs_the_jacobians() -> None:
    result = at_pose(*seven_dof_position())
    assert "determinacy" not in result.__dict__
    assert result.determinacy is result.determinacy
    bare = dataclasses.replace(result, pose_jacobians=None)
    with pytest.raises(InvalidInputError, match="pose_jacobians"):
        _ = bare.determinacy
