"""A bake that fails or is cancelled leaves the scene exactly as it was.

Any exception at any point (Reach's or not, in the solve, in a frame-change handler, while
the keys are written), and ESC in the modal bake, must restore: Blender's IK constraints the
bake muted, the current frame, the action / animation data and every existing key (all
keyframe properties), and the pose (un-keyed edits of keyed channels included).
"""

from __future__ import annotations

import importlib
import math
import types
from collections.abc import Callable, Iterator
from types import ModuleType

import bpy
import numpy as np
import pytest

from tests.blender.bake_support import keyframes_of, modal_operator
from tests.blender.conftest import load_empty_file, run_op, world_bone_tail
from tests.blender.reach_scenes import activate, add_constraint, add_empty, fcurves, make_chain

FRAMES = 30
TARGETS = ("CURRENT", "NEW_ACTION", "NEW_STRIP")  # where the keys go (the bake's target)


def pose_of(obj: bpy.types.Object) -> dict[str, np.ndarray]:
    """Every pose channel of every bone."""
    props = ("location", "rotation_quaternion", "rotation_euler", "rotation_axis_angle", "scale")
    return {
        pb.name: np.concatenate([np.array(getattr(pb, p)) for p in props]) for pb in obj.pose.bones
    }


def _circle(frame: int) -> tuple[float, float, float]:
    theta = 2.0 * math.pi * (frame - 1) / FRAMES
    return (1.2 * math.cos(theta), 1.2 * math.sin(theta), 2.0)


def _rig(keyed: bool = True) -> tuple[bpy.types.Object, bpy.types.Constraint]:
    """A 3-bone chain reaching for an animated target, with the user's own work on it:
    a built-in IK (the bake mutes it), keys on a solved channel inside and outside the range
    with non-default interpolation, easing and handle types, and an un-keyed pose edit."""
    obj = make_chain()
    target = add_empty("T", _circle(1))
    for frame in range(1, FRAMES + 1):
        target.location = _circle(frame)
        target.keyframe_insert("location", frame=frame)
    ik = obj.pose.bones["b2"].constraints.new("IK")
    ik.target = add_empty("other", (0.0, 3.0, 0.0))
    add_constraint(obj, "b2", target, "POSITION")
    b1 = obj.pose.bones["b1"]
    if keyed:
        for frame, angle in ((1, 0.0), (12, 0.4), (60, -0.3)):
            b1.rotation_quaternion = (math.cos(angle / 2), math.sin(angle / 2), 0.0, 0.0)
            b1.keyframe_insert("rotation_quaternion", frame=frame)
        points = next(f for f in fcurves(obj) if f.array_index == 1).keyframe_points
        points[1].interpolation = "BACK"
        points[1].easing = "EASE_OUT"
        points[0].handle_right_type = "VECTOR"
        points[2].type = "BREAKDOWN"
        obj.pose.bones["b0"].location = (0.0, 0.0, 0.0)
        obj.pose.bones["b0"].keyframe_insert("location", frame=3)
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, FRAMES
    scene.frame_set(7)
    b1.rotation_quaternion = (0.9, 0.0, 0.3, 0.0)  # an un-keyed edit of a keyed channel
    b1.scale = (1.0, 1.2, 1.0)
    activate(obj)
    return obj, ik


def _snapshot(obj: bpy.types.Object) -> dict:
    ad = obj.animation_data
    return {
        "keys": keyframes_of(obj),
        "pose": pose_of(obj),
        "frame": bpy.context.scene.frame_current,
        "action": None if ad is None else ad.action,
        "has_animation_data": ad is not None,
        "actions": {a.name for a in bpy.data.actions},
        "tracks": [] if ad is None else [t.name for t in ad.nla_tracks],
    }


def _assert_unchanged(obj: bpy.types.Object, before: dict, ik: bpy.types.Constraint) -> None:
    after = _snapshot(obj)
    assert not ik.mute, "the built-in IK muted for the bake was not unmuted"
    assert after["frame"] == before["frame"]
    assert after["has_animation_data"] == before["has_animation_data"]
    assert after["action"] == before["action"]
    assert after["actions"] == before["actions"]
    assert after["tracks"] == before["tracks"]
    assert after["keys"].keys() == before["keys"].keys()
    for channel, data in before["keys"].items():
        for prop, values in data.items():
            assert np.array_equal(values, after["keys"][channel][prop]), (channel, prop)
    for name, values in before["pose"].items():
        assert np.array_equal(values, after["pose"][name]), name


