"""Tried on rigs nobody here built: a Target Bone of the solved armature that the solve does
not move, placed by a bone constraint (Rigify's IK target bones copy the foot's location)."""

from __future__ import annotations

import bpy
import numpy as np

from tests.blender.conftest import run_op, world_bone_head, world_bone_tail
from tests.blender.reach_scenes import activate, add_empty, last_report, make_chain

TOLERANCE = 1e-5


def test_target_bone_placed_by_a_constraint_is_reached(clean_scene: bpy.types.Scene) -> None:
    """The goal is where Blender draws the target bone (its Copy Location included), not where
    its parent and channels alone would put it."""
    obj = make_chain(n=2)
    activate(obj)
    bpy.ops.object.mode_set(mode="EDIT")
    goal = obj.data.edit_bones.new("goal")
    goal.head, goal.tail = (0.0, 0.0, 0.0), (0.0, 0.1, 0.0)
    bpy.ops.object.mode_set(mode="OBJECT")
    anchor = add_empty("anchor", (0.8, -0.6, 1.1))
    copy = obj.pose.bones["goal"].constraints.new("COPY_LOCATION")
    copy.target = anchor
    bpy.context.view_layer.update()
    run_op(bpy.ops.reach.constraint_add, bone="b1", target=obj.name, goal_type="POSITION")
    item = obj.reach_ik.constraints[0]
    item.target_bone, item.target_head_tail = "goal", 0.0  # its head, as Convert reads it
    run_op(bpy.ops.reach.solve)
    bpy.context.view_layer.update()
    miss = float(np.linalg.norm(world_bone_tail(obj, "b1") - world_bone_head(obj, "goal")))
    assert np.allclose(world_bone_head(obj, "goal"), anchor.location, atol=1e-6)
    assert miss < TOLERANCE, f"tip {miss:.3g} units from the target bone"
    assert last_report(obj).satisfied, last_report(obj).text()
