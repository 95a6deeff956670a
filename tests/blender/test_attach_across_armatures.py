"""Attach to Bone across armatures: a point of A's tip bone held on B's tip bone, A and B
solved as one system (B has a Reach constraint of its own: its tip on a plane), each Hold
keeping what it says on Blender's evaluated pose; a Target Chain on the other armature is
refused, naming what to do. Before, any Attach to Bone whose target was not its own armature
was refused."""

from __future__ import annotations

import math
from types import ModuleType

import bpy
import numpy as np
import pytest

from tests.blender.conftest import run_op, world_bone_matrix, world_bone_tail
from tests.blender.panel_draw import draw_panels
from tests.blender.reach_scenes import (
    activate,
    add_constraint,
    add_empty,
    angle_between,
    keys_of,
    last_report,
    make_chain,
    pose_of,
    tolerance_of,
)


def _turned(r: np.ndarray, r_ref: np.ndarray) -> float:
    """Angle (degrees) between two rotations (3, 3) from their difference, exact near 0 on
    float32 matrices (as in test_attach_to_bone.py; the trace's arccos loses ~0.02 degrees)."""
    chord = np.linalg.norm(np.asarray(r) - np.asarray(r_ref)) / (2.0 * math.sqrt(2.0))
    return math.degrees(2.0 * math.asin(min(chord, 1.0)))


def _arms(hold: str, oriented: bool = False) -> tuple[bpy.types.Object, bpy.types.Object]:
    """A at the origin, B 1.5 along X and turned 30 degrees about Z (two unit bones along +Z
    each, so the bones' rest axes differ by that turn); B's tip on the plane z = 1.2; A's tip
    attached to B's tip bone's tail with ``hold``."""
    b = make_chain("B", n=2)
    b.location = (1.5, 0.0, 0.0)
    b.rotation_euler = (0.0, 0.0, math.radians(30.0))
    a = make_chain("A", n=2)
    add_constraint(b, "b1", add_empty("Plane", (1.5, 0.0, 1.2)), "PLANE", target_axis="Z")
    item = add_constraint(a, "b1", b, "POSITION", target_bone="b1", target_head_tail=1.0)
    item.goal_type, item.attach_hold = "ATTACH", hold
    item.slider_orientation = oriented
    if hold == "HINGE":  # A's X axis (its hinge pin) parallel to B's X axis
        item.aim_axis, item.target_axis = "X", "X"
    if hold == "SLIDER":  # along B's tip bone
        item.target_axis = "Y"
    for obj in bpy.context.view_layer.objects:
        obj.select_set(False)
    activate(a)
    bpy.ops.object.mode_set(mode="POSE")
    return a, b


@pytest.mark.parametrize("hold", ["POINT", "WELD", "HINGE", "SLIDER", "SLIDER_ORIENTED"])
def test_each_hold_closes_across_two_armatures_solved_as_one_system(
    clean_scene: bpy.types.Scene, hold: str
) -> None:
    oriented = hold == "SLIDER_ORIENTED"
    hold = "SLIDER" if oriented else hold
    a, b = _arms(hold, oriented)
    rest = {obj.name: pose_of(obj) for obj in (a, b)}
    bpy.context.view_layer.update()
    rest_relative = world_bone_matrix(b, "b1")[:3, :3].T @ world_bone_matrix(a, "b1")[:3, :3]
    assert _turned(rest_relative, np.eye(3)) > 29.0  # the turn of B
    run_op(bpy.ops.reach.solve)
    bpy.context.view_layer.update()
    ma, mb = world_bone_matrix(a, "b1"), world_bone_matrix(b, "b1")
    tip, other = world_bone_tail(a, "b1"), world_bone_tail(b, "b1")
    if hold == "SLIDER":  # on the line through B's tip along B's tip bone
        axis = mb[:3, 1] / np.linalg.norm(mb[:3, 1])
        off = tip - other
        assert np.linalg.norm(off - (off @ axis) * axis) <= tolerance_of(a)
    else:
        assert np.linalg.norm(tip - other) <= tolerance_of(a)
    degrees = a.reach_ik.angle_tolerance
    if hold == "WELD" or oriented:  # as at rest, relative to each other
        assert _turned(mb[:3, :3].T @ ma[:3, :3], rest_relative) < degrees
    if hold == "HINGE":
        assert angle_between(ma[:3, 0], mb[:3, 0]) < degrees
    assert abs(other[2] - 1.2) <= tolerance_of(b)
    for obj in (a, b):  # both chains moved, both reports satisfied
        moved = max(np.abs(pose_of(obj)[n] - rest[obj.name][n]).max() for n in rest[obj.name])
        assert moved > 0.05, obj.name
        report = last_report(obj)
        assert report.satisfied, report.text()
    names = [c.measured.name for c in last_report(a).constraints]
    assert names == ["b1 Position"] + ["b1 Position (orientation)"] * oriented


