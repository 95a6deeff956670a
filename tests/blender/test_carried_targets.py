"""Targets carried by a bone the solve moves: the goal rides on that bone's segment.

A target parented to a solved bone (bone-parented, or parented to an object that is
bone-parented, or a Target Bone below a solved bone) moves with the chain. The solve models
that motion (the goal is carried by the bone's segment, at the offset Blender's parenting
gives), so the first solve is exact on Blender's own evaluation and a bake is repeatable.
Before, such targets were chased by correction passes (0.42 units missed by the first solve)
and a bake read them on the keys the solved channels had before the bake.
"""

from __future__ import annotations

import math
from types import ModuleType

import bpy
import numpy as np
import pytest
from mathutils import Matrix

from tests.blender.bake_support import keyframes_of
from tests.blender.conftest import run_op, world_bone_matrix, world_bone_tail
from tests.blender.panel_draw import draw_panels
from tests.blender.reach_scenes import (
    activate,
    add_constraint,
    add_empty,
    angle_between,
    last_report,
    make_chain,
    tolerance_of,
)

FRAMES = 12


def _bone_parent(child: bpy.types.Object, arm: bpy.types.Object, bone: str) -> None:
    child.parent, child.parent_type, child.parent_bone = arm, "BONE", bone


def _drawn_miss(obj: bpy.types.Object, target: bpy.types.Object) -> tuple[float, float]:
    """Distance (units) of b2's drawn tail from the drawn target, and the largest angle
    (degrees) between b2's X / Y axes and the target's, on Blender's evaluated scene."""
    bpy.context.view_layer.update()
    goal = np.array(target.matrix_world)
    miss = float(np.linalg.norm(world_bone_tail(obj, "b2") - goal[:3, 3]))
    bone = world_bone_matrix(obj, "b2")
    angle = max(angle_between(bone[:3, k], goal[:3, k]) for k in (0, 1))
    return miss, angle


def _reachable(obj: bpy.types.Object, target: bpy.types.Object) -> None:
    """Put ``target`` (already parented) on b2's tail frame of a bent pose, then return the
    chain to rest: the goal is exactly reachable, the target's parenting unchanged."""
    for name, rotation in (("b0", (0.3, 0.1, 0.2)), ("b1", (0.9, -0.3, 0.4)),
                           ("b2", (-0.5, 0.6, 0.2))):  # fmt: skip
        pb = obj.pose.bones[name]
        pb.rotation_mode, pb.rotation_euler = "XYZ", rotation
    bpy.context.view_layer.update()
    frame = world_bone_matrix(obj, "b2")
    frame[:3, 3] = world_bone_tail(obj, "b2")
    target.matrix_world = Matrix(frame.tolist())
    for pb in obj.pose.bones:
        pb.rotation_euler = (0.0, 0.0, 0.0)
    bpy.context.view_layer.update()


def _bone_parented(obj: bpy.types.Object) -> bpy.types.Object:
    """T bone-parented to b0 (Blender puts it at b0's tail, in b0's frame)."""
    target = add_empty("T", (0.0, 0.0, 0.0))
    _bone_parent(target, obj, "b0")
    _reachable(obj, target)
    return target


def _under_a_bone_parented_object(obj: bpy.types.Object) -> bpy.types.Object:
    """T parented to an empty P that is bone-parented to b1, both with a parent inverse."""
    holder = add_empty("P", (0.0, 0.0, 0.0))
    _bone_parent(holder, obj, "b1")
    holder.matrix_parent_inverse = add_empty("i", (0.2, 0.1, -0.3), (0.1, 0.4, -0.2)).matrix_world
    holder.location, holder.rotation_euler = (0.4, 0.2, -0.1), (0.0, 0.6, 0.2)
    target = add_empty("T", (0.0, 0.0, 0.0))
    target.parent = holder
    target.matrix_parent_inverse = add_empty("j", (-0.1, 0.3, 0.2), (0.5, 0.0, 0.3)).matrix_world
    _reachable(obj, target)
    return target


@pytest.mark.parametrize("make_target", [_bone_parented, _under_a_bone_parented_object])
def test_a_target_carried_by_a_solved_bone_is_solved_exactly(
    clean_scene: bpy.types.Scene, make_target: object
) -> None:
    obj = make_chain()
    target = make_target(obj)  # type: ignore[operator]
    add_constraint(obj, "b2", target, "POSITION_ORIENTATION", chain_mode="ALL")
    activate(obj)
    run_op(bpy.ops.reach.solve)
    report = last_report(obj)
    miss, angle = _drawn_miss(obj, target)
    [outcome] = report.constraints
    assert report.passes == 0 and report.satisfied and outcome.reason == ""
    assert abs(outcome.measured.distance - miss) < 1e-6
    assert miss <= tolerance_of(obj) and angle <= obj.reach_ik.angle_tolerance


