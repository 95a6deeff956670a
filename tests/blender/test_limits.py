"""Joint limits and locks on a 3-bone chain: honoured, and equal to Blender's own semantics."""

from __future__ import annotations

import math

import bpy
import numpy as np
import pytest

from tests.blender.conftest import run_op, world_bone_matrix, world_bone_tail
from tests.blender.reach_scenes import activate, add_constraint, add_empty, last_report, make_chain

TIP = 1e-4


def _solve(obj: bpy.types.Object) -> None:
    activate(obj)
    run_op(bpy.ops.reach.solve)
    bpy.context.view_layer.update()


def _basis_euler(obj: bpy.types.Object, bone: str, order: str) -> np.ndarray:
    return np.array(obj.pose.bones[bone].matrix_basis.to_3x3().to_euler(order))


def _world_matrices(obj: bpy.types.Object) -> dict[str, np.ndarray]:
    return {pb.name: world_bone_matrix(obj, pb.name) for pb in obj.pose.bones}


def _add_limit_rotation(pb: bpy.types.PoseBone, lower: tuple, upper: tuple) -> None:
    con = pb.constraints.new("LIMIT_ROTATION")
    con.owner_space = "LOCAL"
    for k, axis in enumerate("xyz"):
        setattr(con, f"use_limit_{axis}", True)
        setattr(con, f"min_{axis}", lower[k])
        setattr(con, f"max_{axis}", upper[k])


LIMIT_CASES = [
    # rotation mode, lower, upper (degrees), target
    ("QUATERNION", (-20, -30, -25), (20, 30, 25), (1.5, 0.8, 1.5)),
    ("XYZ", (-20, -30, -25), (20, 30, 25), (1.5, 0.8, 1.5)),
    ("ZXY", (-60, -10, -45), (10, 40, 60), (-1.0, 1.2, 1.0)),
    ("QUATERNION", (-170, -170, -170), (170, 170, 170), (0.4, -0.6, 0.9)),
    ("YZX", (-150, -120, -170), (160, 130, 100), (-0.5, -0.5, 0.7)),
]


@pytest.mark.parametrize(("mode", "lower", "upper", "target_at"), LIMIT_CASES)
def test_limit_rotation_box_is_honoured_and_leaves_the_solved_pose_alone(
    clean_scene: bpy.types.Scene, mode: str, lower: tuple, upper: tuple, target_at: tuple
) -> None:
    """A local Limit Rotation is an Euler box: the solve stays inside it, so the constraint
    (muted while solving, or added after the solve) does not move the pose."""
    obj = make_chain()
    lo, hi = np.radians(lower), np.radians(upper)
    for pb in obj.pose.bones:
        pb.rotation_mode = mode
        _add_limit_rotation(pb, lo, hi)
    target = add_empty("T", target_at)
    add_constraint(obj, "b2", target, "POSITION")
    _solve(obj)
    order = mode if mode != "QUATERNION" else "XYZ"
    for pb in obj.pose.bones:
        angles = _basis_euler(obj, pb.name, order)
        assert np.all(angles >= lo - 1e-5) and np.all(angles <= hi + 1e-5), (pb.name, angles)
    with_limits = _world_matrices(obj)
    for pb in obj.pose.bones:
        for con in pb.constraints:
            con.mute = True
    bpy.context.view_layer.update()
    without = _world_matrices(obj)
    for name in with_limits:
        assert np.allclose(with_limits[name], without[name], atol=1e-5), name


