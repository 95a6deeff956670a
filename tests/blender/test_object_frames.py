"""Armatures under mirrored, rotated, scaled and sheared object transforms.

Mirrored armatures (a negative determinant anywhere up the parent chain) are modelled
exactly: the tip lands on the target and the bone's X and Y axes on the target's, with no
correction pass. An armature whose world transform is not a rotation times a uniform scale
(non-uniform scale on it, or on a parent with a rotation in between: a shear) is refused
before anything is touched, naming the object whose transform causes it.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import bpy
import numpy as np
import pytest
from mathutils import Vector

from tests.blender.conftest import run_op, world_bone_matrix, world_bone_tail
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


def _parented(obj: bpy.types.Object, parent: bpy.types.Object) -> None:
    """Parent ``obj`` to ``parent`` keeping its local transform as the child's basis."""
    obj.parent = parent
    obj.matrix_parent_inverse.identity()
    bpy.context.view_layer.update()


def _mirrored_parent(obj: bpy.types.Object) -> None:
    parent = add_empty("P", (0.5, -0.3, 0.2))
    parent.scale = (-1.0, 1.0, 1.0)
    _parented(obj, parent)
    obj.rotation_euler = (0.3, -0.2, 0.5)


def _mirrored_on_two_axes(obj: bpy.types.Object) -> None:
    obj.scale = (-1.0, -1.0, 1.0)  # a half turn about Z: no reflection at all
    obj.rotation_euler = (0.2, 0.1, 0.0)


def _mirrored_on_three_axes(obj: bpy.types.Object) -> None:
    obj.scale = (-1.2, -1.2, -1.2)


def _mirrored_and_rotated_parents(obj: bpy.types.Object) -> None:
    top = add_empty("Top", (0.2, 0.1, -0.4), (0.4, 0.0, -0.7))
    middle = add_empty("Middle", (0.0, 0.3, 0.0), (0.0, 0.5, 0.2))
    middle.scale = (1.5, -1.5, 1.5)
    _parented(middle, top)
    _parented(obj, middle)
    obj.rotation_euler = (-0.3, 0.2, 0.9)
    obj.scale = (0.8, 0.8, 0.8)


MIRRORED: dict[str, Callable[[bpy.types.Object], None]] = {
    "mirrored parent": _mirrored_parent,
    "mirrored on two axes": _mirrored_on_two_axes,
    "mirrored on three axes": _mirrored_on_three_axes,
    "mirrored and rotated parents": _mirrored_and_rotated_parents,
}


@pytest.mark.parametrize("case", list(MIRRORED))
def test_mirrored_transforms_are_solved_exactly(clean_scene: bpy.types.Scene, case: str) -> None:
    obj = make_chain()
    MIRRORED[case](obj)
    bpy.context.view_layer.update()
    # A reachable pose: the rest tail pulled back towards the root and sideways (the chain
    # is straight at rest), the tip turned a little.
    rest_tail = world_bone_tail(obj, "b2")
    rest = world_bone_matrix(obj, "b2")[:3, :3]
    length = float(np.linalg.norm(rest[:, 1])) * obj.data.bones["b2"].length  # world units
    rest /= np.linalg.norm(rest, axis=0)
    shift = length * (-0.6 * rest[:, 1] + 0.4 * rest[:, 0] + 0.3 * rest[:, 2])
    target = add_empty("T", tuple(rest_tail + shift))
    # Target axes: the bone's rest X and Y turned by 20 degrees about the rest Z.
    c, s = math.cos(0.35), math.sin(0.35)
    axes = rest @ np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
    if np.linalg.det(axes) < 0:  # a target's own frame is right-handed: flip its Z
        axes[:, 2] *= -1.0
    m = np.eye(4)
    m[:3, :3], m[:3, 3] = axes, np.array(target.location)
    target.matrix_world = m.T.tolist()
    bpy.context.view_layer.update()
    add_constraint(obj, "b2", target, "POSITION_ORIENTATION")
    activate(obj)
    run_op(bpy.ops.reach.solve)
    bpy.context.view_layer.update()
    report = last_report(obj)
    miss = np.linalg.norm(world_bone_tail(obj, "b2") - np.array(target.matrix_world.translation))
    bone = world_bone_matrix(obj, "b2")[:3, :3]
    bone /= np.linalg.norm(bone, axis=0)
    goal = np.array(target.matrix_world.to_3x3().normalized())
    x_angle = math.degrees(math.acos(np.clip(bone[:, 0] @ goal[:, 0], -1.0, 1.0)))
    y_angle = math.degrees(math.acos(np.clip(bone[:, 1] @ goal[:, 1], -1.0, 1.0)))
    assert miss < 1e-4 and max(x_angle, y_angle) < 0.05, (miss, x_angle, y_angle, report.text())
    assert report.satisfied and report.passes == 0


