"""``bridge.measure.residuals``: residuals read from Blender's evaluated pose, checked against
the pose Blender draws (bone tails and matrices read independently through the depsgraph)."""

from __future__ import annotations

import importlib
import math
from types import ModuleType

import bpy
import numpy as np

from tests.blender.conftest import world_bone_matrix, world_bone_tail
from tests.blender.reach_scenes import add_constraint, add_empty, make_chain, rotation_angle

TOL, ANGLE_TOL = 1e-5, 0.01


def _measure(extension: ModuleType, obj: bpy.types.Object) -> list:
    bpy.context.view_layer.update()
    rig = extension.bridge.rig.build.build_rig(obj, obj.reach_ik)
    depsgraph = bpy.context.evaluated_depsgraph_get()
    measure = importlib.import_module(f"{extension.__name__}.bridge.measure.residuals")
    return measure.measure(rig, depsgraph, TOL, ANGLE_TOL)


def _bend(obj: bpy.types.Object) -> None:
    for name, angle in (("b1", 0.4), ("b2", -0.7)):
        obj.pose.bones[name].rotation_quaternion = (math.cos(angle), math.sin(angle), 0.0, 0.0)


def test_position_distance_is_the_drawn_tail_to_target(
    clean_scene: bpy.types.Scene, extension: ModuleType
) -> None:
    obj = make_chain()
    _bend(obj)
    target = add_empty("T", (1.2, 0.3, 1.8))
    add_constraint(obj, "b2", target, "POSITION")
    [m] = _measure(extension, obj)
    expected = np.linalg.norm(world_bone_tail(obj, "b2") - np.array(target.location))
    assert m.name == obj.reach_ik.constraints[0].name and m.bone == "b2"
    assert abs(m.distance - expected) < 1e-5 and m.angle is None
    assert not m.satisfied


def test_a_bone_constraint_the_model_ignores_is_measured(
    clean_scene: bpy.types.Scene, extension: ModuleType
) -> None:
    obj = make_chain()
    target = add_empty("T", tuple(world_bone_tail(obj, "b2")))  # on the rest tail
    add_constraint(obj, "b2", target, "POSITION")
    assert _measure(extension, obj)[0].satisfied
    con = obj.pose.bones["b1"].constraints.new("LIMIT_ROTATION")  # moves b1 off the rest pose
    con.use_limit_x, con.min_x, con.max_x = True, 0.5, 0.6
    con.owner_space = "LOCAL"
    [m] = _measure(extension, obj)
    expected = np.linalg.norm(world_bone_tail(obj, "b2") - np.array(target.location))
    assert expected > 0.5 and abs(m.distance - expected) < 1e-5 and not m.satisfied


def test_scaled_and_mirrored_armatures(clean_scene: bpy.types.Scene, extension: ModuleType) -> None:
    obj = make_chain()
    _bend(obj)
    target = add_empty("T", (0.7, -0.4, 2.5))
    add_constraint(obj, "b2", target, "POSITION", effector="OFFSET", offset=0.3)
    for scale in ((2.0, 2.0, 2.0), (-1.5, 1.5, 1.5)):
        obj.scale = scale
        [m] = _measure(extension, obj)
        matrix = world_bone_matrix(obj, "b2")
        point = matrix @ np.array([0.0, 0.3 * obj.data.bones["b2"].length, 0.0, 1.0])
        expected = np.linalg.norm(point[:3] - np.array(target.location))
        assert abs(m.distance - expected) < 1e-5, scale


def test_orientation_angle_is_the_drawn_bone_to_target(
    clean_scene: bpy.types.Scene, extension: ModuleType
) -> None:
    obj = make_chain()
    _bend(obj)
    target = add_empty("T", (3.0, 3.0, 3.0), (0.3, -0.4, 0.5))
    add_constraint(obj, "b2", target, "POSITION_ORIENTATION")
    [m] = _measure(extension, obj)
    bone = world_bone_matrix(obj, "b2")
    goal = np.array(target.matrix_world.to_3x3().normalized())
    # The report is the larger of the x and y axis angles; both are <= the rotation angle.
    x_angle = math.degrees(math.acos(np.clip(bone[:3, 0] @ goal[:, 0], -1.0, 1.0)))
    y_angle = math.degrees(math.acos(np.clip(bone[:3, 1] @ goal[:, 1], -1.0, 1.0)))
    assert abs(m.angle - max(x_angle, y_angle)) < 1e-3
    assert m.angle <= rotation_angle(bone, goal) + 1e-3


def test_target_parented_to_a_bone_is_read_where_blender_puts_it(
    clean_scene: bpy.types.Scene, extension: ModuleType
) -> None:
    obj = make_chain()
    target = add_empty("T", (0.0, 0.0, 0.0))
    target.parent = obj
    target.parent_type = "BONE"
    target.parent_bone = "b1"  # the empty sits on b1's tail
    add_constraint(obj, "b2", target, "POSITION", effector="HEAD")
    assert _measure(extension, obj)[0].satisfied  # b2's head is b1's tail
    obj.pose.bones["b0"].rotation_quaternion = (math.cos(0.5), math.sin(0.5), 0.0, 0.0)
    [m] = _measure(extension, obj)  # both moved together: still met
    assert m.satisfied and m.distance < 1e-5


def test_disjunction_is_met_by_any_member(
    clean_scene: bpy.types.Scene, extension: ModuleType
) -> None:
    obj = make_chain()
    right = add_empty("right", (0.5, 0.0, 0.0), (0.0, math.pi / 2, 0.0))
    left = add_empty("left", (-0.5, 0.0, 0.0), (0.0, -math.pi / 2, 0.0))
    add_constraint(obj, "b2", right, "HALF_SPACE", group="slab")
    add_constraint(obj, "b2", left, "HALF_SPACE", group="slab")
    [m] = _measure(extension, obj)
    assert m.name == "slab" and not m.satisfied and abs(m.distance - 0.5) < 1e-5
    obj.pose.bones["b0"].rotation_quaternion = (math.cos(0.3), 0.0, 0.0, math.sin(0.3))
    [m] = _measure(extension, obj)  # the tail is now at |x| = 3 sin(0.6) > 0.5
    tip_x = world_bone_tail(obj, "b2")[0]
    assert abs(tip_x) > 1.6 and m.goal == (0 if tip_x > 0 else 1)
    assert m.satisfied and m.distance == 0.0
