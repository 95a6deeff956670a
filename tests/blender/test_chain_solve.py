"""Solve at one frame on a 3-bone chain, through ``bpy.ops.reach.*`` in real Blender."""

from __future__ import annotations

import math

import bpy
import numpy as np
import pytest

from tests.blender.conftest import run_op, world_bone_matrix, world_bone_tail
from tests.blender.reach_scenes import (
    activate,
    add_constraint,
    add_empty,
    angle_between,
    bone_path,
    channel_set,
    last_report,
    make_chain,
    rotation_angle,
)

TIP = 1e-4  # scene units
ANGLE = 0.1  # degrees


def _solve(obj: bpy.types.Object, **kwargs: object) -> None:
    activate(obj)
    run_op(bpy.ops.reach.solve, **kwargs)
    bpy.context.view_layer.update()


def _rotation(obj: bpy.types.Object) -> np.ndarray:
    return np.array(obj.matrix_world.to_3x3().normalized())


def test_position_goal_reaches_the_target(clean_scene: bpy.types.Scene) -> None:
    obj = make_chain()
    target = add_empty("T", (1.2, 0.3, 1.8))
    add_constraint(obj, "b2", target, "POSITION")
    _solve(obj)
    assert np.linalg.norm(world_bone_tail(obj, "b2") - np.array(target.location)) < TIP
    report = last_report(obj)
    assert report.satisfied and report.constraints[0].satisfied


def test_orientation_goal_matches_the_target_axes(clean_scene: bpy.types.Scene) -> None:
    obj = make_chain()
    target = add_empty("T", (3.0, 3.0, 3.0), (0.3, -0.4, 0.5))
    add_constraint(obj, "b2", target, "ORIENTATION")
    _solve(obj)
    assert rotation_angle(world_bone_matrix(obj, "b2"), _rotation(target)) < ANGLE


def test_position_orientation_goal(clean_scene: bpy.types.Scene) -> None:
    obj = make_chain()
    rot = (0.4, 0.2, 0.1)
    probe = add_empty("probe", (0, 0, 0), rot)
    y_axis = _rotation(probe)[:, 1]
    target = add_empty("T", tuple(y_axis + np.array([0.5, 0.3, 1.2])), rot)
    add_constraint(obj, "b2", target, "POSITION_ORIENTATION")
    _solve(obj)
    m = world_bone_matrix(obj, "b2")
    assert np.linalg.norm(world_bone_tail(obj, "b2") - np.array(target.location)) < TIP
    assert rotation_angle(m, _rotation(target)) < ANGLE


def test_orientation_with_a_suppressed_direction(clean_scene: bpy.types.Scene) -> None:
    obj = make_chain()
    target = add_empty("T", (3.0, 3.0, 3.0), (0.9, 0.2, -0.3))
    add_constraint(obj, "b2", target, "ORIENTATION", suppress="X")
    _solve(obj)
    m = world_bone_matrix(obj, "b2")
    assert angle_between(m[:3, 1], _rotation(target)[:, 1]) < ANGLE


def test_aim_goal_points_the_bone_at_the_target(clean_scene: bpy.types.Scene) -> None:
    obj = make_chain()
    target = add_empty("T", (2.0, 1.0, 3.0))
    add_constraint(obj, "b2", target, "AIM", effector="HEAD", chain_mode="LENGTH", chain_length=1)
    _solve(obj)
    m = world_bone_matrix(obj, "b2")
    assert angle_between(m[:3, 1], np.array(target.location) - m[:3, 3]) < ANGLE


def test_line_goal(clean_scene: bpy.types.Scene) -> None:
    obj = make_chain()
    target = add_empty("T", (1.5, 0.0, 0.5), (0.0, math.radians(30.0), 0.0))
    add_constraint(obj, "b2", target, "LINE", target_axis="Z")
    _solve(obj)
    tip = world_bone_tail(obj, "b2")
    p, d = np.array(target.location), _rotation(target)[:, 2]
    assert np.linalg.norm(np.cross(tip - p, d)) < TIP