def test_limit_rotation_constraint_is_read_as_a_limit(clean_scene: bpy.types.Scene) -> None:
    obj = make_chain()
    lo, hi = np.radians((-15, -15, -15)), np.radians((15, 15, 15))
    for pb in obj.pose.bones:
        pb.rotation_mode = "XYZ"
        _add_limit_rotation(pb, lo, hi)
    target = add_empty("T", (2.0, 0.0, 1.0))
    add_constraint(obj, "b2", target, "POSITION")
    _solve(obj)  # unreachable within the limits: closest pose, no error
    report = last_report(obj)
    assert not report.satisfied
    assert report.status == "Closest reachable pose: joint limits / other goals stop it"
    for pb in obj.pose.bones:
        angles = np.array(pb.rotation_euler)
        assert np.all(np.abs(angles) <= math.radians(15) + 1e-5), (pb.name, angles)
    # The evaluated pose (with the constraints) is the written pose: nothing was clamped.
    bpy.context.view_layer.update()
    for pb in obj.pose.bones:
        assert np.allclose(np.array(pb.matrix_basis), _local_pose(obj, pb.name), atol=1e-5)


def _local_pose(obj: bpy.types.Object, name: str) -> np.ndarray:
    pb = obj.pose.bones[name]
    return np.array(obj.convert_space(pose_bone=pb, matrix=pb.matrix, from_space="POSE",
                                      to_space="LOCAL"))  # fmt: skip


def test_lock_ik_axes_are_honoured(clean_scene: bpy.types.Scene) -> None:
    obj = make_chain()
    for pb in obj.pose.bones:
        pb.lock_ik_x = True
    target = add_empty("T", (1.0, 1.2, 1.5))
    add_constraint(obj, "b2", target, "POSITION")
    _solve(obj)
    assert np.linalg.norm(world_bone_tail(obj, "b2") - np.array(target.location)) < TIP
    for pb in obj.pose.bones:  # R = Ry Rz: no rotation about the bone's own X
        assert abs(_basis_euler(obj, pb.name, "ZYX")[0]) < 1e-6, pb.name


def test_lock_rotation_keeps_the_euler_channel(clean_scene: bpy.types.Scene) -> None:
    obj = make_chain()
    for pb in obj.pose.bones:
        pb.rotation_mode = "XYZ"
        pb.rotation_euler = (0.1, 0.0, 0.0)
        pb.lock_rotation = (True, False, False)
    target = add_empty("T", (1.0, 1.2, 1.5))
    add_constraint(obj, "b2", target, "POSITION")
    _solve(obj)
    assert np.linalg.norm(world_bone_tail(obj, "b2") - np.array(target.location)) < TIP
    for pb in obj.pose.bones:
        assert pb.rotation_euler[0] == pytest.approx(0.1, abs=1e-6)


def test_solution_stays_on_blenders_euler_branch(clean_scene: bpy.types.Scene) -> None:
    """Limits that admit the goal only through Euler angles Blender would never decompose to.

    The goal (basis Euler XYZ (100, 80, 100) degrees) fits the Euler box [0, 170] as written,
    but Blender decomposes that rotation as (-80, 100, -80) -- outside the limits -- so a Limit
    Rotation constraint would move it. The solve must stay where Blender agrees.
    """
    from mathutils import Euler, Matrix

    obj = make_chain()
    pb = obj.pose.bones["b2"]
    pb.rotation_mode = "XYZ"
    _add_limit_rotation(pb, (0.0, 0.0, 0.0), np.radians((170, 170, 170)))
    wanted = Euler(np.radians((100, 80, 100)), "XYZ").to_matrix().to_4x4()
    rest = Matrix(world_bone_matrix(obj, "b2"))
    target = add_empty("T", (3.0, 3.0, 3.0))
    target.matrix_world = Matrix.Translation((3.0, 3.0, 3.0)) @ (rest @ wanted).to_3x3().to_4x4()
    add_constraint(obj, "b2", target, "ORIENTATION", chain_mode="LENGTH", chain_length=1)
    _solve(obj)
    before = world_bone_matrix(obj, "b2")  # with the Limit Rotation evaluated
    pb.constraints[-1].mute = True
    bpy.context.view_layer.update()
    assert np.allclose(before, world_bone_matrix(obj, "b2"), atol=1e-5)
