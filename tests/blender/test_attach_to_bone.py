"""Attach to Bone: a point of one bone held on another bone of the same armature, both sides'
chains solved as one system, made with ``reach.attach_to_bone`` and solved with
``reach.solve`` (what each Hold keeps, on Blender's evaluated pose), and its errors."""

from __future__ import annotations

import math
from types import ModuleType

import bpy
import numpy as np
import pytest

from tests.blender.conftest import run_op, select_pose_bones, world_bone_matrix
from tests.blender.panel_draw import draw_panels
from tests.blender.reach_scenes import angle_between, last_report, make_chain, rotation_angle

#: Four-bar in the YZ plane (every bone's X axis is the world X): bone -> (head, tail, parent).
FOUR_BAR = {
    "ground": ((0.0, 0.0), (2.0, 0.0), None),
    "crank": ((0.0, 0.0), (0.0, 1.0), "ground"),
    "coupler": ((0.0, 1.0), (2.2, 1.6), "crank"),
    "rocker": ((2.0, 0.0), (2.2, 1.6), "ground"),
}
#: Two bones hanging off one root whose rest pose closes: ``a``'s tail is ``b``'s middle.
PAIR = {
    "root": ((0.0, 0.0, -1.0), (0.0, 0.0, 0.0), None),
    "a": ((0.0, 0.0, 0.0), (0.0, 0.0, 1.0), "root"),
    "b": ((0.0, 1.0, 0.0), (0.0, -1.0, 2.0), "root"),
}


Bones = dict[str, tuple[tuple[float, ...], tuple[float, ...], str | None]]


def _armature(bones: Bones) -> bpy.types.Object:
    """An armature of ``bones`` (2D points lie in the YZ plane), active, in pose mode."""
    data = bpy.data.armatures.new("Rig")
    obj = bpy.data.objects.new("Rig", data)
    bpy.context.scene.collection.objects.link(obj)
    bpy.context.view_layer.objects.active = obj
    obj.select_set(True)
    bpy.ops.object.mode_set(mode="EDIT")
    for name, (head, tail, parent) in bones.items():
        bone = data.edit_bones.new(name)
        bone.head = head if len(head) == 3 else (0.0, *head)
        bone.tail = tail if len(tail) == 3 else (0.0, *tail)
        if parent is not None:
            bone.parent = data.edit_bones[parent]
            bone.use_connect = np.allclose(bone.head, data.edit_bones[parent].tail)
    bpy.ops.object.mode_set(mode="POSE")
    return obj


def _point(obj: bpy.types.Object, bone: str, head_tail: float) -> np.ndarray:
    """World point (3,) at ``head_tail`` along a bone on the evaluated pose."""
    bpy.context.view_layer.update()
    pb = obj.pose.bones[bone]
    head, tail = np.array(pb.head), np.array(pb.tail)
    return (np.array(obj.matrix_world) @ np.array([*(head + head_tail * (tail - head)), 1.0]))[:3]


def _closure(obj: bpy.types.Object, item: object) -> float:
    """Distance from the constraint's bone tail to its point on the other bone (world)."""
    tip = _point(obj, item.bone, 1.0)
    return float(np.linalg.norm(tip - _point(obj, item.target_bone, item.target_head_tail)))


def _turned(r: np.ndarray, r_ref: np.ndarray) -> float:
    """Angle (degrees) between two rotations (3, 3), from their difference: exact near 0 on
    float32 matrices (the trace's arccos loses ~0.02 degrees there)."""
    chord = np.linalg.norm(np.asarray(r) - np.asarray(r_ref)) / (2.0 * math.sqrt(2.0))
    return math.degrees(2.0 * math.asin(min(chord, 1.0)))


def _turn(obj: bpy.types.Object, bone: str, axis: tuple[float, float, float], degrees: float
          ) -> None:  # fmt: skip
    pb = obj.pose.bones[bone]
    pb.rotation_mode = "QUATERNION"
    half = math.radians(degrees) / 2.0
    u = np.array(axis) / np.linalg.norm(axis)
    pb.rotation_quaternion = (math.cos(half), *(math.sin(half) * u))


