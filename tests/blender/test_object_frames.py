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


@pytest.mark.parametrize("case", list(SHEARED))
@pytest.mark.parametrize("operator", ["solve", "solve_and_key", "bake"])
def test_sheared_transforms_are_refused_before_touching_anything(
    clean_scene: bpy.types.Scene, case: str, operator: str
) -> None:
    obj = make_chain()
    b0 = obj.pose.bones["b0"]
    b0.rotation_quaternion = (math.cos(0.1), 0.0, math.sin(0.1), 0.0)
    b0.keyframe_insert("rotation_quaternion", frame=1)
    culprit = SHEARED[case](obj)
    bpy.context.view_layer.update()
    target = add_empty("T", (1.0, 0.5, 2.0))
    add_constraint(obj, "b2", target, "POSITION")
    clean_scene.frame_start, clean_scene.frame_end = 1, 5
    activate(obj)
    before = scene_state(obj)
    with pytest.raises(RuntimeError, match=rf"Armature 'Chain' .*'{culprit}'"):
        call_reach(operator)
    assert_unchanged(before, scene_state(obj))
    assert clean_scene.frame_current == 1
