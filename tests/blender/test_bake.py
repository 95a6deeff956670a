"""Bake over a frame range through ``bpy.ops.reach.bake`` / ``reach.clear_keys``."""

from __future__ import annotations

import math
from types import ModuleType

import bpy
import numpy as np
import pytest

from tests.blender.bake_support import modal_operator
from tests.blender.conftest import run_op, world_bone_tail
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
    pose_of,
)

TIP = 1e-4
FRAMES = 100


def _circle(frame: int, turns: float = 2.0) -> tuple[float, float, float]:
    theta = 2.0 * math.pi * turns * (frame - 1) / FRAMES
    return (1.2 * math.cos(theta), 1.2 * math.sin(theta), 2.0 + 0.3 * math.sin(3 * theta))


def _animated_target(name: str = "T", turns: float = 2.0) -> bpy.types.Object:
    target = add_empty(name, _circle(1, turns))
    for frame in range(1, FRAMES + 1):
        target.location = _circle(frame, turns)
        target.keyframe_insert("location", frame=frame)
    return target


def _scene_range(scene: bpy.types.Scene, start: int = 1, end: int = FRAMES) -> None:
    scene.frame_start, scene.frame_end = start, end
    scene.frame_set(start)


def _keys_per_channel(obj: bpy.types.Object) -> dict[tuple[str, int], np.ndarray]:
    out = {}
    for f in fcurves(obj):
        co = np.empty(2 * len(f.keyframe_points), dtype=np.float32)
        f.keyframe_points.foreach_get("co", co)
        out[(f.data_path, f.array_index)] = co.reshape(-1, 2)
    return out


def test_bake_reproduces_an_animated_target_path(clean_scene: bpy.types.Scene) -> None:
    obj = make_chain()
    for pb in obj.pose.bones:
        pb.rotation_mode = "XYZ"
    target = _animated_target()
    add_constraint(obj, "b2", target, "POSITION")
    _scene_range(clean_scene)
    activate(obj)
    run_op(bpy.ops.reach.bake)
    expected = {(bone_path(f"b{i}", "rotation_euler"), k) for i in range(3) for k in range(3)}
    assert channel_set(obj) == expected
    for co in _keys_per_channel(obj).values():
        assert np.array_equal(co[:, 0], np.arange(1, FRAMES + 1))
    for frame in range(1, FRAMES + 1):
        clean_scene.frame_set(frame)
        error = np.linalg.norm(world_bone_tail(obj, "b2") - np.array(_circle(frame)))
        assert error < TIP, (frame, error)
    assert last_report(obj).satisfied


def test_bake_keeps_euler_and_quaternion_continuity(clean_scene: bpy.types.Scene) -> None:
    obj = make_chain()
    modes = {"b0": "XYZ", "b1": "QUATERNION", "b2": "ZXY"}
    for name, mode in modes.items():
        obj.pose.bones[name].rotation_mode = mode
    # b0 follows an empty spinning three turns about world Z (b0's own Y axis).
    spin = add_empty("spin", (0.0, 0.0, -1.0))
    for frame in range(1, FRAMES + 1):
        spin.rotation_euler = (math.pi / 2, 0.0, 6.0 * math.pi * (frame - 1) / FRAMES)
        spin.keyframe_insert("rotation_euler", frame=frame)
    add_constraint(obj, "b0", spin, "ORIENTATION", chain_mode="LENGTH", chain_length=1)
    target = _animated_target(turns=3.0)
    add_constraint(obj, "b2", target, "POSITION", chain_mode="LENGTH", chain_length=2)
    _scene_range(clean_scene)
    activate(obj)
    run_op(bpy.ops.reach.bake)
    assert last_report(obj).satisfied
    keys = _keys_per_channel(obj)
    for name in ("b0", "b2"):
        euler = np.stack([keys[(bone_path(name, "rotation_euler"), k)][:, 1] for k in range(3)])
        assert np.max(np.abs(np.diff(euler, axis=1))) < math.radians(45), name
    twist = keys[(bone_path("b0", "rotation_euler"), 1)][:, 1]
    expected = np.radians(1080.0 * np.arange(FRAMES) / FRAMES)
    assert np.allclose(np.abs(twist), expected, atol=1e-3)  # unwrapped: past 360, no jumps
    quat = np.stack([keys[(bone_path("b1", "rotation_quaternion"), k)][:, 1] for k in range(4)])
    assert np.all(np.sum(quat[:, 1:] * quat[:, :-1], axis=0) > 0.0)  # no sign flips


