"""Tried on rigs nobody here built: Rigify drives the ``mute`` of its IK constraints, and its
chains carry constraints of their own. After Convert, a correction pass must not blame the
(now muted) driver of the IK's switch."""

from __future__ import annotations

import bpy

from tests.blender.conftest import run_op
from tests.blender.reach_scenes import activate, add_empty, last_report, make_chain


def test_a_muted_switch_driver_is_not_given_as_the_reason(clean_scene: bpy.types.Scene) -> None:
    """b0 <- b1 (a Copy Location at influence 0.5) <- b2, an IK of two bones on b2 whose
    ``mute`` is driven, as Rigify's are. Convert mutes the IK and its driver; Solve reaches
    the target after correction passes, which name the Copy Location, not the muted driver."""
    obj = make_chain(n=3, connected=False)
    copy = obj.pose.bones["b1"].constraints.new("COPY_LOCATION")
    copy.target, copy.influence = add_empty("source", (1.0, 0.5, 0.2)), 0.5
    ik = obj.pose.bones["b2"].constraints.new("IK")
    ik.target, ik.chain_count = add_empty("foot", (0.5, 0.3, 1.5)), 2
    driver = ik.driver_add("mute").driver
    driver.type, driver.expression = "SCRIPTED", "0"
    bpy.context.view_layer.update()
    activate(obj)
    run_op(bpy.ops.reach.convert_ik)
    run_op(bpy.ops.reach.solve)
    report = last_report(obj)
    assert report.satisfied and report.passes > 0, report.text()
    reason = report.constraints[0].reason
    assert "driven" not in reason, reason
    assert "bone 'b1' has a Copy Location constraint 'Copy Location' at influence 0.5" in reason
