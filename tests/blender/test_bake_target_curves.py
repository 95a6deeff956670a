"""A batched bake's targets read from their F-curves (issue 21, bridge/measure/target_curves.py).

Where a target's world matrix is a function of its own transform F-curves, the batched bake
composes it for every frame in numpy instead of stepping the scene: the matrices are Blender's
evaluated ones to float32 round-off at every frame, for every rotation mode, interpolation
and extrapolation; a target whose matrix also depends on something else (an animated parent,
a constraint, a driver, a frame-change handler) is read by stepping the scene, and its keys are
the stepping bake's bit for bit.
"""

from __future__ import annotations

import math
from types import ModuleType

import bpy
import numpy as np
import pytest
from mathutils import Matrix

from tests.blender.conftest import run_op
from tests.blender.reach_scenes import add_empty, fcurves, last_report
from tests.blender.test_bake_batched import FRAMES, _hinged_arm, _values

MODES = ("XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX", "QUATERNION", "AXIS_ANGLE")
INTERPOLATIONS = ("CONSTANT", "LINEAR", "BEZIER", "SINE", "BACK", "ELASTIC", "BOUNCE", "EXPO")
#: Float32 round-off of Blender's composition (as ``rig.size.float32_resolution``).
ROUND_OFF = 8.0 * 2.0**-23


def _keyed(name: str, mode: str, k: int) -> bpy.types.Object:
    """An empty in rotation ``mode`` keyed on location, rotation and scale at frames 5-30,
    with the ``k``-th interpolation and linear extrapolation on every other one."""
    obj = add_empty(name, (0.0, 0.0, 0.0))
    obj.rotation_mode = mode
    obj.delta_location = (0.1, -0.2, 0.3)
    obj.delta_scale = (1.0, 1.5, 0.8)
    if mode == "QUATERNION":
        obj.delta_rotation_quaternion = (0.9, 0.1, -0.3, 0.2)
    elif mode != "AXIS_ANGLE":
        obj.delta_rotation_euler = (0.2, -0.4, 0.7)
    path = {"QUATERNION": "rotation_quaternion", "AXIS_ANGLE": "rotation_axis_angle"}.get(
        mode, "rotation_euler"
    )
    for j, frame in enumerate((5, 12, 20, 30)):
        t = 0.7 * j + 0.3 * k
        obj.location = (math.sin(t), 0.5 * math.cos(2 * t), 0.2 * t)
        rotation = [0.4 * t, -0.8 + t, 1.3 * math.sin(t), 0.5][: len(getattr(obj, path))]
        setattr(obj, path, rotation)
        obj.scale = (1.0 + 0.2 * t, 0.9, 1.1 - 0.1 * t)
        for channel in ("location", path, "scale"):
            obj.keyframe_insert(channel, frame=frame)
    for fcurve in fcurves(obj):
        for point in fcurve.keyframe_points:
            point.interpolation = INTERPOLATIONS[(k + fcurve.array_index) % len(INTERPOLATIONS)]
            point.easing = ("AUTO", "EASE_IN", "EASE_OUT", "EASE_IN_OUT")[k % 4]
        fcurve.extrapolation = "LINEAR" if (k + fcurve.array_index) % 2 else "CONSTANT"
        if k % 3 == 2 and fcurve.array_index == 0:
            fcurve.modifiers.new("CYCLES")
    return obj


def test_matrices_from_f_curves_are_blenders_at_every_frame(
    clean_scene: bpy.types.Scene, extension: ModuleType
) -> None:
    parent = add_empty("Still parent", (0.5, -1.0, 2.0), (0.3, -0.2, 1.1))
    parent.scale = (2.0, 2.0, 2.0)
    targets = [_keyed(f"T {mode}", mode, k) for k, mode in enumerate(MODES)]
    child = _keyed("T child", "ZXY", 3)
    child.parent = parent
    inverse = np.linalg.inv(np.array(parent.matrix_world) @ np.diag([1.0, 2.0, 0.5, 1.0]))
    child.matrix_parent_inverse = Matrix(inverse.tolist())
    targets.append(child)
    frames = list(range(-4, 41))  # before, between and after the keys
    curves = extension.bridge.measure.target_curves
    composed = {obj.name: curves.world_matrices(obj, frames) for obj in targets}
    for k, frame in enumerate(frames):
        clean_scene.frame_set(frame)
        for obj in targets:
            blender = np.array(obj.matrix_world)
            magnitude = max(1.0, np.abs(blender).max())
            off = np.abs(composed[obj.name][k] - blender).max()
            assert off <= ROUND_OFF * magnitude, (obj.name, frame, off)


def _why_stepped(rig: object, scene: object, depsgraph: object) -> str:
    return "asked by the test"


