"""A bake of part of a keyed range joins the keys before and after it without a pop.

Issue 18, section 4: bake the demo, then re-bake frames 100-150 only. From the rest pose the
redundant limbs settled on other solutions than the first bake's keys, and the pose jumped by
0.55 and 0.80 in bone matrix entries at 99/100 and 150/151 (0.02-0.03 between other frames).
A sub-range bake starts from the pose the existing keys give, so it meets them at both ends,
also when a target changed inside the range.
"""

from __future__ import annotations

import math

import bpy
import numpy as np
import pytest

from tests.blender.conftest import run_op
from tests.blender.reach_scenes import activate, last_report

FRAMES = 200  # the demo's targets move over frames 1-120, then stand
FIRST, LAST = 100, 150
#: Largest change of any bone matrix entry (armature space) where the range meets the keys:
#: the demo's frame-to-frame change is 0.02-0.03 elsewhere.
JOINT = 0.05


def _matrices(obj: bpy.types.Object, frames: range) -> np.ndarray:
    """Every pose bone's armature-space matrix entries at each of ``frames`` (n, 16 bones)."""
    scene = bpy.context.scene
    out = []
    for frame in frames:
        scene.frame_set(frame)
        out.append(np.concatenate([np.array(pb.matrix).ravel() for pb in obj.pose.bones]))
    return np.array(out)


def _bake_demo() -> bpy.types.Object:
    from examples.blender_demo import build_scene

    obj = build_scene(FRAMES)
    activate(obj)
    run_op(bpy.ops.reach.bake)
    return obj


def _move_hand_target(bump: float) -> None:
    """Shift the left hand's target sideways over frames 110-140 by up to ``bump`` units
    (smoothly: 0 at both ends), keeping it within reach."""
    hand = bpy.data.objects["hand_target.L"]
    scene = bpy.context.scene
    where = {}
    for frame in range(110, 141):
        scene.frame_set(frame)
        where[frame] = hand.matrix_world.translation.copy()
    for frame, point in where.items():
        s = math.sin(math.pi * (frame - 110) / 30.0) ** 2
        hand.location = (point.x, point.y + bump * s, point.z)
        hand.keyframe_insert("location", frame=frame)


@pytest.mark.parametrize("bump", [0.0, 0.05])
def test_a_partial_rebake_meets_the_keys_at_both_ends(
    clean_scene: bpy.types.Scene, bump: float
) -> None:
    """Targets as baked (``bump`` 0: the re-bake gives the keys back), and the left hand's
    target moved inside the range."""
    obj = _bake_demo()
    window = range(FIRST - 5, LAST + 6)
    before = _matrices(obj, window)
    if bump:
        _move_hand_target(bump)
    activate(obj)
    run_op(bpy.ops.reach.bake, use_scene_range=False, frame_start=FIRST, frame_end=LAST)
    report = last_report(obj)
    assert report.satisfied and report.frames == tuple(range(FIRST, LAST + 1)), report.text()
    after = _matrices(obj, window)
    steps = np.abs(np.diff(after, axis=0)).max(axis=1)  # steps[i]: window[i] -> window[i + 1]
    start, end = FIRST - window.start - 1, LAST - window.start
    joints = f"{steps[start]:.3f} at {FIRST - 1}/{FIRST}, {steps[end]:.3f} at {LAST}/{LAST + 1}"
    assert steps[start] < JOINT and steps[end] < JOINT, f"the range pops: {joints}"
    assert steps.max() < JOINT, f"largest step {steps.max():.3f}"
    outside = np.r_[0 : FIRST - window.start, LAST - window.start + 1 : len(window)]
    assert np.array_equal(after[outside], before[outside])  # the keys around are untouched
    if not bump:  # unchanged targets: the keyed poses come back (float32 keys, round-off)
        assert np.abs(after - before).max() < 1e-5
