"""Driven bones (``PoseBone.reach_ik.driven``): channels the user animates are inputs of the
solve, read from their animation at every frame, never solved, written or keyed, through Solve
and Bake in real Blender (4.2 and 5.0).

The scene: a three-bone chain ``b0``-``b1``-``b2`` along +Z whose middle bone is Driven and
animated (Euler X from 0.2 to 0.8 rad over frames 1-10); a position goal on ``b2``'s tail
moves the whole chain. The solve can only move ``b0`` and ``b2`` around ``b1``'s animation.
"""

from __future__ import annotations

from types import ModuleType

import bpy
import numpy as np

from tests.blender.conftest import run_op, world_bone_tail
from tests.blender.panel_draw import draw_panels
from tests.blender.reach_scenes import (
    activate,
    add_constraint,
    add_empty,
    bone_path,
    channel_set,
    fcurves,
    keys_of,
    last_report,
    make_chain,
)

FRAMES = 10
TARGET = (0.5, 0.3, 2.4)
TIP = 1e-4
DRIVEN = bone_path("b1", "rotation_euler")


def _crank_angle(frame: float) -> float:
    """``b1``'s animated Euler X (radians), linear from 0.2 at frame 1 to 0.8 at frame 10."""
    return 0.2 + 0.6 * (frame - 1) / (FRAMES - 1)


def _scene() -> bpy.types.Object:
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, FRAMES
    obj = make_chain()
    b1 = obj.pose.bones["b1"]
    b1.rotation_mode = "XYZ"
    for frame in (1, FRAMES):
        b1.rotation_euler = (_crank_angle(frame), 0.0, 0.0)
        b1.keyframe_insert("rotation_euler", frame=frame)
    for curve in fcurves(obj):
        for key in curve.keyframe_points:
            key.interpolation = "LINEAR"
    b1.reach_ik.driven = True
    add_constraint(obj, "b2", add_empty("T", TARGET), "POSITION")
    scene.frame_set(1)
    activate(obj)
    return obj


def test_a_bake_moves_the_chain_around_a_driven_bone_and_never_keys_it(
    clean_scene: bpy.types.Scene,
) -> None:
    obj = _scene()
    driven_keys = {k: v for k, v in keys_of(obj).items() if k[0] == DRIVEN}
    assert len(driven_keys) == 3
    run_op(bpy.ops.reach.bake)
    after = keys_of(obj)
    for channel, data in driven_keys.items():  # its F-curves untouched, key for key
        assert np.array_equal(after[channel], data), channel
    assert {c for c in channel_set(obj) if "b1" in c[0]} == set(driven_keys)
    assert any(bone_path("b0", "") in c[0] for c in channel_set(obj))  # the others are keyed
    for frame in range(1, FRAMES + 1):
        clean_scene.frame_set(frame)
        b1 = obj.pose.bones["b1"]
        assert np.allclose(b1.rotation_euler, (_crank_angle(frame), 0.0, 0.0), atol=1e-6)
        assert np.linalg.norm(world_bone_tail(obj, "b2") - np.array(TARGET)) < TIP, frame


def test_a_solve_leaves_a_driven_bone_at_its_animated_value(
    clean_scene: bpy.types.Scene,
) -> None:
    obj = _scene()
    clean_scene.frame_set(5)
    run_op(bpy.ops.reach.solve)
    assert np.allclose(obj.pose.bones["b1"].rotation_euler, (_crank_angle(5), 0.0, 0.0))
    assert np.linalg.norm(world_bone_tail(obj, "b2") - np.array(TARGET)) < TIP
    assert last_report(obj).dof == 6  # b0 and b2 (three rotations each), not b1


def test_the_active_bone_panel_draws_the_driven_switch(
    clean_scene: bpy.types.Scene, extension: ModuleType
) -> None:
    obj = _scene()
    obj.data.bones.active = obj.data.bones["b1"]
    assert ("prop", "driven") in draw_panels(extension)
