"""Tried on rigs nobody here built: Rigify drives the ``mute`` of its IK constraints, and its
IK chains hang below bones with constraints of their own. After Convert, a correction pass
must not blame the (now muted) driver of the IK's switch."""

from __future__ import annotations

import bpy

from tests.blender.conftest import run_op
from tests.blender.reach_scenes import activate, add_empty, last_report, make_chain


def test_a_muted_switch_driver_is_not_given_as_the_reason(clean_scene: bpy.types.Scene) -> None:
    """b0 <- b1 (turned by a Damped Track at influence 0.2) <- b2, an IK of two bones on b2
    whose ``mute`` is driven, as Rigify's are. Convert mutes the IK and its driver; Solve
    reaches the target after correction passes, which name the Damped Track, not the muted
    driver. (A constrained bone above the chain, like Rigify's swing bone, is modelled where
    Blender puts it and needs no pass: ``test_convert_rigify.py``.)"""
    obj = make_chain(n=3, connected=False)
    track = obj.pose.bones["b1"].constraints.new("DAMPED_TRACK")
    track.influence = 0.2
    track.target = add_empty("look", (1.0, 0.5, 0.2))
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
    assert "bone 'b1' has a Damped Track constraint 'Damped Track' at influence 0.2" in reason
