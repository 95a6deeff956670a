"""Reports name the real cause (issue 18, section 3): pose-scale noise from an importer is not
a shear; a baked range played over by another action or an NLA strip names it; Convert's
report stays readable however many constraints it converts; a weight-0 constraint is ignored,
not missed; a NaN target names its constraint once; a target that is the armature itself
without a bone, or the effector's own bone, is refused; a target at infinity is refused alike
by Solve and Bake.
"""

from __future__ import annotations

import math
from types import ModuleType

import bpy
import numpy as np
import pytest

from tests.blender.conftest import run_op
from tests.blender.panel_draw import draw_panels
from tests.blender.reach_scenes import (
    activate,
    add_constraint,
    add_empty,
    assert_unchanged,
    follow_path,
    last_report,
    make_chain,
    scene_state,
)

FRAMES = 6


def _circle(frame: int) -> tuple[float, float, float]:
    theta = 2.0 * math.pi * (frame - 1) / FRAMES
    return (1.0 * math.cos(theta), 1.0 * math.sin(theta), 2.2)


def _follower() -> bpy.types.Object:
    """A 3-bone chain whose tail follows an empty around a circle over :data:`FRAMES`."""
    return follow_path(_circle, FRAMES)[0]


# ---------------------------------------------------------------- pose scale
def test_importer_scale_noise_is_not_called_a_shear(clean_scene: bpy.types.Scene) -> None:
    """glTF's importer leaves pose scales like (1, 0.99999988, 0.9999971): uniform to float32
    precision, so no "inherits the non-uniform scale ... shears" note at every solve."""
    obj = make_chain()
    obj.pose.bones["b0"].scale = (1.0, 0.99999988, 0.9999971)
    obj.pose.bones["b1"].scale = (0.9999997, 1.0, 1.0000002)
    add_constraint(obj, "b2", add_empty("T", (1.0, 0.5, 2.0)), "POSITION")
    activate(obj)
    run_op(bpy.ops.reach.solve)
    report = last_report(obj)
    assert not any("non-uniform" in note for note in report.notes), report.text()
    assert report.satisfied, report.text()


def test_a_real_non_uniform_scale_is_still_named(clean_scene: bpy.types.Scene) -> None:
    obj = make_chain()
    obj.pose.bones["b0"].scale = (1.0, 0.9999, 1.0)  # 1e-4: far above float32 noise
    add_constraint(obj, "b2", add_empty("T", (1.0, 0.5, 2.0)), "POSITION")
    activate(obj)
    run_op(bpy.ops.reach.solve)
    assert any("inherits the non-uniform scale of 'b0'" in n for n in last_report(obj).notes)


# ---------------------------------------------------------------- what plays over a bake
def test_a_bake_under_the_active_action_names_the_action(clean_scene: bpy.types.Scene) -> None:
    """Baked to a new strip while the active action keys b1: the constraint's line names the
    action, not "Blender evaluates this chain differently"."""
    obj = _follower()
    obj.pose.bones["b1"].keyframe_insert("rotation_quaternion", frame=1)
    action = obj.animation_data.action.name
    run_op(bpy.ops.reach.bake, target="NEW_STRIP")
    report = last_report(obj)
    reason = report.reasons["b2 Position"]
    assert f"the action '{action}' plays over" in reason and "bone 'b1'" in reason, reason
    assert "differently" not in report.text()


def test_a_bake_blended_with_an_nla_strip_names_the_strip(clean_scene: bpy.types.Scene) -> None:
    """The armature's action adds to an NLA strip that keys b1: the constraint's line names
    the strip and its track."""
    obj = _follower()
    b1 = obj.pose.bones["b1"]
    b1.rotation_quaternion = (0.9, 0.3, 0.0, 0.0)
    b1.keyframe_insert("rotation_quaternion", frame=1)
    ad = obj.animation_data
    strip_action = ad.action
    ad.action = None
    track = ad.nla_tracks.new()
    track.name = "Walk"
    track.strips.new("Walk cycle", 1, strip_action)
    ad.action_blend_type = "ADD"
    b1.rotation_quaternion = (1.0, 0.0, 0.0, 0.0)
    run_op(bpy.ops.reach.bake)
    report = last_report(obj)
    reason = report.reasons["b2 Position"]
    assert "NLA strip 'Walk cycle' (track 'Walk')" in reason and "bone 'b1'" in reason, reason
    assert "differently" not in report.text()