@pytest.mark.parametrize("kind", ["PLANE", "HALF_SPACE"])
def test_plane_and_half_space_goals(clean_scene: bpy.types.Scene, kind: str) -> None:
    obj = make_chain()
    # The plane z = 2.2 (normal -Z): the rest tip (z = 3) lies on the wrong side of it.
    target = add_empty("T", (0.5, 0.5, 2.2), (math.pi, 0.0, 0.0))
    add_constraint(obj, "b2", target, kind, target_axis="Z")
    _solve(obj)
    height = world_bone_tail(obj, "b2")[2]
    if kind == "PLANE":
        assert abs(height - 2.2) < TIP
    else:
        assert height <= 2.2 + TIP


def test_disjunction_group_satisfies_one_member(clean_scene: bpy.types.Scene) -> None:
    obj = make_chain()
    # Keep out of the slab -0.5 < x < 0.5: either x >= 0.5 or x <= -0.5.
    right = add_empty("right", (0.5, 0.0, 0.0), (0.0, math.pi / 2, 0.0))
    left = add_empty("left", (-0.5, 0.0, 0.0), (0.0, -math.pi / 2, 0.0))
    add_constraint(obj, "b2", right, "HALF_SPACE", group="slab")
    add_constraint(obj, "b2", left, "HALF_SPACE", group="slab")
    _solve(obj)
    x = world_bone_tail(obj, "b2")[0]
    assert x >= 0.5 - TIP or x <= -0.5 + TIP
    assert [c.name for c in last_report(obj).constraints] == ["slab"]


def test_target_bone_of_the_same_armature_closes_a_loop(clean_scene: bpy.types.Scene) -> None:
    obj = make_chain(n=4)
    for name in ("b2", "b3"):  # bent a little: a straight chain folding back is singular
        obj.pose.bones[name].rotation_quaternion = (math.cos(0.3), math.sin(0.3), 0.0, 0.0)
    # Bring b3's tail onto b0's tail (a closed loop b1-b2-b3 back to b1's head).
    add_constraint(obj, "b3", obj, "POSITION", target_bone="b0", target_head_tail=1.0,
                   chain_mode="ROOT", chain_root="b1")  # fmt: skip
    _solve(obj)
    assert np.linalg.norm(world_bone_tail(obj, "b3") - world_bone_tail(obj, "b0")) < TIP


def test_rotation_modes_are_written_correctly(clean_scene: bpy.types.Scene) -> None:
    obj = make_chain()
    modes = ["QUATERNION", "AXIS_ANGLE", "XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX"]
    rot = (0.4, 0.2, 0.1)
    probe = add_empty("probe", (0, 0, 0), rot)
    target = add_empty("T", tuple(_rotation(probe)[:, 1] + [0.5, 0.3, 1.2]), rot)
    add_constraint(obj, "b2", target, "POSITION_ORIENTATION")
    for k, mode in enumerate(modes):
        for i, pb in enumerate(obj.pose.bones):
            pb.rotation_mode = modes[(k + i) % len(modes)]
            pb.matrix_basis.identity()  # also resets axis-angle / Euler channels
            pb.rotation_quaternion = (1, 0, 0, 0)
            pb.rotation_euler = (0, 0, 0)
            pb.rotation_axis_angle = (0, 0, 1, 0)
        _solve(obj)
        tip = world_bone_tail(obj, "b2")
        assert np.linalg.norm(tip - np.array(target.location)) < TIP, mode
        assert rotation_angle(world_bone_matrix(obj, "b2"), _rotation(target)) < ANGLE, mode


def test_keys_only_on_solved_channels(clean_scene: bpy.types.Scene) -> None:
    obj = make_chain()
    obj.pose.bones["b2"].rotation_mode = "XYZ"
    target = add_empty("T", (1.0, 0.5, 2.3))
    add_constraint(obj, "b2", target, "POSITION", chain_mode="LENGTH", chain_length=2)
    _solve(obj, insert_keys=True)
    expected = {(bone_path("b1", "rotation_quaternion"), k) for k in range(4)}
    expected |= {(bone_path("b2", "rotation_euler"), k) for k in range(3)}
    assert channel_set(obj) == expected
    assert np.linalg.norm(world_bone_tail(obj, "b2") - np.array(target.location)) < TIP
    assert np.allclose(obj.pose.bones["b0"].rotation_quaternion, (1, 0, 0, 0))


