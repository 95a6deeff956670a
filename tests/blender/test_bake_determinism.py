"""A bake is a function of the shot: the same keys however often, after whatever, it runs.

The start pose of a bake is the rest pose of the solved channels at the first frame (then
each frame is warm-started from the previous one), so neither the current pose nor the keys
an earlier bake wrote change the result.
"""

from __future__ import annotations

import math
from pathlib import Path

import bpy
import numpy as np

from tests.blender.bake_support import keyframes_of
from tests.blender.conftest import run_op
from tests.blender.reach_scenes import activate, add_constraint, add_empty, last_report, make_chain

FRAMES = 60


def _shot() -> bpy.types.Object:
    """A redundant 4-bone chain (Euler, quaternion bones) following a target in a loop."""
    obj = make_chain(n=4)
    obj.pose.bones["b1"].rotation_mode = "XYZ"
    obj.pose.bones["b3"].rotation_mode = "ZXY"
    target = add_empty("T", (0.0, 0.0, 0.0))
    for frame in range(1, FRAMES + 1):
        theta = 2.0 * math.pi * (frame - 1) / FRAMES
        target.location = (1.5 * math.cos(theta), 1.0 * math.sin(2 * theta), 2.5)
        target.keyframe_insert("location", frame=frame)
    add_constraint(obj, "b3", target, "POSITION")
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, FRAMES
    scene.frame_set(1)
    activate(obj)
    return obj


def _assert_same_keys(a: dict, b: dict) -> None:
    assert a.keys() == b.keys()
    for channel, data in a.items():
        for prop in ("co", "handle_left", "handle_right"):
            assert np.array_equal(data[prop], b[channel][prop]), (channel, prop)


def test_baking_twice_writes_identical_keys(clean_scene: bpy.types.Scene) -> None:
    obj = _shot()
    run_op(bpy.ops.reach.bake)
    first = keyframes_of(obj)
    run_op(bpy.ops.reach.bake)  # starts where the first bake left every channel keyed
    _assert_same_keys(first, keyframes_of(obj))
    clean_scene.frame_set(23)
    run_op(bpy.ops.reach.bake)  # from another current frame
    _assert_same_keys(first, keyframes_of(obj))


def test_the_current_pose_does_not_change_a_bake(clean_scene: bpy.types.Scene) -> None:
    obj = _shot()
    run_op(bpy.ops.reach.bake)
    first = keyframes_of(obj)
    run_op(bpy.ops.reach.clear_keys)
    for pb in obj.pose.bones:  # a very different current pose
        pb.rotation_euler = (0.7, -0.4, 1.1)
        pb.rotation_quaternion = (0.6, 0.5, -0.4, 0.3)
    run_op(bpy.ops.reach.bake)
    _assert_same_keys(first, keyframes_of(obj))


def test_bake_after_save_and_reload_writes_identical_keys(
    clean_scene: bpy.types.Scene, tmp_path: Path
) -> None:
    obj = _shot()
    run_op(bpy.ops.reach.bake)
    first = keyframes_of(obj)
    path = str(tmp_path / "shot.blend")
    run_op(bpy.ops.wm.save_as_mainfile, filepath=path)
    run_op(bpy.ops.wm.open_mainfile, filepath=path)
    obj = bpy.data.objects["Chain"]
    _assert_same_keys(first, keyframes_of(obj))  # what was saved
    activate(obj)
    run_op(bpy.ops.reach.bake)
    _assert_same_keys(first, keyframes_of(obj))


def _out_of_reach() -> bpy.types.Object:
    """A 4-bone chain (reach 4) after a target circling at radius 6: never reachable."""
    obj = make_chain(n=4)
    pb = obj.pose.bones["b1"]
    pb.use_ik_limit_x, pb.ik_min_x, pb.ik_max_x = True, -0.5, 0.5
    target = add_empty("T", (0.0, 0.0, 0.0))
    for frame in range(1, FRAMES + 1):
        theta = 2.0 * math.pi * frame / FRAMES
        target.location = (6.0 * math.cos(theta), 6.0 * math.sin(theta), 1.0)
        target.keyframe_insert("location", frame=frame)
    add_constraint(obj, "b3", target, "POSITION")
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, FRAMES
    activate(obj)
    return obj


def test_a_shot_out_of_reach_bakes_identically_within_the_frame_budget(
    clean_scene: bpy.types.Scene,
) -> None:
    """Restarts that cannot reach the goal stop after a fixed count, not at the time limit
    (which would make the keys depend on the machine's speed)."""
    obj = _out_of_reach()
    run_op(bpy.ops.reach.bake)
    report = last_report(obj)
    assert not report.satisfied and report.time_limited == ()
    first = keyframes_of(obj)
    run_op(bpy.ops.reach.bake)
    assert last_report(obj).time_limited == ()
    _assert_same_keys(first, keyframes_of(obj))