@pytest.mark.parametrize("scale", [(0.5, 0.5, 0.5), (-1.0, 1.0, 1.0)], ids=["scaled", "mirrored"])
def test_a_carried_target_on_a_scaled_or_mirrored_armature_is_exact(
    clean_scene: bpy.types.Scene, scale: tuple
) -> None:
    """The offset from the bone's tail scales with the armature and survives a reflection."""
    obj = make_chain()
    obj.scale = scale
    bpy.context.view_layer.update()
    target = _under_a_bone_parented_object(obj)
    add_constraint(obj, "b2", target, "POSITION_ORIENTATION", chain_mode="ALL")
    activate(obj)
    run_op(bpy.ops.reach.solve)
    report = last_report(obj)
    miss, angle = _drawn_miss(obj, target)
    assert report.passes == 0 and report.satisfied
    assert miss <= tolerance_of(obj) and angle <= obj.reach_ik.angle_tolerance


def test_a_target_on_a_stretching_bone_is_left_to_correction(
    clean_scene: bpy.types.Scene,
) -> None:
    """IK Stretch on the carrying bone scales the target's offset during the solve: the goal
    is not carried, the correction passes follow the target, the report is what Blender
    draws (here only a stretch of b1 reaches: b2's tail must land 1.1 x S from b1's tail)."""
    obj = make_chain()
    obj.pose.bones["b1"].ik_stretch = 0.5
    target = add_empty("T", (0.0, 0.0, 0.0))
    _bone_parent(target, obj, "b1")
    target.location = (0.8, 0.7, 0.3)  # from b1's tail, in b1's frame: 1.1 units
    add_constraint(obj, "b2", target, "POSITION")
    activate(obj)
    run_op(bpy.ops.reach.solve)
    report = last_report(obj)
    [outcome] = report.constraints
    miss, _angle = _drawn_miss(obj, target)
    assert abs(outcome.measured.distance - miss) < 1e-6
    assert outcome.satisfied == (miss <= tolerance_of(obj))
    assert report.passes > 0 and "target 'T' is parented to the armature" in outcome.reason


def test_a_bone_of_another_armature_carried_by_a_solved_bone_is_exact(
    clean_scene: bpy.types.Scene,
) -> None:
    """Target Bone "b0" of an armature "Prop" that is bone-parented to the chain's b0."""
    obj = make_chain()
    prop = make_chain(name="Prop", n=1, length=0.3)
    _bone_parent(prop, obj, "b0")
    prop.location, prop.rotation_euler = (0.6, -0.8, 0.2), (0.4, 0.0, 0.9)
    prop.pose.bones["b0"].rotation_quaternion = (0.9, 0.2, -0.3, 0.1)
    add_constraint(obj, "b2", prop, "POSITION", target_bone="b0", target_head_tail=1.0)
    activate(obj)
    run_op(bpy.ops.reach.solve)
    report = last_report(obj)
    bpy.context.view_layer.update()
    miss = np.linalg.norm(world_bone_tail(obj, "b2") - world_bone_tail(prop, "b0"))
    assert report.passes == 0 and report.satisfied and miss <= tolerance_of(obj)


def _add_prop_bone(obj: bpy.types.Object) -> None:
    """Bone "prop" below b0 (not in the chain), its tail in reach of b2's tail."""
    activate(obj)
    bpy.ops.object.mode_set(mode="EDIT")
    prop = obj.data.edit_bones.new("prop")
    prop.head, prop.tail = (0.7, 0.2, 0.6), (0.7, 0.9, 0.6)
    prop.parent = obj.data.edit_bones["b0"]
    bpy.ops.object.mode_set(mode="OBJECT")


def _target_bone(obj: bpy.types.Object) -> tuple[bpy.types.Object, dict]:
    return obj, {"target_bone": "prop", "target_head_tail": 1.0}


def _child_of_prop(obj: bpy.types.Object) -> tuple[bpy.types.Object, dict]:
    target = add_empty("T", (0.7, 0.9, 0.6), (0.2, 0.1, -0.3))
    con = target.constraints.new("CHILD_OF")  # Blender sets the inverse: T stays put
    con.target, con.subtarget = obj, "prop"
    bpy.context.view_layer.update()
    return target, {}


def _copy_transforms_of_prop(obj: bpy.types.Object) -> tuple[bpy.types.Object, dict]:
    target = add_empty("T", (0.0, 0.0, 0.0))
    con = target.constraints.new("COPY_TRANSFORMS")
    con.target, con.subtarget, con.head_tail = obj, "prop", 1.0
    return target, {}


