"""Live posing with a target carried by a solved bone: the target moves with every solve, and
that echo must not start another solve; moving the target re-poses the rig exactly."""

from __future__ import annotations

from types import ModuleType

import bpy

from tests.blender.live_support import (  # noqa: F401  (room_to_solve: an autouse fixture)
    TOLERANCE,
    finish,
    live_module,
    miss,
    room_to_solve,
)
from tests.blender.reach_scenes import add_constraint, add_empty, make_chain


def test_a_carried_target_reposes_the_rig_once_per_move(
    clean_scene: bpy.types.Scene, extension: ModuleType
) -> None:
    obj = make_chain()
    target = add_empty("T", (0.0, 0.0, 0.0))
    target.parent, target.parent_type, target.parent_bone = obj, "BONE", "b0"
    target.location = (0.8, -0.5, 0.3)  # from b0's tail, in b0's frame
    add_constraint(obj, "b2", target, "POSITION")
    obj.reach_ik.live = True
    bpy.context.view_layer.update()
    finish(extension, obj)
    state = live_module(extension).state_of(obj)
    assert miss(obj, target) < TOLERANCE and not state.error
    for location in ((0.5, 0.2, 0.6), (-0.7, 0.4, 0.1)):
        solves = state.solves
        target.location = location
        bpy.context.view_layer.update()
        finish(extension, obj)
        bpy.context.view_layer.update()  # the carried target's echo of the written pose
        assert state.solves == solves + 1, location
        assert miss(obj, target) < TOLERANCE, location
    assert not state.error