def test_attach_from_two_selected_bones_moves_both_sides_of_a_four_bar(
    clean_scene: bpy.types.Scene,
) -> None:
    obj = _armature(FOUR_BAR)
    for name in ("crank", "coupler", "rocker"):
        pb = obj.pose.bones[name]
        pb.lock_ik_y = pb.lock_ik_z = True  # hinges about X
    select_pose_bones(obj, ["coupler", "rocker"], active="rocker")
    run_op(bpy.ops.reach.attach_to_bone)
    item = obj.reach_ik.constraints[-1]
    assert (item.goal_type, item.attach_hold, item.bone, item.target, item.target_bone) == (
        "ATTACH", "POINT", "coupler", obj, "rocker",
    )  # fmt: skip
    assert abs(item.target_head_tail - 1.0) < 1e-6  # the point of the rocker nearest the tail
    # Each side up to the common ancestor (ground): crank + coupler, and the rocker.
    assert (item.chain_mode, item.chain_root) == ("ROOT", "crank")
    assert (item.target_chain_mode, item.target_chain_root) == ("ROOT", "rocker")
    item.chain_mode, item.chain_length = "LENGTH", 1  # the crank is the input: posed, not solved
    _turn(obj, "crank", (1.0, 0.0, 0.0), -25.0)
    bpy.context.view_layer.update()
    rocker_before = world_bone_matrix(obj, "rocker")
    crank_before = world_bone_matrix(obj, "crank")
    assert _closure(obj, item) > 0.1  # the crank opened the loop
    run_op(bpy.ops.reach.solve)
    closure = _closure(obj, item)
    assert closure < 1e-5
    assert rotation_angle(world_bone_matrix(obj, "rocker"), rocker_before) > 5.0  # it moved
    assert np.abs(world_bone_matrix(obj, "crank") - crank_before).max() < 1e-6  # an input
    # Last Solve measures the loop's closure on Blender's evaluated pose.
    outcome = last_report(obj).constraints[0]
    assert outcome.measured.satisfied
    assert abs(outcome.measured.distance - closure) < 1e-6


def test_a_target_bone_without_target_chain_leaves_the_other_side_still(
    clean_scene: bpy.types.Scene,
) -> None:
    """The loop above with Target Chain None: the rocker is read, not solved, so the coupler
    alone cannot close it (what a Target Bone did before Attach to Bone)."""
    obj = _armature(FOUR_BAR)
    for name in ("crank", "coupler", "rocker"):
        pb = obj.pose.bones[name]
        pb.lock_ik_y = pb.lock_ik_z = True
    run_op(bpy.ops.reach.attach_to_bone, bone="coupler", other="rocker")
    item = obj.reach_ik.constraints[-1]
    item.chain_mode, item.chain_length = "LENGTH", 1
    item.target_chain_mode = "NONE"
    _turn(obj, "crank", (1.0, 0.0, 0.0), -25.0)
    run_op(bpy.ops.reach.solve)
    assert _closure(obj, item) > 0.05
    assert not last_report(obj).constraints[0].measured.satisfied


