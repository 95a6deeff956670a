"""A Smooth bake bounds every joint's change per frame (seed 001, Fig. 1: the hand crossing
near the shoulder), and its report counts the frames the bound held, missed goals included."""

from __future__ import annotations

import math
from types import ModuleType

import bpy
import numpy as np
import pytest

from tests.blender.conftest import run_op
from tests.blender.panel_draw import draw_panels
from tests.blender.reach_scenes import (
    activate,
    add_constraint,
    add_empty,
    fcurves,
    last_report,
    make_chain,
)

#: Upper arm and forearm, scene units; the elbow flexes one way, at most 3.12 rad.
LENGTH = 0.3
ELBOW = 3.12
#: The target moves along x = 0.002 past the shoulder, 0.03 per frame.
FRAMES = 16
BOUND = 30.0  # degrees per frame


def _target(frame: int) -> tuple[float, float, float]:
    return (0.002, 0.0, 0.03 * (frame - 1 - FRAMES / 2 + 0.5))


def _arm() -> bpy.types.Object:
    """A two-bone arm along +z from the origin (the shoulder), each bone turning about its
    local z only (world y: the arm moves in the xz plane), the elbow one way only."""
    scene = bpy.context.scene
    arm = bpy.data.armatures.new("Arm")
    obj = bpy.data.objects.new("Arm", arm)
    scene.collection.objects.link(obj)
    activate(obj)
    bpy.ops.object.mode_set(mode="EDIT")
    upper = arm.edit_bones.new("upper")
    upper.head, upper.tail = (0.0, 0.0, 0.0), (0.0, 0.0, LENGTH)
    fore = arm.edit_bones.new("fore")
    fore.head, fore.tail = (0.0, 0.0, LENGTH), (0.0, 0.0, 2.0 * LENGTH)
    fore.parent, fore.use_connect = upper, True
    bpy.ops.object.mode_set(mode="OBJECT")
    for pb in obj.pose.bones:
        pb.rotation_mode = "XYZ"
        pb.lock_ik_x = pb.lock_ik_y = True
    fore = obj.pose.bones["fore"]
    fore.use_ik_limit_z = True
    fore.ik_min_z, fore.ik_max_z = 0.0, ELBOW
    return obj


def _shot() -> bpy.types.Object:
    obj = _arm()
    target = add_empty("Hand", _target(1))
    for frame in range(1, FRAMES + 1):
        target.location = _target(frame)
        target.keyframe_insert("location", frame=frame)
    add_constraint(obj, "fore", target, "POSITION")
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, FRAMES
    scene.frame_set(1)
    activate(obj)
    return obj


def _baked_steps(obj: bpy.types.Object) -> np.ndarray:
    """(FRAMES - 1,) the largest change of a baked rotation channel per frame, radians."""
    curves = [f for f in fcurves(obj) if f.data_path.endswith("rotation_euler")]
    assert curves
    values = np.array([[f.evaluate(frame) for frame in range(1, FRAMES + 1)] for f in curves])
    return np.abs(np.diff(values, axis=1)).max(axis=0)


def test_without_smooth_the_elbow_flips_at_the_crossing(clean_scene: bpy.types.Scene) -> None:
    obj = _shot()
    run_op(bpy.ops.reach.bake)
    steps = _baked_steps(obj)
    assert steps.max() > 2.5  # 2.88 rad measured: the shoulder swings over in one frame
    report = last_report(obj)
    assert report.satisfied and report.smooth is None


def test_smooth_keeps_every_baked_step_within_the_bound(clean_scene: bpy.types.Scene) -> None:
    """Every frame's baked change is at most 30 degrees; the frames where it reaches the
    bound are the ones the report counts as held, and those that miss the hand's target
    make the bake report the constraint missed (worst 0.09 measured), never satisfied."""
    obj = _shot()
    run_op(bpy.ops.reach.bake, smooth=True, max_change=BOUND)
    steps = _baked_steps(obj)
    bound = math.radians(BOUND)
    assert steps.max() <= bound + 1e-5  # F-curve values are single precision
    at_bound = [frame + 1 for frame in range(1, FRAMES) if steps[frame - 1] >= bound - 1e-5]
    report = last_report(obj)
    assert report.smooth is not None
    assert list(report.smooth.held) == at_bound
    assert len(at_bound) >= 5  # a swing of 2.88 rad at 0.52 rad per frame
    [(distance, _angle, satisfied)] = report.smooth.worst.values()
    assert not satisfied and distance > 0.05
    assert not report.satisfied
    assert "UNREACHED" in report.text()
    assert f"{len(at_bound)} frame(s) held by the bound" in report.text()
    # the tip recovers: the last frames reach the target again
    clean_scene.frame_set(FRAMES)
    tail = np.array(obj.matrix_world @ obj.pose.bones["fore"].tail)
    assert np.linalg.norm(tail - np.array(_target(FRAMES))) < 1e-4


def test_the_panel_settings_make_the_bake_smooth(
    clean_scene: bpy.types.Scene, extension: ModuleType
) -> None:
    """The panel draws Smooth and Largest Change; they apply when the operator is not given
    them (as the panel's Bake button calls it), and the result box counts the held frames."""
    obj = _shot()
    assert {("prop", "bake_smooth"), ("prop", "bake_max_change")} <= set(draw_panels(extension))
    obj.reach_ik.bake_smooth = True
    obj.reach_ik.bake_max_change = BOUND
    run_op(bpy.ops.reach.bake)
    assert _baked_steps(obj).max() <= math.radians(BOUND) + 1e-5
    assert last_report(obj).smooth.change == pytest.approx(BOUND)
    drawn = draw_panels(extension)
    assert ("label", "Smooth: 6 frame(s) held by the bound (30 degrees per frame)") in drawn


def test_free_bones_turn_at_most_three_times_the_bound(clean_scene: bpy.types.Scene) -> None:
    """Quaternion bones without limits are solved about their own three axes: each baked
    frame turns a bone by at most three times the bound (each axis by at most the bound),
    and the fast target is reported missed on the frames the bound held."""
    obj = make_chain(n=3, length=0.5)
    target = add_empty("T", (0.6, 0.0, 1.0))
    for frame in range(1, 9):
        angle = 0.8 * (frame - 1)
        target.location = (0.8 * math.cos(angle), 0.8 * math.sin(angle), 0.9)
        target.keyframe_insert("location", frame=frame)
    add_constraint(obj, "b2", target, "POSITION")
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, 8
    scene.frame_set(1)
    activate(obj)
    run_op(bpy.ops.reach.bake, smooth=True, max_change=5.0)
    turns = []
    for name in ("b0", "b1", "b2"):
        curves = [
            f for f in fcurves(obj) if f.data_path == f'pose.bones["{name}"].rotation_quaternion'
        ]
        q = np.array([[f.evaluate(frame) for f in sorted(curves, key=lambda c: c.array_index)]
                      for frame in range(1, 9)])  # fmt: skip
        q /= np.linalg.norm(q, axis=1)[:, None]
        dots = np.abs(np.sum(q[1:] * q[:-1], axis=1))
        turns.append(2.0 * np.arccos(np.clip(dots, -1.0, 1.0)))
    largest = float(np.max(turns))
    assert math.radians(5.0) < largest <= 3.0 * math.radians(5.0) + 1e-5
    report = last_report(obj)
    assert report.smooth is not None and len(report.smooth.held) >= 1
    assert not report.satisfied