def test_bake_leaves_other_animation_alone(clean_scene: bpy.types.Scene) -> None:
    obj = make_chain()
    b0 = obj.pose.bones["b0"]
    for frame, angle in ((1, 0.0), (50, 0.3), (100, -0.2)):  # user animation, not solved
        b0.rotation_quaternion = (math.cos(angle / 2), math.sin(angle / 2), 0.0, 0.0)
        b0.keyframe_insert("rotation_quaternion", frame=frame)
    b2 = obj.pose.bones["b2"]
    b2.location = (0.0, 0.0, 0.0)
    b2.keyframe_insert("location", frame=10)  # user key on an unsolved channel of b2
    b2.rotation_quaternion = (1.0, 0.0, 0.0, 0.0)
    b2.keyframe_insert("rotation_quaternion", frame=150)  # solved channel, outside the range
    before = keys_of(obj)
    target = _animated_target()
    add_constraint(obj, "b2", target, "POSITION", chain_mode="LENGTH", chain_length=2)
    _scene_range(clean_scene)
    activate(obj)
    run_op(bpy.ops.reach.bake)
    after = keys_of(obj)
    for channel in before:
        if channel[0].startswith(bone_path("b0", "")) or channel[0].endswith("location"):
            assert np.array_equal(before[channel], after[channel]), channel
    keys = _keys_per_channel(obj)
    frames = keys[(bone_path("b2", "rotation_quaternion"), 0)][:, 0]
    assert np.array_equal(frames, [*range(1, FRAMES + 1), 150])
    for frame in (1, 37, 50, 100):  # solved on top of the user's animated b0
        clean_scene.frame_set(frame)
        assert np.linalg.norm(world_bone_tail(obj, "b2") - np.array(_circle(frame))) < TIP


def test_layer_mode_keeps_keys_between_baked_frames(clean_scene: bpy.types.Scene) -> None:
    obj = make_chain()
    b2 = obj.pose.bones["b2"]
    for frame in (2, 3, 5):
        b2.keyframe_insert("rotation_quaternion", frame=frame)
    target = _animated_target()
    add_constraint(obj, "b2", target, "POSITION")
    _scene_range(clean_scene, 1, 9)
    activate(obj)
    run_op(bpy.ops.reach.bake, frame_step=2, mode="LAYER")
    frames = _keys_per_channel(obj)[(bone_path("b2", "rotation_quaternion"), 0)][:, 0]
    assert list(frames) == [1, 2, 3, 5, 7, 9]  # 3 and 5 were baked over, 2 kept
    bpy.ops.wm.read_homefile(use_empty=True)
    obj = make_chain()
    b2 = obj.pose.bones["b2"]
    for frame in (2, 3, 5):
        b2.keyframe_insert("rotation_quaternion", frame=frame)
    target = _animated_target()
    add_constraint(obj, "b2", target, "POSITION")
    _scene_range(bpy.context.scene, 1, 9)
    activate(obj)
    run_op(bpy.ops.reach.bake, frame_step=2, mode="REPLACE")
    frames = _keys_per_channel(obj)[(bone_path("b2", "rotation_quaternion"), 0)][:, 0]
    assert list(frames) == [1, 3, 5, 7, 9]


def test_cancel_writes_nothing(clean_scene: bpy.types.Scene, extension: ModuleType) -> None:
    obj = make_chain()
    obj.pose.bones["b0"].keyframe_insert("rotation_quaternion", frame=1)
    obj.pose.bones["b1"].rotation_quaternion = (0.9, 0.1, 0.0, 0.0)
    target = _animated_target()
    add_constraint(obj, "b2", target, "POSITION")
    _scene_range(clean_scene)
    clean_scene.frame_set(7)
    activate(obj)
    keys_before, pose_before = keys_of(obj), pose_of(obj)
    # ESC in the modal bake calls BakeJob.cancel(); there is no event loop in background
    # mode, so drive the same job object the operator uses.
    job = extension.bridge.bake.baking.BakeJob(obj, obj.reach_ik, range(1, 101), "REPLACE",
                                        scene=clean_scene)  # fmt: skip
    for _ in range(20):
        job.step()
    job.cancel()
    assert clean_scene.frame_current == 7
    keys_after, pose_after = keys_of(obj), pose_of(obj)
    assert keys_before.keys() == keys_after.keys()
    for channel, data in keys_before.items():
        assert np.array_equal(data, keys_after[channel])
    for name, values in pose_before.items():
        assert np.allclose(values, pose_after[name]), name


def test_error_during_a_bake_writes_nothing(clean_scene: bpy.types.Scene) -> None:
    obj = make_chain()
    target = add_empty("T", (0.0, 2.0, 3.0))
    # At frame 30 the aim target sits exactly on the end-effector (b2's head).
    for frame, location in ((1, (0.0, 2.0, 3.0)), (30, (0.0, 0.0, 2.0)), (60, (0.0, -2.0, 3.0))):
        target.location = location
        target.keyframe_insert("location", frame=frame)
    add_constraint(obj, "b2", target, "AIM", effector="HEAD", chain_mode="LENGTH",
                   chain_length=1)  # fmt: skip
    _scene_range(clean_scene, 1, 60)
    activate(obj)
    keys_before, pose_before = keys_of(obj), pose_of(obj)
    with pytest.raises(RuntimeError, match="frame 30"):
        bpy.ops.reach.bake()
    assert keys_of(obj).keys() == keys_before.keys() and not keys_before
    for name, values in pose_before.items():
        assert np.allclose(values, pose_of(obj)[name]), name
    assert clean_scene.frame_current == 1


