"""Bake to a new action or a new NLA strip (besides the current action), and bake only the
selected bones, through ``reach.bake`` in real Blender."""

from __future__ import annotations

import math

import bpy
import numpy as np
import pytest

from tests.blender.bake_support import keyframes_of
from tests.blender.conftest import run_op, select_pose_bones, world_bone_tail
from tests.blender.reach_scenes import (
    fcurves,
    follow_path,
    last_report,
)

FRAMES = 6


def _circle(frame: int) -> tuple[float, float, float]:
    theta = 2.0 * math.pi * (frame - 1) / FRAMES
    return (1.0 * math.cos(theta), 1.0 * math.sin(theta), 2.2)


def _rig(keyed: bool) -> bpy.types.Object:
    """A 3-bone chain reaching for a target on a circle; ``keyed``: the armature already has
    an action keying b0's scale (a channel the bake does not solve)."""
    obj, _ = follow_path(_circle, FRAMES)
    if keyed:
        b0 = obj.pose.bones["b0"]
        for frame, s in ((1, 1.0), (FRAMES, 1.0)):
            b0.scale = (s, s, s)
            b0.keyframe_insert("scale", frame=frame)
    return obj


def _reaches_every_frame(obj: bpy.types.Object) -> None:
    target = bpy.data.objects["T"]
    for frame in range(1, FRAMES + 1):
        bpy.context.scene.frame_set(frame)
        tip = world_bone_tail(obj, "b2")
        np.testing.assert_allclose(tip, np.array(target.matrix_world.translation), atol=1e-4)


def _solved(channels: set[tuple[str, int]]) -> set[str]:
    return {path.split('"')[1] for path, _index in channels if path.startswith("pose.bones")}


@pytest.mark.parametrize("keyed", [True, False])
def test_bake_to_a_new_action_leaves_the_current_one_alone(
    clean_scene: bpy.types.Scene, keyed: bool
) -> None:
    obj = _rig(keyed)
    before = obj.animation_data.action if keyed else None
    keys_before = keyframes_of(obj)
    run_op(bpy.ops.reach.bake, target="NEW_ACTION")
    new = obj.animation_data.action
    assert new is not None and new != before
    assert new.name == (f"{before.name} Reach" if keyed else "ChainAction Reach")
    channels = {(f.data_path, f.array_index) for f in fcurves(obj)}
    assert _solved(channels) == {"b0", "b1", "b2"}
    if keyed:  # the copy keeps the other channels' animation; the original is unchanged
        assert set(keys_before) <= channels
        obj.animation_data.action = before
        after = keyframes_of(obj)
        assert after.keys() == keys_before.keys()
        for channel, data in keys_before.items():
            for prop, values in data.items():
                assert np.array_equal(values, after[channel][prop]), (channel, prop)
        obj.animation_data.action = new
    _reaches_every_frame(obj)


@pytest.mark.parametrize("keyed", [True, False])
def test_bake_to_a_new_nla_strip(clean_scene: bpy.types.Scene, keyed: bool) -> None:
    obj = _rig(keyed)
    before = obj.animation_data.action if keyed else None
    keys_before = keyframes_of(obj)
    actions_before = set(bpy.data.actions)
    run_op(bpy.ops.reach.bake, target="NEW_STRIP")
    ad = obj.animation_data
    assert ad.action == before and keyframes_of(obj).keys() == keys_before.keys()
    (new,) = set(bpy.data.actions) - actions_before
    (track,) = ad.nla_tracks
    (strip,) = track.strips
    assert (track.name, strip.action) == ("Reach Bake", new)
    assert (strip.frame_start, strip.frame_end) == (1.0, float(FRAMES))
    assert (strip.blend_type, strip.extrapolation) == ("REPLACE", "NOTHING")
    if bpy.app.version >= (4, 4, 0):
        assert strip.action_slot is not None
        bag = new.layers[0].strips[0].channelbag(strip.action_slot)
        strip_channels = {(f.data_path, f.array_index) for f in bag.fcurves}
    else:
        strip_channels = {(f.data_path, f.array_index) for f in new.fcurves}
    assert _solved(strip_channels) == {"b0", "b1", "b2"}
    assert not any(path.endswith("scale") for path, _index in strip_channels)
    _reaches_every_frame(obj)  # the NLA strip plays the baked motion


def test_strip_under_an_action_keying_the_same_channels_is_reported(
    clean_scene: bpy.types.Scene,
) -> None:
    obj = _rig(keyed=False)
    b1 = obj.pose.bones["b1"]
    b1.keyframe_insert("rotation_quaternion", frame=1)  # the active action keys a baked channel
    result = bpy.ops.reach.bake(target="NEW_STRIP")
    assert result == {"FINISHED"}
    report = last_report(obj)
    assert any("plays over the strip" in line for line in report.overrides)
    assert not report.satisfied  # measured on playback: the action wins on b1


def test_bake_only_the_selected_bones(clean_scene: bpy.types.Scene) -> None:
    obj = _rig(keyed=False)
    bpy.ops.object.mode_set(mode="POSE")
    select_pose_bones(obj, ["b1", "b2"], active="b2")
    run_op(bpy.ops.reach.bake, only_selected_bones=True)
    channels = {(f.data_path, f.array_index) for f in fcurves(obj)}
    assert _solved(channels) == {"b1", "b2"}  # b0 solved, not keyed
    select_pose_bones(obj, ["b0"], active="b0")
    run_op(bpy.ops.reach.bake, only_selected_bones=True)
    assert _solved({(f.data_path, f.array_index) for f in fcurves(obj)}) == {"b0", "b1", "b2"}
    _reaches_every_frame(obj)  # b1, b2 from the first bake, b0 from the second: same solve


def test_no_solved_bone_selected_is_an_error(clean_scene: bpy.types.Scene) -> None:
    obj = _rig(keyed=False)
    bpy.ops.object.mode_set(mode="POSE")
    select_pose_bones(obj, [])
    with pytest.raises(RuntimeError, match="none of the selected bones is solved"):
        bpy.ops.reach.bake(only_selected_bones=True)
    assert obj.animation_data is None  # nothing written