def failing_on_call(original: Callable, k: int, exc: BaseException) -> Callable:
    """``original`` wrapped so that its k-th call (1-based) raises ``exc``; ``.calls`` counts."""

    def wrapper(*args: object, **kwargs: object) -> object:
        wrapper.calls += 1
        if wrapper.calls == k:
            raise exc
        return original(*args, **kwargs)

    wrapper.calls = 0
    return wrapper


@pytest.fixture
def fail_at_solve(extension: ModuleType, monkeypatch: pytest.MonkeyPatch) -> Iterator[object]:
    """``fail_at_solve(k, exc)``: the k-th solve (1-based) of the next bake raises ``exc``."""

    def arm(k: int, exc: BaseException) -> None:
        solve = failing_on_call(extension.solver.Solver.solve, k, exc)
        monkeypatch.setattr(extension.solver.Solver, "solve", solve)

    yield arm


@pytest.mark.parametrize(
    "exc", [KeyError("pose bone"), ValueError("bad value"), ZeroDivisionError("boom")]
)
@pytest.mark.parametrize("keyed", [True, False])
def test_exception_in_the_solve_at_frame_k_restores_everything(
    clean_scene: bpy.types.Scene, fail_at_solve: object, exc: Exception, keyed: bool
) -> None:
    obj, ik = _rig(keyed)
    before = _snapshot(obj)
    fail_at_solve(12, exc)
    with pytest.raises(RuntimeError, match=f"frame 12, nothing written: {type(exc).__name__}"):
        bpy.ops.reach.bake(batched=False)  # the k-th solve is frame k's one after another
    _assert_unchanged(obj, before, ik)


def test_reach_error_from_the_solver_restores_everything(
    clean_scene: bpy.types.Scene, fail_at_solve: object, extension: ModuleType
) -> None:
    obj, ik = _rig()
    before = _snapshot(obj)
    fail_at_solve(1, extension.solver.InvalidInputError("start has NaN"))
    with pytest.raises(RuntimeError, match="frame 1, nothing written: start has NaN"):
        bpy.ops.reach.bake()
    _assert_unchanged(obj, before, ik)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("mode", ["REPLACE", "LAYER"])
@pytest.mark.parametrize("keyed", [True, False])
def test_error_while_writing_keys_restores_everything(
    clean_scene: bpy.types.Scene, extension: ModuleType, monkeypatch: pytest.MonkeyPatch,
    mode: str, keyed: bool, target: str,
) -> None:  # fmt: skip
    """The write fails after some channels were already rewritten (keys removed / added)."""
    obj, ik = _rig(keyed)
    before = _snapshot(obj)
    compat = extension.bridge.blender.compat
    ensure_fcurve = failing_on_call(compat.ensure_fcurve, 4, MemoryError("out of memory"))
    monkeypatch.setattr(compat, "ensure_fcurve", ensure_fcurve)
    with pytest.raises(RuntimeError, match="nothing written: MemoryError"):
        bpy.ops.reach.bake(mode=mode, target=target)
    assert ensure_fcurve.calls == 4, "the write did not get as far as the fourth channel"
    _assert_unchanged(obj, before, ik)


def test_bone_renamed_mid_bake_restores_everything(clean_scene: bpy.types.Scene) -> None:
    """A frame-change handler renames a chain bone at frame 9 (a KeyError in the bake)."""
    obj, ik = _rig()
    before = _snapshot(obj)

    def rename(scene: bpy.types.Scene, *_args: object) -> None:
        if scene.frame_current == 9 and "b0" in obj.data.bones:
            obj.data.bones["b0"].name = "renamed"

    bpy.app.handlers.frame_change_pre.append(rename)
    try:
        with pytest.raises(RuntimeError, match="frame 9, nothing written: KeyError"):
            bpy.ops.reach.bake()
    finally:
        bpy.app.handlers.frame_change_pre.remove(rename)
    obj.data.bones["renamed"].name = "b0"  # Blender renames the F-curve paths back too
    _assert_unchanged(obj, before, ik)