def _rotation_to(direction: tuple[float, float, float]) -> tuple[float, ...]:
    """Quaternion (w, x, y, z) turning +X onto ``direction``."""
    d = np.asarray(direction, dtype=float) / np.linalg.norm(direction)
    axis = np.cross([1.0, 0.0, 0.0], d)
    angle = math.acos(float(d[0]))
    axis /= np.linalg.norm(axis)
    return (math.cos(angle / 2), *(math.sin(angle / 2) * axis))


def _sheared_with_equal_columns(obj: bpy.types.Object) -> str:
    """``R diag(2, 1, 1) R^T`` with R's X on (1, 1, 1): every column has the same length,
    so a check on column lengths alone passes it."""
    top = add_empty("Top", (0.0, 0.0, 0.0))
    top.rotation_mode = "QUATERNION"
    q = _rotation_to((1.0, 1.0, 1.0))
    top.rotation_quaternion = q
    squash = add_empty("Squash", (0.0, 0.0, 0.0))
    squash.scale = (2.0, 1.0, 1.0)
    _parented(squash, top)
    obj.rotation_mode = "QUATERNION"
    obj.rotation_quaternion = (q[0], -q[1], -q[2], -q[3])
    _parented(obj, squash)
    m = np.array(obj.matrix_world.to_3x3())
    norms = np.linalg.norm(m, axis=0)
    assert np.ptp(norms) < 1e-6 and abs(m[:, 0] @ m[:, 1]) > 0.1  # equal columns, sheared
    return "Squash"


def _sheared_by_a_rotated_child(obj: bpy.types.Object) -> str:
    parent = add_empty("Stretcher", (0.3, 0.0, 0.0))
    parent.scale = (1.0, 1.0, 2.5)
    _parented(obj, parent)
    obj.rotation_euler = (0.6, 0.0, 0.3)
    return "Stretcher"


def _non_uniform_armature(obj: bpy.types.Object) -> str:
    obj.scale = (1.0, 1.3, 1.0)
    return "Chain"


def _non_uniform_parent(obj: bpy.types.Object) -> str:
    parent = add_empty("Wide", (0.0, 0.0, 0.0))
    parent.scale = (-2.0, 1.0, 1.0)
    _parented(obj, parent)
    return "Wide"


SHEARED: dict[str, Callable[[bpy.types.Object], str]] = {
    "equal columns": _sheared_with_equal_columns,
    "rotated child of a scaled parent": _sheared_by_a_rotated_child,
    "non-uniform armature": _non_uniform_armature,
    "non-uniform mirrored parent": _non_uniform_parent,
}


def _sheared_scene(case: str, goal: str, **settings: object) -> tuple:
    """A 3-bone chain under one of the SHEARED transforms, a key on b0, a target placed at
    the world image of a reachable armature-space point; returns (armature, target, the
    object named as the cause)."""
    obj = make_chain()
    b0 = obj.pose.bones["b0"]
    b0.rotation_quaternion = (math.cos(0.1), 0.0, math.sin(0.1), 0.0)
    b0.keyframe_insert("rotation_quaternion", frame=1)
    culprit = SHEARED[case](obj)
    bpy.context.view_layer.update()
    reachable = obj.matrix_world @ Vector((0.6, 0.4, 2.3))  # 2.4 from b0's head; reach 3
    target = add_empty("T", tuple(reachable), (0.4, -0.3, 0.2))
    add_constraint(obj, "b2", target, goal, **settings)
    bpy.context.scene.frame_start, bpy.context.scene.frame_end = 1, 5
    activate(obj)
    return obj, target, culprit