def _assert_same_keys(keys: dict, stepped: dict) -> None:
    """The same channels keyed with the same values, bit for bit, as the stepping bake's."""
    assert keys.keys() == stepped.keys()
    for channel, values in stepped.items():
        assert np.array_equal(keys[channel], values), channel


def _bake(obj: bpy.types.Object) -> tuple[dict, str]:
    run_op(bpy.ops.reach.bake)
    report = last_report(obj)
    assert report.batched, report.text()
    return _values(obj), report.targets_read


def _assert_stepping_bakes_the_same(
    obj: bpy.types.Object, keys: dict, extension: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``obj`` baked again with the scene stepped by force keys ``keys`` bit for bit."""
    monkeypatch.setattr(extension.bridge.bake.baking, "why_stepped", _why_stepped)
    stepped, _read = _bake(obj)
    _assert_same_keys(keys, stepped)


def test_a_target_of_its_own_f_curves_is_read_from_them_with_the_same_keys(
    clean_scene: bpy.types.Scene, extension: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Positions from F-curves without a parent are Blender's bit for bit: so are the keys."""
    obj = _hinged_arm()
    curves, read = _bake(obj)
    assert read == "F-curves"
    monkeypatch.setattr(extension.bridge.bake.baking, "why_stepped", _why_stepped)
    stepped, read = _bake(obj)
    assert read == "stepping the scene: asked by the test"
    _assert_same_keys(curves, stepped)


def test_goals_that_read_points_alone_are_set_for_every_frame_at_once(
    clean_scene: bpy.types.Scene, extension: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The hinged arm's position goal reads its target's point alone: the batch's table gets
    every later frame's point at once (``TargetCurves.goal_points``, the numbers above bit
    for bit); the goals are set from one frame's matrices only at the last frame (as a
    sequential bake leaves them) and where a check is due."""
    obj = _hinged_arm()
    curves_type = extension.bridge.measure.target_curves.TargetCurves
    update = curves_type.update
    updated: list[int] = []

    def counted(self: object, index: int) -> None:
        updated.append(index)
        update(self, index)

    monkeypatch.setattr(curves_type, "update", counted)
    _values, read = _bake(obj)
    assert read == "F-curves"
    assert updated == [FRAMES - 1]


def _animated_parent(target: bpy.types.Object) -> str:
    parent = add_empty("P", (0.0, 0.0, 0.0))
    parent.keyframe_insert("location", frame=1)  # still at frame 1: the guard cannot see it
    parent.location = (0.0, 0.2, -0.3)
    parent.keyframe_insert("location", frame=FRAMES)
    target.parent = parent
    return "'T' has parent 'P', which is animated"


def _constraint(target: bpy.types.Object) -> str:
    limit = target.constraints.new("LIMIT_LOCATION")  # z from 0.9 to 1.5, 1.2 at frame 1
    limit.use_max_z, limit.max_z = True, 1.35
    return "'T' has an enabled constraint"


def _driver(target: bpy.types.Object) -> str:
    driver = target.driver_add("location", 0).driver  # 0 at frame 1, as keyed
    driver.type = "SCRIPTED"
    driver.expression = "0.2 * sin((frame - 1) * 0.2)"
    return "'T' has drivers"


@pytest.mark.parametrize("make", [_animated_parent, _constraint, _driver])
def test_a_target_moved_by_more_than_its_f_curves_is_read_by_stepping_the_scene(
    clean_scene: bpy.types.Scene, extension: ModuleType, monkeypatch: pytest.MonkeyPatch,
    make: object,
) -> None:  # fmt: skip
    obj = _hinged_arm()
    why = make(bpy.data.objects["T"])
    clean_scene.frame_set(1)
    keys, read = _bake(obj)
    assert read.startswith("stepping the scene: constraint '"), read
    assert read.endswith(f"its target {why}"), read
    _assert_stepping_bakes_the_same(obj, keys, extension, monkeypatch)


def test_a_frame_change_handler_makes_the_bake_step_the_scene(
    clean_scene: bpy.types.Scene, extension: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A script run at each frame change may move a target (here its delta location, which
    no F-curve animates): the targets are read by stepping the scene, and the keys are the
    stepping bake's."""
    obj = _hinged_arm()
    target = bpy.data.objects["T"]

    def sway(scene: bpy.types.Scene, *_args: object) -> None:
        target.delta_location = (0.0, 0.1 * math.sin(0.3 * (scene.frame_current - 1)), 0.0)

    bpy.app.handlers.frame_change_pre.append(sway)
    try:
        clean_scene.frame_set(1)
        keys, read = _bake(obj)
        assert read == "stepping the scene: a frame-change handler is registered"
        monkeypatch.setattr(extension.bridge.bake.baking, "why_stepped", _why_stepped)
        stepped, _read = _bake(obj)
    finally:
        bpy.app.handlers.frame_change_pre.remove(sway)
    _assert_same_keys(keys, stepped)