# ---------------------------------------------------------------- Convert
def test_convert_reports_one_readable_line_per_constraint(
    clean_scene: bpy.types.Scene, capfd: pytest.CaptureFixture
) -> None:
    """Sixteen long-named IK chains: Blender cuts a report after 1,024 characters; every
    converted constraint keeps a whole line of its own in the Info log."""
    n = 16
    arm = bpy.data.armatures.new("Rig")
    obj = bpy.data.objects.new("Rig", arm)
    clean_scene.collection.objects.link(obj)
    activate(obj)
    bpy.ops.object.mode_set(mode="EDIT")
    names = [f"finger_segment_with_a_long_name_{k:02d}" for k in range(n)]
    for k, name in enumerate(names):
        root = arm.edit_bones.new(f"{name}_root")
        root.head, root.tail = (k, 0.0, 0.0), (k, 0.0, 1.0)
        tip = arm.edit_bones.new(name)
        tip.head, tip.tail, tip.parent, tip.use_connect = (k, 0.0, 1.0), (k, 0.0, 2.0), root, True
    bpy.ops.object.mode_set(mode="OBJECT")
    for k, name in enumerate(names):
        ik = obj.pose.bones[name].constraints.new("IK")
        ik.target, ik.chain_count = add_empty(f"goal {k:02d}", (k + 0.5, 0.0, 1.5)), 2
        ik.influence = 0.5  # a leftover per constraint: a longer report
    activate(obj)
    capfd.readouterr()
    run_op(bpy.ops.reach.convert_ik)
    out = capfd.readouterr().out
    assert "truncated" not in out
    lines = out.splitlines()
    for name in names:
        assert sum(line.strip().startswith(f"converted: {name} IK") for line in lines) == 1, name
    assert len(obj.reach_ik.constraints) == n


# ---------------------------------------------------------------- goals that mean nothing
def test_a_weight_zero_constraint_is_ignored_not_missed(
    clean_scene: bpy.types.Scene, extension: ModuleType
) -> None:
    obj = make_chain()
    add_constraint(obj, "b2", add_empty("Far", (3.0, 3.0, 3.0)), "POSITION", weight=0.0)
    add_constraint(obj, "b2", add_empty("Near", (1.0, 0.0, 2.0)), "POSITION")
    activate(obj)
    ignored = "b2 Position: 3.74e+00 units (ignored: weight 0)"
    run_op(bpy.ops.reach.solve)
    text = last_report(obj).text()
    assert text.startswith("Reach: All goals reached")
    assert "MISSED" not in text and f"  {ignored}\n" in text, text
    assert ("label", ignored) in draw_panels(extension)  # the panel's row says it too
    run_op(bpy.ops.reach.bake, use_scene_range=False, frame_start=1, frame_end=3)
    baked = last_report(obj)
    assert baked.satisfied and "UNREACHED" not in baked.text(), baked.text()
    assert f"  {ignored}\n" in baked.text()
    assert ("label", ignored) in draw_panels(extension)


def test_a_nan_target_names_its_constraint_once(clean_scene: bpy.types.Scene) -> None:
    obj = make_chain()
    target = add_empty("T", (1.0, 0.0, 2.0))
    add_constraint(obj, "b2", target, "POSITION")
    target.location = (float("nan"), 0.0, 2.0)
    activate(obj)
    for op in (bpy.ops.reach.solve, bpy.ops.reach.bake):
        with pytest.raises(RuntimeError) as info:
            op()
        text = str(info.value)
        assert "Constraint 'b2 Position': target 'T' has a non-finite (NaN) transform" in text
        assert text.count("Constraint 'b2 Position'") == 1, text


def _armature_itself(obj: bpy.types.Object) -> str:
    add_constraint(obj, "b2", obj, "POSITION")
    return "its target is the armature 'Chain' itself with no Target Bone"


def _own_bone(obj: bpy.types.Object) -> str:
    add_constraint(obj, "b2", obj, "POSITION", target_bone="b2", target_head_tail=1.0)
    return "its target is its own bone 'b2'"


def _own_bone_head(obj: bpy.types.Object) -> str:
    add_constraint(obj, "b2", obj, "ORIENTATION", target_bone="b2")
    return "its target is its own bone 'b2'"


@pytest.mark.parametrize("make", [_armature_itself, _own_bone, _own_bone_head])
def test_a_target_that_cannot_move_apart_from_the_armature_is_refused(
    clean_scene: bpy.types.Scene, make: object
) -> None:
    """Such a goal is met (or missed) whatever the solve does: "reached" would say nothing."""
    obj = make_chain()
    why = make(obj)
    activate(obj)
    before = scene_state(obj)
    for op in (bpy.ops.reach.solve, bpy.ops.reach.bake):
        with pytest.raises(RuntimeError, match=f"Constraint '[^']+': {why}"):
            op()
    assert_unchanged(before, scene_state(obj))


@pytest.mark.parametrize("value", [float("inf"), -float("inf"), 1e30])
def test_a_target_at_infinity_is_refused_alike_by_solve_and_bake(
    clean_scene: bpy.types.Scene, value: float
) -> None:
    obj = make_chain()
    target = add_empty("T", (1.0, 0.0, 2.0))
    add_constraint(obj, "b2", target, "POSITION")
    target.location = (value, 0.0, 2.0)
    bpy.context.view_layer.update()
    activate(obj)
    before = scene_state(obj)
    far = f"{float(np.abs(np.array(target.matrix_world.translation)).max()):.3g}"
    refusal = f"Constraint 'b2 Position': target 'T' is at infinity ({far} units from the origin)"
    for op, kwargs in ((bpy.ops.reach.solve, {}), (bpy.ops.reach.solve, {"insert_keys": True}),
                       (bpy.ops.reach.bake, {})):  # fmt: skip
        with pytest.raises(RuntimeError) as info:
            op(**kwargs)
        assert refusal in str(info.value), str(info.value)
    assert_unchanged(before, scene_state(obj))
