"""Chains that cannot move (every IK axis locked, every rotation channel locked, every axis
rigid, every bone Driven): a clear error naming the constraint and the bones, no traceback,
nothing changed, through Solve, Solve & Key and Bake."""

from __future__ import annotations

import math
from collections.abc import Callable

import bpy
import pytest

from tests.blender.reach_scenes import (
    activate,
    add_constraint,
    add_empty,
    assert_unchanged,
    call_reach,
    make_chain,
    scene_state,
)


def _lock_ik(pb: bpy.types.PoseBone) -> None:
    pb.lock_ik_x = pb.lock_ik_y = pb.lock_ik_z = True


def _lock_euler_channels(pb: bpy.types.PoseBone) -> None:
    pb.rotation_mode = "XYZ"
    pb.lock_rotation = (True, True, True)


def _rigid(pb: bpy.types.PoseBone) -> None:
    pb.reach_ik.use_rigidity = True
    pb.reach_ik.rigidity = (1.0, 1.0, 1.0)


def _driven(pb: bpy.types.PoseBone) -> None:
    pb.reach_ik.driven = True


LOCKS: dict[str, Callable[[bpy.types.PoseBone], None]] = {
    "IK locks": _lock_ik,
    "Euler channel locks": _lock_euler_channels,
    "rigidity 1": _rigid,
    "Driven": _driven,
}


def _scene(lock: Callable[[bpy.types.PoseBone], None]) -> bpy.types.Object:
    obj = make_chain()
    b0 = obj.pose.bones["b0"]
    b0.rotation_quaternion = (math.cos(0.1), 0.0, math.sin(0.1), 0.0)
    b0.keyframe_insert("rotation_quaternion", frame=1)
    target = add_empty("T", (1.0, 0.5, 2.0))
    add_constraint(obj, "b2", target, "POSITION", chain_mode="LENGTH", chain_length=2)
    for name in ("b1", "b2"):
        lock(obj.pose.bones[name])
    bpy.context.scene.frame_start, bpy.context.scene.frame_end = 1, 5
    activate(obj)
    return obj


@pytest.mark.parametrize("lock", list(LOCKS))
@pytest.mark.parametrize("operator", ["solve", "solve_and_key", "bake"])
def test_a_chain_without_freedom_is_refused(
    clean_scene: bpy.types.Scene, lock: str, operator: str
) -> None:
    obj = _scene(LOCKS[lock])
    before = scene_state(obj)
    with pytest.raises(
        RuntimeError, match=r"Constraint 'b2 Position': no bone of its chain can move \(b2, b1"
    ):
        call_reach(operator)
    assert_unchanged(before, scene_state(obj))
    assert clean_scene.frame_current == 1
