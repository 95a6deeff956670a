"""The bake summary tells the truth: residuals measured on the pose Blender plays back, what
overrides the baked channels on playback, and targets that cannot be baked (NaN, infinity)."""

from __future__ import annotations

import importlib
import math
import types
from types import ModuleType

import bpy
import numpy as np
import pytest

from tests.blender.bake_support import keyframes_of, modal_operator
from tests.blender.conftest import run_op, world_bone_tail
from tests.blender.reach_scenes import (
    activate,
    add_constraint,
    add_empty,
    last_report,
    make_chain,
    tolerance_of,
)

FRAMES = 12


def _circle(frame: int) -> tuple[float, float, float]:
    theta = 2.0 * math.pi * (frame - 1) / FRAMES
    return (1.2 * math.cos(theta), 1.2 * math.sin(theta), 2.5)


def _shot(n: int = 4, bone: str = "b2") -> tuple[bpy.types.Object, bpy.types.Object]:
    """An ``n``-bone chain whose ``bone`` follows a target around a circle."""
    obj = make_chain(n=n)
    target = add_empty("T", _circle(1))
    for frame in range(1, FRAMES + 1):
        target.location = _circle(frame)
        target.keyframe_insert("location", frame=frame)
    add_constraint(obj, bone, target, "POSITION")
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, FRAMES
    scene.frame_set(1)
    activate(obj)
    return obj, target


def _residual(obj: bpy.types.Object) -> tuple[float, bool]:
    [(distance, _angle, satisfied)] = last_report(obj).worst.values()
    return distance, satisfied


def test_summary_measures_what_blender_plays_back(clean_scene: bpy.types.Scene) -> None:
    """A Copy Rotation on a chain bone overrides the solve: the summary says the truth."""
    obj, _target = _shot()
    source = add_empty("source", (0.0, 0.0, 0.0), (0.9, 0.0, 0.0))
    con = obj.pose.bones["b1"].constraints.new("COPY_ROTATION")
    con.target = source
    run_op(bpy.ops.reach.bake)
    worst = 0.0
    for frame in range(1, FRAMES + 1):
        clean_scene.frame_set(frame)
        worst = max(worst, np.linalg.norm(world_bone_tail(obj, "b2") - np.array(_circle(frame))))
    distance, satisfied = _residual(obj)
    assert worst > 0.1  # the played-back pose misses
    assert not satisfied and not last_report(obj).satisfied
    text = last_report(obj).text()  # why: the reason diagnose.explain gives
    assert "the solve reached it" in text and "'Copy Rotation' that overrides the solve" in text
    assert distance == pytest.approx(worst, rel=1e-4)


def test_summary_of_a_clean_bake_is_measured_and_satisfied(clean_scene: bpy.types.Scene) -> None:
    obj, _target = _shot()
    run_op(bpy.ops.reach.bake)
    distance, satisfied = _residual(obj)
    assert satisfied and 0.0 <= distance < tolerance_of(obj)


def test_summary_names_what_overrides_the_baked_channels(
    clean_scene: bpy.types.Scene, capfd: pytest.CaptureFixture
) -> None:
    obj, _target = _shot()
    other = add_empty("other", (0.0, 3.0, 0.0))
    ik = obj.pose.bones["b3"].constraints.new("IK")  # b3 is not solved; its chain reaches b2
    ik.target, ik.chain_count = other, 2
    damped = obj.pose.bones["b0"].constraints.new("DAMPED_TRACK")
    damped.target = other
    driver = obj.driver_add('pose.bones["b1"].rotation_quaternion', 2).driver
    driver.expression = "0.1"
    muted = obj.pose.bones["b1"].constraints.new("IK")  # the user's muted IK: not reported
    muted.target, muted.mute = other, True
    capfd.readouterr()
    run_op(bpy.ops.reach.bake)
    out = capfd.readouterr().out
    assert "built-in IK 'IK' on bone 'b3' rotates bone 'b2' on playback" in out
    assert "bone 'b0' has a Damped Track constraint 'Damped Track'" in out
    assert 'a driver on pose.bones["b1"].rotation_quaternion[2] replaces its keys' in out
    assert "IK 'IK' on bone 'b1'" not in out
    assert "UNREACHED on playback; the solve reached it" in out
    assert not ik.mute and muted.mute


BAD_LOCATIONS = [float("nan"), float("inf"), -float("inf"), 1e30]


