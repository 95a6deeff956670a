"""Rigify's human metarig (159 bones): every goal type, limits, and the 120-frame demo bake."""

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
    fcurves,
    last_report,
    rotation_angle,
)

TIP = 1e-4
ANGLE = 0.1


def _solve(obj: bpy.types.Object) -> None:
    activate(obj)
    run_op(bpy.ops.reach.solve)
    bpy.context.view_layer.update()


def _arm(obj: bpy.types.Object) -> dict:
    return {"chain_mode": "ROOT", "chain_root": "shoulder.L"}


def _target_near_hand(offset: tuple, rotation: tuple = (0.0, 0.0, 0.0)) -> bpy.types.Object:
    obj = bpy.data.objects["metarig"]
    tail = world_bone_tail(obj, "hand.L")
    return add_empty("T", tuple(tail + np.array(offset)), rotation)


def test_position_goal_on_the_hand(rigify_metarig: bpy.types.Object) -> None:
    obj = rigify_metarig
    target = _target_near_hand((-0.1, -0.25, 0.15))
    add_constraint(obj, "hand.L", target, "POSITION", **_arm(obj))
    _solve(obj)
    assert np.linalg.norm(world_bone_tail(obj, "hand.L") - np.array(target.location)) < TIP


def test_position_orientation_goal_on_the_hand(rigify_metarig: bpy.types.Object) -> None:
    obj = rigify_metarig
    wanted = world_bone_matrix(obj, "hand.L")
    probe = add_empty("probe", (0, 0, 0), (0.3, 0.2, -0.4))
    rot = np.array(probe.matrix_world.to_3x3()) @ wanted[:3, :3]
    target = _target_near_hand((-0.1, -0.15, 0.1))
    from mathutils import Matrix

    target.matrix_world = Matrix.Translation(target.location) @ Matrix(rot.tolist()).to_4x4()
    add_constraint(obj, "hand.L", target, "POSITION_ORIENTATION", **_arm(obj))
    _solve(obj)
    assert np.linalg.norm(world_bone_tail(obj, "hand.L") - np.array(target.location)) < TIP
    assert rotation_angle(world_bone_matrix(obj, "hand.L"), rot) < ANGLE
    add_constraint(obj, "hand.L", target, "ORIENTATION", **_arm(obj))
    obj.reach_ik.constraints[0].enabled = False
    _solve(obj)
    assert rotation_angle(world_bone_matrix(obj, "hand.L"), rot) < ANGLE


def test_look_at_with_the_head(rigify_metarig: bpy.types.Object) -> None:
    obj = rigify_metarig
    target = add_empty("look", (0.6, -1.0, 2.0))
    add_constraint(obj, "spine.006", target, "AIM", effector="HEAD", aim_axis="Z",
                   chain_mode="ROOT", chain_root="spine.004")  # fmt: skip
    _solve(obj)
    m = world_bone_matrix(obj, "spine.006")
    assert angle_between(m[:3, 2], np.array(target.location) - m[:3, 3]) < ANGLE


@pytest.mark.parametrize("kind", ["LINE", "PLANE", "HALF_SPACE"])
def test_line_plane_half_space_on_the_hand(rigify_metarig: bpy.types.Object, kind: str) -> None:
    obj = rigify_metarig
    # Through a point 0.2 in front of the hand, axis tilted: the rest hand is off all three.
    target = _target_near_hand((0.0, -0.2, 0.0), (math.radians(70), 0.0, math.radians(20)))
    add_constraint(obj, "hand.L", target, kind, target_axis="Z", **_arm(obj))
    _solve(obj)
    tip = world_bone_tail(obj, "hand.L")
    p, axis = np.array(target.location), np.array(target.matrix_world.to_3x3())[:, 2]
    if kind == "LINE":
        assert np.linalg.norm(np.cross(tip - p, axis)) < TIP
    elif kind == "PLANE":
        assert abs(np.dot(tip - p, axis)) < TIP
    else:
        assert np.dot(tip - p, axis) >= -TIP


