"""The Last Solve box's determinacy line after a Solve, in real Blender (4.2 and 5.0).

A three-bone chain (bones ``b0``, ``b1``, ``b2``, free rotations) with one position goal on
its tip: three equations on the chain's rotation channels leave it under-constrained, and
the line names the bones of its free motions. The report is computed when the panel first
draws it, not by the Solve.
"""

from __future__ import annotations

from types import ModuleType

import bpy
import pytest

from tests.blender.conftest import run_op
from tests.blender.panel_draw import draw_panels
from tests.blender.reach_scenes import activate, add_constraint, add_empty, last_report, make_chain

BONES = ("b0", "b1", "b2")


def _determinacy_lines(extension: ModuleType) -> list[str]:
    """The determinacy labels the panels draw for the active armature."""
    labels = [text for kind, text in draw_panels(extension) if kind == "label"]
    return [text for text in labels if text.startswith("Determinacy")]


@pytest.mark.usefixtures("clean_scene")
def test_one_position_goal_leaves_a_chain_under_constrained(extension: ModuleType) -> None:
    obj = make_chain("Arm", n=3, length=1.0)
    target = add_empty("T", (0.8, 0.5, 2.2))
    add_constraint(obj, "b2", target, "POSITION")
    activate(obj)
    run_op(bpy.ops.reach.solve)
    report = last_report(obj)
    assert report.satisfied and report.determinacy is not None
    assert "determinacy" not in report.determinacy.result.__dict__  # the Solve paid nothing
    [line] = _determinacy_lines(extension)
    determinacy = report.determinacy.determinacy
    dof = determinacy.dof
    assert dof == report.dof and determinacy.rank == 3 and determinacy.equations == 3
    assert line.startswith(
        f"Determinacy: under-constrained, {dof} DOF, 3 independent of 3 equations; free: "
    ), line
    assert len(determinacy.free_motions) == dof - 3
    named = line.split("; free: ")[1].removesuffix(" more").split(" and ")[0]
    bones = {bone for group in named.split(", ") for bone in group.split("+")}
    assert bones and bones <= set(BONES), line