POINT_GOALS: dict[str, dict[str, object]] = {
    "POSITION": {},
    "LINE": {"target_axis": "Z"},
    "PLANE": {"target_axis": "X"},
    "HALF_SPACE": {"target_axis": "-Y"},
    "AIM": {"aim_axis": "Y"},
}


@pytest.mark.parametrize("case", list(SHEARED))
@pytest.mark.parametrize("goal", list(POINT_GOALS))
def test_point_and_aim_goals_are_exact_on_sheared_armatures(
    clean_scene: bpy.types.Scene, case: str, goal: str
) -> None:
    """Affine maps keep points, lines, planes and the bone's drawn aim: these goals are met
    on Blender's pose (measured) with no correction pass."""
    obj, target, _ = _sheared_scene(case, goal, **POINT_GOALS[goal])
    if goal == "AIM":  # aim from b2's tail at a point out of the chain's reach
        target.location = obj.matrix_world @ Vector((2.0, 1.5, 4.0))
    if goal == "HALF_SPACE":  # the rest tail is on the wrong side of the plane
        target.location = obj.matrix_world @ Vector((0.3, -0.8, 2.2))
    run_op(bpy.ops.reach.solve)
    report = last_report(obj)
    assert report.satisfied and report.passes == 0, report.text()
    if goal == "POSITION":
        miss = world_bone_tail(obj, "b2") - np.array(target.matrix_world.translation)
        assert np.linalg.norm(miss) < 1e-4


@pytest.mark.parametrize("case", list(SHEARED))
@pytest.mark.parametrize("operator", ["solve", "solve_and_key", "bake"])
def test_orientation_goals_on_sheared_armatures_are_refused(
    clean_scene: bpy.types.Scene, case: str, operator: str
) -> None:
    obj, _, culprit = _sheared_scene(case, "POSITION_ORIENTATION")
    before = scene_state(obj)
    with pytest.raises(
        RuntimeError,
        match=rf"Constraint 'b2 Position & Orientation': Armature 'Chain' .*'{culprit}'.*"
        "orientation goals cannot be met",
    ):
        call_reach(operator)
    assert_unchanged(before, scene_state(obj))
    assert clean_scene.frame_current == 1


def test_a_target_hanging_off_a_sheared_armature_is_refused(clean_scene: bpy.types.Scene):
    obj, target, culprit = _sheared_scene("equal columns", "POSITION")
    target.parent, target.parent_type, target.parent_bone = obj, "BONE", "b0"
    before = scene_state(obj)
    with pytest.raises(RuntimeError, match=rf"'b2 Position': .*'{culprit}'.*hangs off bone 'b0'"):
        call_reach("solve")
    assert_unchanged(before, scene_state(obj))


def test_an_unreachable_goal_on_a_sheared_armature_is_reported(clean_scene: bpy.types.Scene):
    obj, target, _ = _sheared_scene("rotated child of a scaled parent", "POSITION")
    target.location = obj.matrix_world @ Vector((0.0, 6.0, 1.0))  # twice the chain's reach
    run_op(bpy.ops.reach.solve)
    report = last_report(obj)
    miss = np.linalg.norm(world_bone_tail(obj, "b2") - np.array(target.matrix_world.translation))
    [outcome] = report.constraints
    assert not report.satisfied and outcome.measured.distance == pytest.approx(miss, abs=1e-5)
    # The model's distances are the armature's own: no correction pass, no false reason.
    assert report.passes == 0 and outcome.reason == "", report.text()