def test_many_goals_at_once_with_a_hinge_knee(rigify_metarig: bpy.types.Object) -> None:
    obj = rigify_metarig
    shin = obj.pose.bones["shin.L"]
    shin.lock_ik_y = shin.lock_ik_z = True
    shin.use_ik_limit_x, shin.ik_min_x, shin.ik_max_x = True, 0.0, math.radians(150)
    foot = add_empty("foot", tuple(world_bone_tail(obj, "foot.L") + np.array([0.0, -0.15, 0.25])))
    hand = _target_near_hand((-0.05, -0.2, 0.2))
    look = add_empty("look", (-0.5, -1.0, 1.6))
    add_constraint(obj, "foot.L", foot, "POSITION", chain_mode="LENGTH", chain_length=3)
    add_constraint(obj, "hand.L", hand, "POSITION", **_arm(obj))
    add_constraint(obj, "spine.006", look, "AIM", effector="HEAD", aim_axis="Z",
                   chain_mode="ROOT", chain_root="spine.004")  # fmt: skip
    _solve(obj)
    assert last_report(obj).satisfied
    assert np.linalg.norm(world_bone_tail(obj, "foot.L") - np.array(foot.location)) < TIP
    assert np.linalg.norm(world_bone_tail(obj, "hand.L") - np.array(hand.location)) < TIP
    knee = np.array(shin.matrix_basis.to_3x3().to_euler("XYZ"))
    assert 0.0 - 1e-6 <= knee[0] <= math.radians(150) + 1e-6
    assert abs(knee[1]) < 1e-6 and abs(knee[2]) < 1e-6  # a hinge: only X turns
    assert knee[0] > math.radians(5)  # the knee really bends (forwards, within the limit)


def test_demo_bake_follows_every_target(rigify_metarig: bpy.types.Object) -> None:
    from examples.blender_demo import FRAMES, build_scene

    obj = build_scene()
    scene = bpy.context.scene
    activate(obj)
    run_op(bpy.ops.reach.bake)
    report = last_report(obj)
    assert report.satisfied and report.n_dof >= 40
    solved_bones = {"shoulder", "upper_arm", "forearm", "hand", "thigh", "shin", "foot"}
    expected_bones = {f"{b}.{s}" for b in solved_bones for s in "LR"}
    expected_bones |= {"spine.004", "spine.005", "spine.006"}
    keyed = {path.split('"')[1] for path, _index in channel_set(obj)}
    assert keyed == expected_bones
    for frame in range(1, FRAMES + 1, 7):
        scene.frame_set(frame)
        for item in obj.reach_ik.constraints:
            target = np.array(item.target.matrix_world.translation)
            if item.goal_type == "AIM":
                m = world_bone_matrix(obj, item.bone)
                assert angle_between(m[:3, 2], target - m[:3, 3]) < ANGLE, (frame, item.name)
            else:
                error = np.linalg.norm(world_bone_tail(obj, item.bone) - target)
                assert error < TIP, (frame, item.name, error)
    for f in fcurves(obj):  # continuity: no Euler wraps, no quaternion sign flips
        values = np.empty(2 * len(f.keyframe_points), dtype=np.float32)
        f.keyframe_points.foreach_get("co", values)
        assert np.max(np.abs(np.diff(values[1::2]))) < 0.5, f.data_path
    shoulder = bone_path("shoulder.L", "rotation_euler")  # metarig shoulders are YXZ Euler
    assert any(f.data_path == shoulder for f in fcurves(obj))


def test_rigidity_and_rotation_modes_on_the_arm(rigify_metarig: bpy.types.Object) -> None:
    obj = rigify_metarig
    modes = {"shoulder.L": "AXIS_ANGLE", "upper_arm.L": "ZXY", "forearm.L": "XZY",
             "hand.L": "QUATERNION"}  # fmt: skip
    for name, mode in modes.items():
        obj.pose.bones[name].rotation_mode = mode
    target = _target_near_hand((-0.15, -0.25, 0.2))
    add_constraint(obj, "hand.L", target, "POSITION", **_arm(obj))
    rest = world_bone_matrix(obj, "shoulder.L")

    def shoulder_turn() -> float:
        for name in modes:
            obj.pose.bones[name].matrix_basis.identity()
        _solve(obj)
        assert np.linalg.norm(world_bone_tail(obj, "hand.L") - np.array(target.location)) < TIP
        return rotation_angle(rest, world_bone_matrix(obj, "shoulder.L"))

    free = shoulder_turn()
    settings = obj.pose.bones["shoulder.L"].reach_ik
    settings.use_rigidity, settings.rigidity = True, (0.97, 0.97, 0.97)
    assert shoulder_turn() < 0.5 * free
