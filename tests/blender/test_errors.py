"""Bad input: a clear message naming the constraint, and the scene left exactly as it was."""

from __future__ import annotations

import math

import bpy
import pytest

from tests.blender.reach_scenes import (
    activate,
    add_constraint,
    add_empty,
    assert_unchanged,
    call_reach,
    last_report,
    make_chain,
    scene_state,
)


def _scene_with_animation() -> tuple[bpy.types.Object, bpy.types.Object]:
    obj = make_chain()
    b0 = obj.pose.bones["b0"]
    b0.rotation_quaternion = (math.cos(0.1), 0.0, math.sin(0.1), 0.0)
    b0.keyframe_insert("rotation_quaternion", frame=1)
    obj.pose.bones["b1"].rotation_quaternion = (math.cos(0.2), math.sin(0.2), 0.0, 0.0)
    target = add_empty("T", (1.0, 0.5, 2.0))
    add_constraint(obj, "b2", target, "POSITION")
    bpy.context.scene.frame_start, bpy.context.scene.frame_end = 1, 10
    return obj, target


def _delete_bone(obj: bpy.types.Object, target: bpy.types.Object) -> None:
    activate(obj)
    bpy.ops.object.mode_set(mode="EDIT")
    obj.data.edit_bones.remove(obj.data.edit_bones["b2"])
    bpy.ops.object.mode_set(mode="OBJECT")


def _delete_target(obj: bpy.types.Object, target: bpy.types.Object) -> None:
    bpy.data.objects.remove(target)


def _zero_length(obj: bpy.types.Object, target: bpy.types.Object) -> None:
    obj.pose.bones["b2"].scale = (1.0, 0.0, 1.0)
    bpy.context.view_layer.update()


def _aim_at_effector(obj: bpy.types.Object, target: bpy.types.Object) -> None:
    item = obj.reach_ik.constraints[0]
    item.goal_type = "AIM"
    item.effector = "HEAD"
    bpy.context.view_layer.update()
    target.matrix_world.translation = obj.matrix_world @ obj.pose.bones["b2"].head
    bpy.context.view_layer.update()


def _contradictory_limits(obj: bpy.types.Object, target: bpy.types.Object) -> None:
    con = obj.pose.bones["b1"].constraints.new("LIMIT_ROTATION")
    con.owner_space = "LOCAL"
    con.use_limit_x = True
    con.min_x, con.max_x = 0.5, -0.5


def _nan_target(obj: bpy.types.Object, target: bpy.types.Object) -> None:
    target.location = (float("nan"), 0.0, 0.0)
    bpy.context.view_layer.update()


def _missing_chain_root(obj: bpy.types.Object, target: bpy.types.Object) -> None:
    item = obj.reach_ik.constraints[0]
    item.chain_mode = "ROOT"
    item.chain_root = "nope"


def _edit_mode(obj: bpy.types.Object, target: bpy.types.Object) -> None:
    activate(obj)
    bpy.ops.object.mode_set(mode="EDIT")  # bones are edit bones; Blender evaluates no pose


CASES = {
    "deleted bone": (_delete_bone, r"'b2 Position'.*bone 'b2' not found"),
    "deleted target": (_delete_target, r"'b2 Position'.*no target object"),
    "zero-length bone": (_zero_length, r"'b2 Position'.*'b2' has zero length"),
    "aim target at effector": (
        _aim_at_effector,
        r"'b2 Position'.*aim target is at the end-effector",
    ),
    "contradictory limits": (
        _contradictory_limits,
        r"'b2 Position'.*'b1' has contradictory limits",
    ),
    "NaN target": (_nan_target, r"'b2 Position'.*target 'T' has a non-finite"),
    "unknown chain root": (_missing_chain_root, r"'b2 Position'.*chain root bone 'nope'"),
    "edit mode": (_edit_mode, r"'Chain' is in Edit Mode; switch to Pose or Object Mode"),
}


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("operator", ["solve", "solve_and_key", "bake", "clear_keys"])
def test_bad_input_reports_and_changes_nothing(
    clean_scene: bpy.types.Scene, case: str, operator: str
) -> None:
    obj, target = _scene_with_animation()
    spoil, message = CASES[case]
    spoil(obj, target)
    activate(obj)
    before = scene_state(obj)
    with pytest.raises(RuntimeError, match=message):
        call_reach(operator)
    assert_unchanged(before, scene_state(obj))
    assert clean_scene.frame_current == 1


def test_armature_without_bones(clean_scene: bpy.types.Scene) -> None:
    arm = bpy.data.armatures.new("Empty")
    obj = bpy.data.objects.new("Empty", arm)
    clean_scene.collection.objects.link(obj)
    activate(obj)
    item = obj.reach_ik.constraints.add()
    item.name, item.bone = "c", "b0"
    with pytest.raises(RuntimeError, match="'Empty' has no bones"):
        bpy.ops.reach.solve()
    with pytest.raises(RuntimeError, match="no active bone"):
        bpy.ops.reach.constraint_add()


def test_no_constraints(clean_scene: bpy.types.Scene) -> None:
    obj = make_chain()
    activate(obj)
    with pytest.raises(RuntimeError, match="Add a Reach constraint first"):
        bpy.ops.reach.solve()


def test_unreachable_goal_is_reported_not_an_error(clean_scene: bpy.types.Scene) -> None:
    obj = make_chain()
    target = add_empty("T", (10.0, 0.0, 0.0))
    add_constraint(obj, "b2", target, "POSITION")
    assert bpy.ops.reach.solve() == {"FINISHED"}
    report = last_report(obj)
    assert not report.satisfied
    assert report.status == "Closest reachable pose: the chain cannot reach / other goals pull away"
    assert not report.constraints[0].satisfied and report.constraints[0].reason == ""
    assert report.constraints[0].measured.distance == pytest.approx(7.0, abs=1e-3)
    # A few restarts near the pose, not a search until the time limit (3 runs at most).
    assert report.iterations <= 3 * obj.reach_ik.max_iterations