def test_bone_turned_90_degrees_still_moves_freely(clean_scene: bpy.types.Scene) -> None:
    obj = make_chain()
    for pb in obj.pose.bones:
        pb.rotation_mode = "XYZ"
    obj.pose.bones["b1"].rotation_euler = (0.0, math.pi / 2, 0.0)  # Euler gimbal position
    target = add_empty("T", (0.3, 1.4, 1.6))
    add_constraint(obj, "b2", target, "POSITION", chain_mode="LENGTH", chain_length=2)
    _solve(obj)
    assert np.linalg.norm(world_bone_tail(obj, "b2") - np.array(target.location)) < TIP


def test_rigidity_reduces_motion(clean_scene: bpy.types.Scene) -> None:
    def b0_turn(configure: object) -> float:
        bpy.ops.wm.read_homefile(use_empty=True)
        obj = make_chain()
        configure(obj.pose.bones["b0"])
        target = add_empty("T", (1.5, 0.5, 1.5))
        add_constraint(obj, "b2", target, "POSITION")
        _solve(obj)
        assert np.linalg.norm(world_bone_tail(obj, "b2") - np.array(target.location)) < TIP
        return rotation_angle(np.eye(3), world_bone_matrix(obj, "b0")[:3, :3] @ _rest_b0())

    def free(pb: object) -> None:
        pb.reach_ik.use_rigidity = True

    def rigid(pb: object) -> None:
        pb.reach_ik.use_rigidity = True
        pb.reach_ik.rigidity = (0.95, 0.95, 0.95)

    def stiff(pb: object) -> None:  # Blender's own IK stiffness, read when ours is unset
        pb.ik_stiffness_x = pb.ik_stiffness_y = pb.ik_stiffness_z = 0.95

    base = b0_turn(free)
    assert b0_turn(rigid) < 0.5 * base
    assert b0_turn(stiff) < 0.5 * base


def _rest_b0() -> np.ndarray:
    # b0's rest frame: Y along world +Z (bone along Z), so rest = Rx(+90 deg).
    return np.array([[1, 0, 0], [0, 0, -1], [0, 1, 0]], dtype=float).T


@pytest.mark.parametrize("connected", [True, False])
def test_ik_stretch_scales_the_bone(clean_scene: bpy.types.Scene, connected: bool) -> None:
    obj = make_chain(connected=connected)
    obj.pose.bones["b2"].ik_stretch = 0.5
    target = add_empty("T", (0.0, 0.0, 3.4))
    add_constraint(obj, "b2", target, "POSITION")
    _solve(obj)
    assert np.linalg.norm(world_bone_tail(obj, "b2") - np.array(target.location)) < TIP
    # Blender's IK stretches a bone by scaling it on all three axes (see test_ik_stretch.py).
    assert np.array(obj.pose.bones["b2"].scale) == pytest.approx([1.4] * 3, abs=1e-4)
    assert np.array(obj.pose.bones["b2"].location) == pytest.approx([0.0] * 3)


def test_root_translation_is_optional(clean_scene: bpy.types.Scene) -> None:
    obj = make_chain()
    target = add_empty("T", (4.0, 1.0, 2.0))
    add_constraint(obj, "b2", target, "POSITION")
    _solve(obj)  # out of reach: closest pose, reported, not an error
    assert not last_report(obj).satisfied
    assert np.allclose(obj.pose.bones["b0"].location, 0.0)
    obj.reach_ik.use_root_translation = True
    _solve(obj)
    assert np.linalg.norm(world_bone_tail(obj, "b2") - np.array(target.location)) < TIP
    assert last_report(obj).satisfied


def test_offset_effector_and_a_bone_of_another_armature(clean_scene: bpy.types.Scene) -> None:
    other = make_chain("Other", n=2)
    other.location = (1.0, 0.5, 0.0)
    other.pose.bones["b1"].rotation_quaternion = (math.cos(0.4), 0.0, 0.0, math.sin(0.4))
    obj = make_chain()
    add_constraint(obj, "b2", other, "POSITION", target_bone="b1", target_head_tail=0.5,
                   effector="OFFSET", offset=0.5)  # fmt: skip
    _solve(obj)
    m = world_bone_matrix(obj, "b2")
    midpoint = m[:3, 3] + 0.5 * m[:3, 1]  # bones are 1 unit long
    goal = world_bone_matrix(other, "b1")
    goal_point = goal[:3, 3] + 0.5 * goal[:3, 1]
    assert np.linalg.norm(midpoint - goal_point) < TIP