@pytest.mark.parametrize("hold", ["POINT", "WELD", "HINGE", "SLIDER", "SLIDER_ORIENTED"])
def test_each_hold_keeps_what_it_says(clean_scene: bpy.types.Scene, hold: str) -> None:
    obj = _armature(PAIR)
    rest_relative = world_bone_matrix(obj, "b")[:3, :3].T @ world_bone_matrix(obj, "a")[:3, :3]
    oriented = hold == "SLIDER_ORIENTED"
    hold = "SLIDER" if oriented else hold
    run_op(bpy.ops.reach.attach_to_bone, bone="a", other="b", hold=hold)
    item = obj.reach_ik.constraints[-1]
    item.slider_orientation = oriented
    assert abs(item.target_head_tail - 0.5) < 1e-6
    if hold == "HINGE":
        item.aim_axis, item.target_axis = "X", "X"
    _turn(obj, "a", (0.3, 1.0, 0.2), 35.0)
    _turn(obj, "b", (1.0, -0.4, 0.5), -30.0)
    run_op(bpy.ops.reach.solve)
    a, b = world_bone_matrix(obj, "a"), world_bone_matrix(obj, "b")
    tip, middle = _point(obj, "a", 1.0), _point(obj, "b", 0.5)
    angle_tolerance = obj.reach_ik.angle_tolerance  # degrees
    if hold == "SLIDER":  # on b's axis line, anywhere along it
        axis = b[:3, 1] / np.linalg.norm(b[:3, 1])
        off = tip - middle
        assert np.linalg.norm(off - (off @ axis) * axis) < 1e-5
    else:
        assert np.linalg.norm(tip - middle) < 1e-5
    relative = b[:3, :3].T @ a[:3, :3]
    if hold == "WELD" or oriented:
        assert _turned(relative, rest_relative) < angle_tolerance
    elif hold == "SLIDER":  # free to turn: the solve left it turned
        assert _turned(relative, rest_relative) > 1.0
    if hold == "HINGE":
        assert angle_between(a[:3, 0], b[:3, 0]) < angle_tolerance
    outcomes = last_report(obj).constraints
    assert [c.measured.name for c in outcomes] == ["a to b"] + ["a to b (orientation)"] * oriented
    assert all(c.measured.satisfied for c in outcomes)


def test_errors_name_the_constraint_and_the_bones(clean_scene: bpy.types.Scene) -> None:
    obj = make_chain(n=3)
    bpy.ops.object.mode_set(mode="POSE")
    with pytest.raises(RuntimeError, match="bone 'b1' cannot be attached to itself"):
        bpy.ops.reach.attach_to_bone(bone="b1", other="b1")
    with pytest.raises(RuntimeError, match="bone 'nope' not found in 'Chain'"):
        bpy.ops.reach.attach_to_bone(bone="b1", other="nope")
    run_op(bpy.ops.reach.attach_to_bone, bone="b1", other="b2")
    item = obj.reach_ik.constraints[-1]
    # b2 hangs below b1: only b2's own chain can close the loop; without it, none does.
    assert (item.chain_mode, item.chain_length) == ("LENGTH", 1)
    assert item.target_chain_mode == "ROOT"
    item.target_chain_mode = "NONE"
    with pytest.raises(RuntimeError, match=f"Constraint '{item.name}': bone 'b1' is attached to "
                       "'b2', and every bone its chain moves \\(b1\\) carries both"):  # fmt: skip
        bpy.ops.reach.solve()
    item.target_bone = "nope"
    with pytest.raises(RuntimeError, match=f"Constraint '{item.name}': target bone 'nope' not"):
        bpy.ops.reach.solve()
    item.target_bone = ""
    with pytest.raises(RuntimeError, match=f"Constraint '{item.name}': no bone to attach 'b1'"):
        bpy.ops.reach.solve()
    empty = bpy.data.objects.new("E", None)
    bpy.context.scene.collection.objects.link(empty)
    item.target, item.target_bone = empty, "b2"
    with pytest.raises(RuntimeError, match="Attach to Bone holds bone 'b1' on another bone of "
                       "armature 'Chain', but it has target 'E'"):  # fmt: skip
        bpy.ops.reach.solve()


@pytest.mark.parametrize(
    ("hold", "shown"),
    [
        ("POINT", []),
        ("WELD", ["auto_degrees", "position_weight"]),
        ("HINGE", ["aim_axis", "target_axis", "auto_degrees", "position_weight"]),
        ("SLIDER", ["target_axis", "slider_orientation"]),
    ],
)
def test_panel_shows_the_hold_and_both_chains(
    clean_scene: bpy.types.Scene, extension: ModuleType, hold: str, shown: list[str]
) -> None:
    _armature(PAIR)
    run_op(bpy.ops.reach.attach_to_bone, bone="a", other="b", hold=hold)
    drawn = [name for kind, name in draw_panels(extension) if kind in ("prop", "prop_search")]
    for name in ("target_bone", "target_head_tail", "attach_hold", "target_chain_mode",
                 "target_chain_root", "chain_mode", "chain_root", *shown):  # fmt: skip
        assert name in drawn, name
    assert ("suppress" in drawn, "group" in drawn) == (False, False)  # a goal's, not a hold's