def test_a_bake_keys_both_armatures_with_the_weld_held(clean_scene: bpy.types.Scene) -> None:
    a, b = _arms("WELD")
    plane = bpy.data.objects["Plane"]
    for frame, z in ((1, 1.0), (5, 1.3)):
        plane.location.z = z
        plane.keyframe_insert("location", frame=frame)
    run_op(bpy.ops.reach.bake, use_scene_range=False, frame_start=1, frame_end=5)
    for obj in (a, b):
        assert keys_of(obj), obj.name
        report = last_report(obj)
        assert report.satisfied and report.frames == (1, 2, 3, 4, 5), report.text()
    for frame in range(1, 6):
        clean_scene.frame_set(frame)
        gap = np.linalg.norm(world_bone_tail(a, "b1") - world_bone_tail(b, "b1"))
        assert gap <= tolerance_of(a), frame


def test_a_target_chain_on_the_other_armature_is_refused_naming_what_to_do(
    clean_scene: bpy.types.Scene, extension: ModuleType
) -> None:
    a, b = _arms("POINT")
    item = a.reach_ik.constraints[0]

    def drawn() -> list[str]:
        return [name for kind, name in draw_panels(extension) if kind in ("prop", "prop_search")]

    assert "target_chain_mode" not in drawn()  # None: nothing to set on another armature
    item.target_chain_mode = "ALL"
    assert "target_chain_mode" in drawn()  # set: shown, so it can be set back
    before = {obj.name: pose_of(obj) for obj in (a, b)}
    with pytest.raises(RuntimeError, match=(
        "Constraint 'b1 Position': a Target Chain moves bones of armature 'A' only, and 'b1' "
        "is a bone of armature 'B': set Target Chain to None; 'B''s bones move as its own "
        "Reach constraints solve them"
    )):  # fmt: skip
        bpy.ops.reach.solve()
    for obj in (a, b):
        after = pose_of(obj)
        assert all(np.array_equal(before[obj.name][n], after[n]) for n in after), obj.name
    item.target_chain_mode = "NONE"
    run_op(bpy.ops.reach.solve)
    assert last_report(a).satisfied and last_report(b).satisfied


def test_with_no_reach_constraint_on_the_other_armature_its_bone_is_a_fixed_target(
    clean_scene: bpy.types.Scene,
) -> None:
    """B has no Reach constraint, so nothing joins it: A alone holds the weld on B's bone
    where Blender poses it (as a Position goal on another armature's bone does)."""
    a, b = _arms("WELD")
    b.reach_ik.constraints.clear()
    b.location = (0.6, 0.0, -0.2)  # the weld closes with A's b0 to (0.6, 0, 0.8), b1 upright
    activate(a)
    rest_b = pose_of(b)
    bpy.context.view_layer.update()
    rest_relative = world_bone_matrix(b, "b1")[:3, :3].T @ world_bone_matrix(a, "b1")[:3, :3]
    run_op(bpy.ops.reach.solve)
    bpy.context.view_layer.update()
    ma, mb = world_bone_matrix(a, "b1"), world_bone_matrix(b, "b1")
    assert np.linalg.norm(world_bone_tail(a, "b1") - world_bone_tail(b, "b1")) <= tolerance_of(a)
    assert _turned(mb[:3, :3].T @ ma[:3, :3], rest_relative) < a.reach_ik.angle_tolerance
    assert all(np.array_equal(rest_b[n], v) for n, v in pose_of(b).items())
    assert "one system" not in " ".join(last_report(a).notes)