def test_target_deleted_mid_bake_restores_everything(clean_scene: bpy.types.Scene) -> None:
    obj, ik = _rig()
    before = _snapshot(obj)
    target = bpy.data.objects["T"]

    def delete(scene: bpy.types.Scene, *_args: object) -> None:
        if scene.frame_current == 5 and "T" in bpy.data.objects:
            bpy.data.objects.remove(target)

    bpy.app.handlers.frame_change_post.append(delete)
    try:
        with pytest.raises(RuntimeError, match=r"frame 5, nothing written: .*deleted"):
            bpy.ops.reach.bake()
    finally:
        bpy.app.handlers.frame_change_post.remove(delete)
    _assert_unchanged(obj, before, ik)


TIMER, ESC = types.SimpleNamespace(type="TIMER"), types.SimpleNamespace(type="ESC")


def test_modal_bake_cancelled_with_esc_restores_everything(
    clean_scene: bpy.types.Scene, extension: ModuleType
) -> None:
    obj, ik = _rig()
    before = _snapshot(obj)
    op, context = modal_operator(extension, obj)
    assert op.invoke(context, None) == {"RUNNING_MODAL"}
    for _ in range(10):
        assert op.modal(context, TIMER) == {"RUNNING_MODAL"}
    assert ik.mute  # muted while the bake runs
    assert op.modal(context, ESC) == {"CANCELLED"}
    assert "nothing written" in op.reports[-1][1]
    assert context.window_manager.timers == 0 and context.window_manager.progress[-1] == -1
    _assert_unchanged(obj, before, ik)


def test_modal_bake_failing_at_frame_k_restores_everything(
    clean_scene: bpy.types.Scene, extension: ModuleType, fail_at_solve: object
) -> None:
    obj, ik = _rig()
    before = _snapshot(obj)
    fail_at_solve(6, KeyError("missing"))
    op, context = modal_operator(extension, obj)
    assert op.invoke(context, None) == {"RUNNING_MODAL"}
    states = [op.modal(context, TIMER) for _ in range(6)]
    assert states == [{"RUNNING_MODAL"}] * 5 + [{"CANCELLED"}]
    kind, text = op.reports[-1]
    assert kind == {"ERROR"} and "frame 6, nothing written: KeyError" in text
    assert context.window_manager.timers == 0 and context.window_manager.progress[-1] == -1
    _assert_unchanged(obj, before, ik)


def test_successful_bake_keeps_unbaked_pose_edits(clean_scene: bpy.types.Scene) -> None:
    """Only the baked channels change; an un-keyed edit of another channel survives."""
    obj, ik = _rig()
    before = pose_of(obj)
    bpy.ops.reach.bake()
    assert not ik.mute and clean_scene.frame_current == 7
    b1 = obj.pose.bones["b1"]
    assert np.array_equal(np.array(b1.scale), before["b1"][-3:])
    assert not np.allclose(np.array(b1.rotation_quaternion), before["b1"][3:7])  # baked


def test_successful_bake_puts_back_unbaked_edits_its_frames_played_over(
    clean_scene: bpy.types.Scene,
) -> None:
    """An un-keyed edit of a keyed channel the bake does not key (b0's location): stepping
    the frames plays the channel's keys over the edit, so finishing must write it back."""
    obj, ik = _rig()
    b0 = obj.pose.bones["b0"]
    b0.location = (0.0, 0.0, 0.25)  # keyed at frame 3 with (0, 0, 0)
    before = pose_of(obj)
    run_op(bpy.ops.reach.bake)
    assert not ik.mute and clean_scene.frame_current == 7
    assert (obj.animation_data.action is not None) and any(
        f.data_path == 'pose.bones["b0"].location' for f in fcurves(obj)
    )
    assert np.array_equal(np.array(b0.location), before["b0"][:3])
    assert np.array_equal(np.array(obj.pose.bones["b1"].scale), before["b1"][-3:])