@pytest.mark.parametrize("value", BAD_LOCATIONS, ids=["nan", "inf", "-inf", "1e30"])
@pytest.mark.parametrize("bad_frame", [1, 7])
def test_target_at_infinity_or_nan_stops_the_bake(
    clean_scene: bpy.types.Scene, value: float, bad_frame: int
) -> None:
    obj, target = _shot()
    obj.pose.bones["b1"].keyframe_insert("rotation_quaternion", frame=3)
    target.location = (value, 0.0, 2.0)
    target.keyframe_insert("location", frame=bad_frame)
    clean_scene.frame_set(5)
    before = keyframes_of(obj)
    with pytest.raises(
        RuntimeError, match=rf"stopped at frame {bad_frame}, nothing written: .*'T'"
    ):
        bpy.ops.reach.bake()
    after = keyframes_of(obj)
    assert after.keys() == before.keys()
    for channel, data in before.items():
        for prop, values in data.items():
            assert np.array_equal(values, after[channel][prop]), (channel, prop)
    assert clean_scene.frame_current == 5


def test_bake_function_reports_progress(
    clean_scene: bpy.types.Scene, extension: ModuleType
) -> None:
    obj, _target = _shot()
    calls: list[tuple[int, int]] = []
    report = extension.bridge.bake.baking.bake(
        obj, obj.reach_ik, range(1, FRAMES + 1), "REPLACE", lambda i, n: calls.append((i, n)),
        scene=clean_scene, depsgraph=bpy.context.evaluated_depsgraph_get(),
    )  # fmt: skip
    assert calls == [(i, 2 * FRAMES) for i in range(1, 2 * FRAMES + 1)]  # solve, then measure
    assert report.measured and report.satisfied and report.n_keys == 12 * FRAMES
    assert report.worst.keys() == report.modelled.keys() == {obj.reach_ik.constraints[0].name}


def test_modal_bake_shows_progress_in_the_status_bar(
    clean_scene: bpy.types.Scene, extension: ModuleType
) -> None:
    obj, _target = _shot()
    op, context = modal_operator(extension, obj)
    assert op.invoke(context, None) == {"RUNNING_MODAL"}
    state = {"RUNNING_MODAL"}
    while state == {"RUNNING_MODAL"}:
        state = op.modal(context, types.SimpleNamespace(type="TIMER"))
    assert state == {"FINISHED"}
    status = context.workspace.status
    assert status[0] == "Reach bake: solving frame 1 (0/24); ESC cancels"
    assert "Reach bake: solving frame 7 (6/24); ESC cancels" in status
    assert "Reach bake: measuring frame 3 (14/24); ESC cancels" in status
    assert status[-1] is None  # cleared
    assert context.window_manager.progress == [0, *range(1, 25), -1]


def test_execute_shows_progress(clean_scene: bpy.types.Scene, extension: ModuleType) -> None:
    obj, _target = _shot()
    op, context = modal_operator(extension, obj)
    assert op.execute(context) == {"FINISHED"}
    assert context.window_manager.progress == [0, *range(1, 25), -1]


class _Clock:
    """A ``time`` module whose ``perf_counter`` advances 0.3 s per call: every solve runs
    out of its time budget after a few iterations, on any machine."""

    def __init__(self) -> None:
        self.now = 0.0

    def perf_counter(self) -> float:
        self.now += 0.3
        return self.now


def test_a_solve_that_hits_the_frame_time_limit_is_named(
    clean_scene: bpy.types.Scene, extension: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    obj, _target = _shot()
    clock = _Clock()
    for name in ("solve", "optimizer.minimize"):  # the solver's clocks (deadline checks)
        monkeypatch.setattr(importlib.import_module(f"{extension.__name__}.solver.{name}"),
                            "time", clock)  # fmt: skip
    run_op(bpy.ops.reach.bake, time_limit=1.0, batched=False)  # each frame's own budget
    report = last_report(obj)
    assert report.time_limited == tuple(range(1, FRAMES + 1))
    assert f"{FRAMES} frame(s) stopped at the time limit of 1 s per frame" in report.text()


@pytest.mark.parametrize(
    ("arguments", "named"),
    [
        ({"frames": ["one", "two"]}, "frames"),
        ({"frames": None}, "frames"),
        ({"frames": []}, "frame range is empty"),
        ({"mode": "MERGE"}, "mode"),
        ({"time_limit": float("nan")}, "time_limit"),
        ({"time_limit": 0.0}, "time_limit"),
        ({"time_limit": "1"}, "time_limit"),
    ],
)
def test_bad_bake_arguments_are_named_and_change_nothing(
    clean_scene: bpy.types.Scene, extension: ModuleType, arguments: dict, named: str
) -> None:
    obj, _target = _shot()
    clean_scene.frame_set(5)
    kwargs = {"frames": range(1, 4), "mode": "REPLACE", **arguments}
    bake = extension.bridge.bake.baking
    with pytest.raises(bake.BakeError, match=named):
        bake.bake(obj, obj.reach_ik, kwargs.pop("frames"), kwargs.pop("mode"), scene=clean_scene,
                  **kwargs)  # fmt: skip
    assert not keyframes_of(obj) and clean_scene.frame_current == 5
