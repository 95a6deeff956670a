"""A bake of several armatures as one system runs modally, as a bake of one armature does:
one frame per timer step with the progress cursor and a status text naming the armatures and
the frame; the keys it ends with are those of the bake in one go, bit for bit; ESC at any step
(solving, or measuring once the keys are written) puts every armature back as it was (keys,
action, pose, frame) and returns CANCELLED, so no undo step is pushed. Putting several armatures
back, every pose goes back after the one frame change (one armature's frame change would play
its animation over another's un-keyed edits).

Background Blender has no event loop: the operator's own methods are driven with TIMER and ESC
events (:func:`tests.blender.bake_support.operator_stand_in`).
"""

from __future__ import annotations

import importlib
import math
import types
from collections.abc import Callable
from types import ModuleType

import bpy
import numpy as np
import pytest

from tests.blender.bake_support import keyframes_of, modal_operator
from tests.blender.conftest import load_empty_file, run_op
from tests.blender.joined_support import two_arms
from tests.blender.reach_scenes import fcurves, last_report, pose_of

FRAMES = 9
TIMER, ESC = types.SimpleNamespace(type="TIMER"), types.SimpleNamespace(type="ESC")


def _scene() -> tuple[bpy.types.Object, bpy.types.Object]:
    """The two arms with the held part rising over frames 1..9, and the user's own work on A:
    keys on a solved channel (one with BACK interpolation) and an un-keyed pose edit; B has no
    animation data."""
    a, b = two_arms()
    plane = bpy.data.objects["Plane"]
    for frame, z in ((1, 0.9), (FRAMES, 1.4)):
        plane.location.z = z
        plane.keyframe_insert("location", frame=frame)
    b0 = a.pose.bones["b0"]
    for frame, angle in ((1, 0.0), (5, 0.3), (20, -0.2)):
        b0.rotation_quaternion = (math.cos(angle / 2), 0.0, math.sin(angle / 2), 0.0)
        b0.keyframe_insert("rotation_quaternion", frame=frame)
    next(f for f in fcurves(a) if f.array_index == 2).keyframe_points[1].interpolation = "BACK"
    bpy.context.scene.frame_set(4)
    b0.rotation_quaternion = (0.9, 0.1, 0.0, 0.0)  # an un-keyed edit of a keyed channel
    a.pose.bones["b1"].scale = (1.0, 1.1, 1.0)
    return a, b


def _snapshot(obj: bpy.types.Object) -> dict:
    """Everything of ``obj`` a bake may change: keys (every keyframe property), pose, action."""
    ad = obj.animation_data
    return {
        "keys": keyframes_of(obj),
        "pose": pose_of(obj),
        "animation_data": ad is not None,
        "action": None if ad is None or ad.action is None else ad.action.name,
    }


def _assert_same(before: dict, after: dict, name: str) -> None:
    assert after["animation_data"] == before["animation_data"], name
    assert after["action"] == before["action"], name
    assert after["keys"].keys() == before["keys"].keys(), name
    for channel, data in before["keys"].items():
        for prop, values in data.items():
            assert np.array_equal(values, after["keys"][channel][prop]), (name, channel, prop)
    for bone, values in before["pose"].items():
        assert np.array_equal(values, after["pose"][bone]), (name, bone)


def _failing(solve: Callable) -> Callable:
    """``solve`` whose 5th call (the solve of frame 5) raises a KeyError."""
    calls = []

    def failing(*args: object, **kwargs: object) -> object:
        calls.append(1)
        if len(calls) == 5:
            raise KeyError("missing")
        return solve(*args, **kwargs)

    return failing


def _operator(extension: ModuleType, a: bpy.types.Object) -> tuple[object, object]:
    """The bake operator on A for frames 1..9, driven step by step."""
    op, context = modal_operator(extension, a)
    op.use_scene_range, op.frame_start, op.frame_end = False, 1, FRAMES
    return op, context


def test_a_joined_bake_run_modally_ends_with_the_keys_of_the_bake_in_one_go(
    clean_scene: bpy.types.Scene, extension: ModuleType
) -> None:
    a, b = _scene()
    op, context = _operator(extension, a)
    assert op.invoke(context, None) == {"RUNNING_MODAL"}
    states = [op.modal(context, TIMER) for _ in range(2 * FRAMES)]
    assert states == [{"RUNNING_MODAL"}] * (2 * FRAMES - 1) + [{"FINISHED"}]
    wm, status = context.window_manager, context.workspace.status
    assert wm.progress == [0, *range(1, 2 * FRAMES + 1), -1] and wm.timers == 0
    assert status[0] == "Reach bake of 'A', 'B' as one system: solving frame 1 (0/18); ESC cancels"
    assert "measuring frame 1 (9/18)" in status[FRAMES] and status[-1] is None
    kind, text = op.reports[0]
    assert kind == {"INFO"} and text.startswith("Reach: 2 armatures baked as one system")
    for obj in (a, b):
        report = last_report(obj)
        assert report.satisfied and report.frames == tuple(range(1, FRAMES + 1)), report.text()
    modal = {obj.name: _snapshot(obj) for obj in (a, b)}
    assert clean_scene.frame_current == 4

    load_empty_file()
    a, b = _scene()
    run_op(bpy.ops.reach.bake, use_scene_range=False, frame_start=1, frame_end=FRAMES)
    for obj in (a, b):
        _assert_same(_snapshot(obj), modal[obj.name], obj.name)  # bit for bit