def test_builtin_ik_is_muted_while_baking_and_restored(clean_scene: bpy.types.Scene) -> None:
    obj = make_chain()
    other = add_empty("other", (0.0, 3.0, 0.0))
    ik = obj.pose.bones["b2"].constraints.new("IK")
    ik.target = other
    target = _animated_target()
    add_constraint(obj, "b2", target, "POSITION")
    _scene_range(clean_scene, 1, 20)
    activate(obj)
    run_op(bpy.ops.reach.bake)
    assert not ik.mute
    ik.mute = True
    for frame in (1, 10, 20):
        clean_scene.frame_set(frame)
        assert np.linalg.norm(world_bone_tail(obj, "b2") - np.array(_circle(frame))) < TIP


def test_clear_keys_removes_only_solved_channels_in_range(clean_scene: bpy.types.Scene) -> None:
    obj = make_chain()
    obj.pose.bones["b2"].keyframe_insert("location", frame=5)
    target = _animated_target()
    add_constraint(obj, "b2", target, "POSITION")
    _scene_range(clean_scene)
    activate(obj)
    run_op(bpy.ops.reach.bake)
    run_op(bpy.ops.reach.clear_keys, use_scene_range=False, frame_start=1, frame_end=50)
    keys = _keys_per_channel(obj)
    for (path, _index), co in keys.items():
        if path.endswith("location"):
            assert list(co[:, 0]) == [5]
        else:
            assert list(co[:, 0]) == list(range(51, FRAMES + 1)), path
    run_op(bpy.ops.reach.clear_keys)
    assert channel_set(obj) == {(bone_path("b2", "location"), k) for k in range(3)}


def test_only_selected_constraints_are_baked(clean_scene: bpy.types.Scene) -> None:
    obj = make_chain(n=4)
    target = _animated_target()
    other = add_empty("other", (0.5, 0.0, 1.0))
    add_constraint(obj, "b3", target, "POSITION", chain_mode="LENGTH", chain_length=2)
    add_constraint(obj, "b1", other, "POSITION", chain_mode="LENGTH", chain_length=1)
    obj.reach_ik.constraints[1].select = False
    _scene_range(clean_scene, 1, 10)
    activate(obj)
    run_op(bpy.ops.reach.bake, only_selected=True)
    expected = {(bone_path(b, "rotation_quaternion"), k) for b in ("b2", "b3") for k in range(4)}
    assert channel_set(obj) == expected
    assert list(last_report(obj).worst) == ["b3 Position"]


def test_modal_bake_steps_on_timer_and_cancels_on_esc(
    clean_scene: bpy.types.Scene, extension: ModuleType
) -> None:
    import types

    obj = make_chain()
    target = _animated_target()
    add_constraint(obj, "b2", target, "POSITION")
    _scene_range(clean_scene, 1, FRAMES)
    clean_scene.frame_set(5)
    before = keys_of(obj), pose_of(obj)
    timer, esc = types.SimpleNamespace(type="TIMER"), types.SimpleNamespace(type="ESC")
    op, context = modal_operator(extension, obj)
    assert op.invoke(context, None) == {"RUNNING_MODAL"}
    assert op.modal(context, types.SimpleNamespace(type="MOUSEMOVE")) == {"PASS_THROUGH"}
    assert op.modal(context, timer) == {"RUNNING_MODAL"}
    assert 0 < op._job.index < FRAMES
    assert op.modal(context, esc) == {"CANCELLED"}
    assert "nothing written" in op.reports[-1][1]
    assert context.window_manager.timers == 0 and context.window_manager.progress[-1] == -1
    assert clean_scene.frame_current == 5
    assert keys_of(obj).keys() == before[0].keys()
    for name, values in before[1].items():
        assert np.array_equal(values, pose_of(obj)[name])
    op, context = modal_operator(extension, obj)
    assert op.invoke(context, None) == {"RUNNING_MODAL"}
    for _ in range(1000):
        state = op.modal(context, timer)
        if state != {"RUNNING_MODAL"}:
            break
    assert state == {"FINISHED"}
    assert context.window_manager.timers == 0
    assert len(channel_set(obj)) == 12 and clean_scene.frame_current == 5
    for frame in (1, 50, FRAMES):
        clean_scene.frame_set(frame)
        assert np.linalg.norm(world_bone_tail(obj, "b2") - np.array(_circle(frame))) < TIP
