"""The Last Solve box's determinacy line without Blender: the state, the conflicting goal by
name, and the free motions by bone, on the two-bone arm of the conditioning line's tests."""

from __future__ import annotations

import numpy as np

from tests.bridge_stubs import bridge_module
from tests.test_bridge_conditioning import solver, two_bone_arm

determinacy = bridge_module("measure.determinacy_readout")


def test_two_goals_apart_name_the_later_conflicting_and_the_free_bones() -> None:
    fig, solved = two_bone_arm()
    tip = solver.EndEffector("forearm", (0.0, 1.0, 0.0))
    goals = [
        solver.Constraint(tip, solver.PositionGoal((0.0, 1.5, 1.0)), name="left"),
        solver.Constraint(tip, solver.PositionGoal((0.0, 1.5, 1.2)), name="right"),
    ]
    start = np.full(len(fig.coordinate_names), 0.3)
    result = solver.solve(fig, goals, initial=start)
    readout = determinacy.DeterminacyReadout(result, tuple(solved))
    assert "determinacy" not in result.__dict__  # nothing until the line is asked for
    report = readout.determinacy
    assert report.state == "over-constrained" and report.conflicting == ("right",)
    assert report.redundant == ()
    line = readout.line
    assert line.startswith(
        f"Determinacy: over-constrained, {report.dof} DOF, 3 independent of 6 equations; "
        "conflicting: right; free: "
    ), line
    bones = {b for group in line.split("; free: ")[1].split(", ") for b in group.split("+")}
    assert bones <= {"upperarm", "forearm"} and bones, line