@pytest.mark.parametrize("steps", [3, FRAMES + 2])  # solving; measuring, keys written
def test_esc_puts_every_armature_back_and_cancels(
    clean_scene: bpy.types.Scene, extension: ModuleType, steps: int
) -> None:
    a, b = _scene()
    before = {obj.name: _snapshot(obj) for obj in (a, b)}
    actions = {action.name for action in bpy.data.actions}
    busy = importlib.import_module(f"{extension.__name__}.bridge.blender.busy_armatures")
    op, context = _operator(extension, a)
    assert op.invoke(context, None) == {"RUNNING_MODAL"}
    for _ in range(steps):
        assert op.modal(context, TIMER) == {"RUNNING_MODAL"}
    assert busy.is_busy(a) and busy.is_busy(b)  # no other Solve or bake takes them meanwhile
    if steps > FRAMES:  # the keys are written: B has an action now
        assert b.animation_data is not None and b.animation_data.action is not None
    assert op.modal(context, ESC) == {"CANCELLED"}
    kind, text = op.reports[-1]
    assert kind == {"WARNING"}
    assert text.startswith(f"Reach bake of 'A', 'B' cancelled at frame {1 + steps % FRAMES}")
    assert context.window_manager.timers == 0 and context.window_manager.progress[-1] == -1
    assert context.workspace.status[-1] is None
    for obj in (a, b):
        _assert_same(before[obj.name], _snapshot(obj), obj.name)
        assert not busy.is_busy(obj), obj.name
    assert {action.name for action in bpy.data.actions} == actions
    assert clean_scene.frame_current == 4


def test_a_failing_step_puts_every_armature_back(
    clean_scene: bpy.types.Scene, extension: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b = _scene()
    before = {obj.name: _snapshot(obj) for obj in (a, b)}
    monkeypatch.setattr(extension.solver.Solver, "solve", _failing(extension.solver.Solver.solve))
    op, context = _operator(extension, a)
    assert op.invoke(context, None) == {"RUNNING_MODAL"}
    states = [op.modal(context, TIMER) for _ in range(5)]
    assert states == [{"RUNNING_MODAL"}] * 4 + [{"CANCELLED"}]
    kind, text = op.reports[-1]
    assert kind == {"ERROR"} and "frame 5, nothing written: KeyError" in text
    for obj in (a, b):
        _assert_same(before[obj.name], _snapshot(obj), obj.name)


def test_a_joined_bake_keeps_an_unbaked_edit_of_the_first_armature(
    clean_scene: bpy.types.Scene,
) -> None:
    """A's ``b0`` location is keyed (not baked: only rotations are solved) and edited without a
    key. Each armature's pose is put back after the last frame change of the bake: on main, B's
    frame change re-evaluated A's animation over A's restored edit."""
    a, _b = _scene()
    b0 = a.pose.bones["b0"]
    b0.keyframe_insert("location", frame=3)  # (0, 0, 0)
    b0.location = (0.0, 0.0, 0.25)
    before = pose_of(a)
    run_op(bpy.ops.reach.bake, use_scene_range=False, frame_start=1, frame_end=FRAMES)
    assert np.array_equal(np.array(b0.location), before["b0"][:3])
    assert np.array_equal(np.array(a.pose.bones["b1"].scale), before["b1"][-3:])


def test_a_joined_bake_failing_in_one_go_puts_the_first_armatures_edit_back(
    clean_scene: bpy.types.Scene, extension: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b = _scene()
    before = {obj.name: _snapshot(obj) for obj in (a, b)}
    monkeypatch.setattr(extension.solver.Solver, "solve", _failing(extension.solver.Solver.solve))
    with pytest.raises(RuntimeError, match="frame 5, nothing written: KeyError"):
        bpy.ops.reach.bake(use_scene_range=False, frame_start=1, frame_end=FRAMES)
    for obj in (a, b):
        _assert_same(before[obj.name], _snapshot(obj), obj.name)