@pytest.mark.parametrize("target", TARGETS)
def test_esc_after_the_keys_are_written_restores_everything(
    clean_scene: bpy.types.Scene, extension: ModuleType, target: str
) -> None:
    """ESC while the bake measures the played-back frames (keys already written)."""
    for keyed in (True, False):
        load_empty_file()
        obj, ik = _rig(keyed)
        before = _snapshot(obj)
        op, context = modal_operator(extension, obj)
        op.target = target
        assert op.invoke(context, None) == {"RUNNING_MODAL"}
        for _ in range(FRAMES + 3):
            assert op.modal(context, TIMER) == {"RUNNING_MODAL"}
        assert op._job.n_keys > 0 and not ik.mute  # written, IK active: measuring playback
        assert op.modal(context, ESC) == {"CANCELLED"}
        _assert_unchanged(obj, before, ik)


@pytest.mark.parametrize("target", TARGETS)
def test_failure_while_measuring_restores_everything(
    clean_scene: bpy.types.Scene, extension: ModuleType, monkeypatch: pytest.MonkeyPatch,
    target: str,
) -> None:  # fmt: skip
    obj, ik = _rig()
    before = _snapshot(obj)
    bake = importlib.import_module(f"{extension.__name__}.bridge.bake.baking")
    error = ReferenceError("StructRNA of type Object has been removed")
    monkeypatch.setattr(bake, "measure", failing_on_call(bake.measure, 4, error))
    bulk = bake.BulkMeasure  # the batched path's measuring (a bake into a new strip takes it)
    monkeypatch.setattr(bulk, "read", failing_on_call(bulk.read, 4, error))
    with pytest.raises(RuntimeError, match="frame 4, nothing written: ReferenceError"):
        bpy.ops.reach.bake(target=target)
    _assert_unchanged(obj, before, ik)


def test_failure_before_the_bake_starts_is_reported_without_traceback(
    clean_scene: bpy.types.Scene, extension: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    obj, ik = _rig()
    before = _snapshot(obj)
    bake = importlib.import_module(f"{extension.__name__}.bridge.bake.baking")
    capture = failing_on_call(bake.SceneState.capture, 1, KeyError("pose"))
    monkeypatch.setattr(bake.SceneState, "capture", capture)
    with pytest.raises(RuntimeError, match="KeyError") as raised:
        bpy.ops.reach.bake()
    assert "Traceback" not in str(raised.value)
    _assert_unchanged(obj, before, ik)


def test_error_while_writing_into_an_empty_action_leaves_it_empty(
    clean_scene: bpy.types.Scene, extension: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An assigned action without keys keeps no layer, slot, group or F-curve of the bake."""
    obj, ik = _rig(keyed=False)
    action = bpy.data.actions.new("Empty")
    obj.animation_data_create().action = action

    def layout() -> tuple:
        ad = obj.animation_data
        if bpy.app.version < (4, 4, 0):
            return (ad.action, len(action.fcurves), len(action.groups))
        return (ad.action, ad.action_slot, len(action.layers), len(action.slots))

    before, layout_before = _snapshot(obj), layout()
    compat = extension.bridge.blender.compat
    monkeypatch.setattr(
        compat, "ensure_fcurve", failing_on_call(compat.ensure_fcurve, 3, OSError())
    )
    with pytest.raises(RuntimeError, match="nothing written: OSError"):
        bpy.ops.reach.bake()
    assert layout() == layout_before
    _assert_unchanged(obj, before, ik)


def test_target_renamed_mid_bake_is_followed(clean_scene: bpy.types.Scene) -> None:
    """Renaming is not an error: the bake keeps the target object it started with."""
    obj, ik = _rig(keyed=False)
    obj.pose.bones["b1"].scale = (1.0, 1.0, 1.0)  # pose scale is not modelled
    target = bpy.data.objects["T"]

    def rename(scene: bpy.types.Scene, *_args: object) -> None:
        if scene.frame_current == 5:
            target.name = "T.renamed"

    bpy.app.handlers.frame_change_pre.append(rename)
    try:
        run_op(bpy.ops.reach.bake)
    finally:
        bpy.app.handlers.frame_change_pre.remove(rename)
    assert target.name == "T.renamed"
    ik.mute = True  # the user's built-in IK overrides the baked keys on playback
    for frame in (1, 5, 20):
        clean_scene.frame_set(frame)
        assert np.linalg.norm(world_bone_tail(obj, "b2") - np.array(_circle(frame))) < 1e-4