@pytest.mark.parametrize("link", [_target_bone, _child_of_prop, _copy_transforms_of_prop])
def test_a_target_held_by_a_bone_below_a_solved_bone_is_carried(
    clean_scene: bpy.types.Scene, extension: ModuleType, link: object
) -> None:
    """A Target Bone, or an object held on the bone by a full Child Of or Copy Transforms."""
    obj = make_chain()
    _add_prop_bone(obj)
    target, settings = link(obj)  # type: ignore[operator]
    add_constraint(obj, "b2", target, "POSITION", **settings)
    activate(obj)
    labels = [text for entry, text in draw_panels(extension) if entry == "label"]
    assert not any(text.startswith("target ") for text in labels), labels  # modelled
    run_op(bpy.ops.reach.solve)
    report = last_report(obj)
    bpy.context.view_layer.update()
    miss = np.linalg.norm(world_bone_tail(obj, "b2") - world_bone_tail(obj, "prop"))
    assert report.passes == 0 and report.satisfied and miss <= tolerance_of(obj)
    assert abs(report.constraints[0].measured.distance - miss) < 1e-6


def _bone_parent_animated(obj: bpy.types.Object) -> bpy.types.Object:
    """T bone-parented to b0, moving in b0's frame (Blender adds b0's tail)."""
    target = add_empty("T", (0.0, 0.0, 0.0))
    _bone_parent(target, obj, "b0")
    _animate(target, (0.0, 0.0, 0.0))
    return target


def _child_of_animated(obj: bpy.types.Object) -> bpy.types.Object:
    """T held on b0 by a Child Of with an identity inverse, moving in b0's head frame."""
    target = add_empty("T", (0.0, 0.0, 0.0))
    con = target.constraints.new("CHILD_OF")
    con.target, con.subtarget, con.set_inverse_pending = obj, "b0", False
    _animate(target, (0.0, 1.0, 0.0))
    return target


def _animate(target: bpy.types.Object, shift: tuple) -> None:
    for frame in range(1, FRAMES + 1):
        theta = 2.0 * math.pi * (frame - 1) / FRAMES
        path = (0.9 * math.cos(theta), 0.6 + 0.2 * math.sin(theta), 0.5)
        target.location = tuple(a + b for a, b in zip(path, shift, strict=True))
        target.keyframe_insert("location", frame=frame)


@pytest.mark.parametrize("make_target", [_bone_parent_animated, _child_of_animated])
def test_a_bake_of_a_carried_target_is_exact_and_repeatable(
    clean_scene: bpy.types.Scene, make_target: object
) -> None:
    obj = make_chain()
    target = make_target(obj)  # type: ignore[operator]
    add_constraint(obj, "b2", target, "POSITION")
    clean_scene.frame_start, clean_scene.frame_end = 1, FRAMES
    clean_scene.frame_set(1)
    activate(obj)
    run_op(bpy.ops.reach.bake)
    first = keyframes_of(obj)
    report = last_report(obj)
    assert report.satisfied and report.measured
    run_op(bpy.ops.reach.bake)  # the target now starts where the first bake's keys put it
    second = keyframes_of(obj)
    assert first.keys() == second.keys()
    for channel, data in first.items():
        assert np.array_equal(data["co"], second[channel]["co"]), channel
    for frame in range(1, FRAMES + 1):  # Blender's own evaluation of the baked keys
        clean_scene.frame_set(frame)
        miss = np.linalg.norm(
            world_bone_tail(obj, "b2") - np.array(target.matrix_world.translation)
        )
        assert miss <= tolerance_of(obj), (frame, miss)


def _copy_location_of_a_solved_bone(obj: bpy.types.Object) -> bpy.types.Object:
    target = add_empty("T", (0.8, -0.5, 0.3))  # offset from b0's tail, in world axes
    con = target.constraints.new("COPY_LOCATION")
    con.target, con.subtarget, con.head_tail, con.use_offset = obj, "b0", 1.0, True
    return target


def _relative_parent(obj: bpy.types.Object) -> bpy.types.Object:
    obj.data.bones["b0"].use_relative_parent = True
    target = add_empty("T", (0.0, 0.0, 0.0))
    _bone_parent(target, obj, "b0")
    target.location = (0.8, 1.0, 0.3)
    return target


@pytest.mark.parametrize(
    ("make_target", "line"),
    [
        (
            _copy_location_of_a_solved_bone,
            "target 'T' follows the armature through constraint 'Copy Location'",
        ),
        (
            _relative_parent,
            "target 'T' is parented to bone 'b0' with Relative Parenting (not modelled)",
        ),
    ],
)
def test_a_target_following_a_solved_bone_otherwise_is_corrected_and_listed(
    clean_scene: bpy.types.Scene, extension: ModuleType, make_target: object, line: str
) -> None:
    obj = make_chain()
    target = make_target(obj)  # type: ignore[operator]
    add_constraint(obj, "b2", target, "POSITION")
    activate(obj)
    labels = [text for entry, text in draw_panels(extension) if entry == "label"]
    assert line in labels  # in the constraint's details before any solve
    run_op(bpy.ops.reach.solve)
    report = last_report(obj)
    [outcome] = report.constraints
    bpy.context.view_layer.update()
    miss = np.linalg.norm(world_bone_tail(obj, "b2") - np.array(target.matrix_world.translation))
    assert abs(outcome.measured.distance - miss) < 1e-6
    assert report.passes > 0 and line in outcome.reason
    assert outcome.satisfied == (miss <= tolerance_of(obj))