@pytest.mark.parametrize("hold", ["WELD", "HINGE", "SLIDER"])
def test_a_held_orientation_on_a_sheared_armature_is_refused_like_an_orientation_goal(
    clean_scene: bpy.types.Scene, hold: str
) -> None:
    obj = _armature(PAIR)
    run_op(bpy.ops.reach.attach_to_bone, bone="a", other="b", hold=hold)
    obj.reach_ik.constraints[-1].slider_orientation = True  # read by a slider only
    obj.scale = (1.0, 1.5, 1.0)  # non-uniform: the bones' drawn axes are no longer orthogonal
    with pytest.raises(RuntimeError, match=r"Constraint 'a to b': .*orientation goals cannot be"):
        bpy.ops.reach.solve()


def test_add_constraint_attach_uses_the_selected_bones(clean_scene: bpy.types.Scene) -> None:
    """Pose › Reach › Add Constraint › Attach to Bone: the active bone is the other bone."""
    obj = _armature(PAIR)
    select_pose_bones(obj, ["a", "b", "root"], active="b")
    with pytest.raises(RuntimeError, match="select exactly two bones, the one to attach and 'b'"):
        bpy.ops.reach.constraint_add(goal_type="ATTACH")
    select_pose_bones(obj, ["a", "b"], active="b")
    run_op(bpy.ops.reach.constraint_add, goal_type="ATTACH")
    item = obj.reach_ik.constraints[-1]
    assert (item.name, item.goal_type, item.attach_hold, item.target, item.target_bone) == (
        "a to b", "ATTACH", "POINT", obj, "b",
    )  # fmt: skip


def test_a_locked_bone_attached_to_a_moving_chain_is_solved_by_the_other_side(
    clean_scene: bpy.types.Scene,
) -> None:
    """Only the other side moves (the bone's own chain is locked): the loop closes there."""
    obj = _armature(PAIR)
    pb = obj.pose.bones["a"]
    pb.lock_ik_x = pb.lock_ik_y = pb.lock_ik_z = True
    run_op(bpy.ops.reach.attach_to_bone, bone="a", other="b")
    item = obj.reach_ik.constraints[-1]
    _turn(obj, "b", (1.0, -0.4, 0.5), -30.0)
    run_op(bpy.ops.reach.solve)
    assert _closure(obj, item) < 1e-5
    item.target_chain_mode = "NONE"  # with the other side still too, nothing can move
    with pytest.raises(RuntimeError, match=f"Constraint '{item.name}': no bone of its chain can"):
        bpy.ops.reach.solve()


def test_not_modelled_lists_the_other_sides_bone_constraints(
    clean_scene: bpy.types.Scene, extension: ModuleType
) -> None:
    """A bone constraint on the loop's other side moves the goal after the solve: listed."""
    obj = _armature(FOUR_BAR)
    run_op(bpy.ops.reach.attach_to_bone, bone="coupler", other="rocker")
    heading = extension.bridge.measure.not_modelled.HEADING
    labels = [text for kind, text in draw_panels(extension) if kind == "label"]
    assert heading not in labels
    con = obj.pose.bones["rocker"].constraints.new("COPY_ROTATION")
    con.target, con.influence = bpy.data.objects.new("Source", None), 0.5
    labels = [text for kind, text in draw_panels(extension) if kind == "label"]
    assert labels[labels.index(heading) + 1] == "bone 'rocker': Copy Rotation 'Copy Rotation' " \
        "(influence 0.5)"  # fmt: skip
