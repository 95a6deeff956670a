"""Live posing (``Object.reach_ik.live``): the handler re-poses the rig when its inputs change.

Every test drives Blender as a user or a script would: set the switch, move a target or a
bone, let Blender update the view layer, and read the evaluated pose.
"""

from __future__ import annotations

import importlib
from types import ModuleType

import bpy
import numpy as np
import pytest

from tests.blender.conftest import run_op, select_pose_bones, world_bone_tail
from tests.blender.live_support import (  # noqa: F401  (room_to_solve: an autouse fixture)
    TOLERANCE,
    finish,
    live_chain,
    live_module,
    miss,
    room_to_solve,
)
from tests.blender.panel_draw import Recorder, draw_panels
from tests.blender.reach_scenes import activate, add_constraint, add_empty, keys_of, make_chain


def test_moving_a_target_reposes_the_rig(
    clean_scene: bpy.types.Scene, extension: ModuleType
) -> None:
    obj, target, live = live_chain(extension)
    assert miss(obj, target) < TOLERANCE
    for location in ((0.5, 1.0, 2.0), (-1.0, 0.2, 2.2), (0.0, -1.5, 1.0)):
        solves = live.state_of(obj).solves
        target.location = location
        bpy.context.view_layer.update()
        finish(extension, obj)
        assert live.state_of(obj).solves > solves
        assert miss(obj, target) < TOLERANCE, location
    assert not live.state_of(obj).error


def test_an_armature_without_live_before_a_live_one_does_not_stop_its_solves(
    clean_scene: bpy.types.Scene, extension: ModuleType
) -> None:
    """The handler returns at once only when no armature of the view layer is live: one
    that is not live, listed first, neither stops the live one nor is solved itself."""
    idle = make_chain("Idle")
    idle_target = add_empty("Idle target", (1.0, 0.5, 1.5))
    add_constraint(idle, "b2", idle_target, "POSITION")
    obj, target, live = live_chain(extension)
    objects = list(bpy.context.view_layer.objects)
    assert objects.index(idle) < objects.index(obj)
    idle_pose = [tuple(pb.rotation_quaternion) for pb in idle.pose.bones]
    solves = live.state_of(obj).solves
    target.location = (0.5, 1.0, 2.0)
    idle_target.location = (0.0, 1.0, 2.0)
    bpy.context.view_layer.update()
    finish(extension, obj)
    assert live.state_of(obj).solves > solves
    assert miss(obj, target) < TOLERANCE
    assert [tuple(pb.rotation_quaternion) for pb in idle.pose.bones] == idle_pose
    assert live.state_of(idle).solves == 0


def test_one_solve_per_update_and_none_without_a_change(
    clean_scene: bpy.types.Scene, extension: ModuleType
) -> None:
    obj, target, live = live_chain(extension)
    state = live.state_of(obj)
    solves = state.solves
    target.location = (0.5, 1.0, 1.2)
    bpy.context.view_layer.update()
    assert state.solves == solves + 1  # writing the pose started no second solve
    bpy.context.view_layer.update()  # nothing tagged: no update at all
    other = add_empty("Unrelated", (3.0, 0.0, 0.0))
    other.location.x = 4.0  # an update that does not touch the rig's inputs
    bpy.context.view_layer.update()
    activate(obj)
    run_op(bpy.ops.object.mode_set, mode="POSE")
    select_pose_bones(obj, ["b1"], active="b1")  # the armature updates, its inputs do not
    bpy.context.view_layer.update()
    assert state.solves == solves + 1
    obj.pose.bones["b0"].rotation_quaternion = (0.9, 0.3, 0.0, 0.0)  # a bone moved by hand
    bpy.context.view_layer.update()
    assert state.solves == solves + 2 and miss(obj, target) < TOLERANCE
    obj.reach_ik.constraints[0].effector = "HEAD"  # a Reach setting edited
    obj.update_tag()  # what a panel edit does (from Python, only properties with an update)
    bpy.context.view_layer.update()
    assert state.solves == solves + 3
    head = np.array(obj.matrix_world @ obj.pose.bones["b2"].head)
    assert np.linalg.norm(head - np.array(target.location)) < TOLERANCE


def test_an_error_is_reported_once_and_switches_live_off(
    clean_scene: bpy.types.Scene, extension: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    obj, target, live = live_chain(extension)
    state = live.state_of(obj)
    solves = state.solves
    obj.reach_ik.constraints[0].bone = "no such bone"
    obj.update_tag()
    bpy.context.view_layer.update()
    assert not obj.reach_ik.live
    assert "Live switched off for 'Chain'" in state.error and "no such bone" in state.error
    for location in ((0.5, 1.0, 2.0), (0.1, 1.0, 2.0)):
        target.location = location
        bpy.context.view_layer.update()
    assert state.solves == solves
    assert capsys.readouterr().out.count("Live switched off") == 1
    activate(obj)
    assert ("label", state.error) in draw_panels(extension)  # shown in the panel
    header: list = []
    panel = importlib.import_module(f"{extension.__name__}.panels.reach_panel").REACH_PT_main
    panel.draw_header(type("FakePanel", (), {"layout": Recorder(header)})(), bpy.context)
    assert header == [("prop", "live")]  # the switch, to turn it back on


def test_an_error_while_checking_the_inputs_switches_off_too(
    clean_scene: bpy.types.Scene,
    extension: ModuleType,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    obj, target, live = live_chain(extension)
    obj.reach_ik.evaluate_on_frame_change = True

    def broken(*_args: object) -> None:
        raise RuntimeError("unreadable input")

    monkeypatch.setattr(live, "fingerprint", broken)
    for location in ((0.5, 1.0, 2.0), (0.1, 1.0, 2.0)):
        target.location = location
        bpy.context.view_layer.update()
    bpy.context.scene.frame_set(2)
    bpy.context.scene.frame_set(3)
    assert not obj.reach_ik.live and not obj.reach_ik.evaluate_on_frame_change
    out = capsys.readouterr().out
    assert out.count("Live switched off for 'Chain': unreadable input") == 1
    assert out.count("Evaluate on Frame Change switched off for 'Chain'") == 1


def test_live_waits_for_a_first_constraint(
    clean_scene: bpy.types.Scene, extension: ModuleType
) -> None:
    obj = make_chain()
    obj.reach_ik.live = True
    bpy.context.view_layer.update()
    state = live_module(extension).state_of(obj)
    assert obj.reach_ik.live and not state.error and state.solves == 0  # nothing to solve
    target = add_empty("T", (1.2, 0.3, 1.8))
    add_constraint(obj, "b2", target, "POSITION")
    obj.update_tag()
    bpy.context.view_layer.update()
    finish(extension, obj)
    assert state.solves == 1 and miss(obj, target) < TOLERANCE


def test_a_solve_stopped_early_writes_the_best_pose_and_continues(
    clean_scene: bpy.types.Scene, extension: ModuleType
) -> None:
    obj, target, live = live_chain(extension)
    state = live.state_of(obj)
    obj.reach_ik.max_iterations = 1  # every solve stops after one iteration, on any machine
    tail = world_bone_tail(obj, "b2")  # on the target
    target.location = (-1.0, 1.2, 1.5)
    before = float(np.linalg.norm(tail - np.array(target.location)))
    bpy.context.view_layer.update()
    misses = [miss(obj, target)]
    assert state.unfinished and TOLERANCE < misses[0] < before  # the best pose so far
    handlers = importlib.import_module(f"{extension.__name__}.operators.live_handlers")
    assert bpy.app.timers.is_registered(handlers.resume)  # it goes on without another edit
    for _ in range(60):
        if not state.unfinished:
            break
        live.resume_unfinished([obj], bpy.context.scene, bpy.context.view_layer, None)
        misses.append(miss(obj, target))
    assert not state.unfinished and misses[-1] < TOLERANCE, misses
    assert len(misses) > 2


def test_a_budget_too_short_to_move_grows_then_waits_for_the_next_edit(
    clean_scene: bpy.types.Scene, extension: ModuleType
) -> None:
    obj, target, live = live_chain(extension)
    state = live.state_of(obj)
    context = bpy.context
    scene, view_layer = context.scene, context.view_layer
    tiny = 1e-12  # the deadline has passed before the first step, even at 64 times
    solves = state.solves
    target.location = (-1.0, 1.2, 1.5)
    view_layer.update()  # the add-on's handler: a 1 s budget (the fixture), solved
    assert state.solves == solves + 1 and miss(obj, target) < TOLERANCE
    target.location = (-1.0, 1.2, 1.6)
    target.matrix_world.translation = target.location  # moved, without an update
    live.solve_now(obj, scene, view_layer, None, live.LIVE, tiny)
    assert state.solves == solves + 2 and state.unfinished and state.budget_scale == 2
    while state.unfinished:
        live.resume_unfinished([obj], scene, view_layer, None, tiny)
    assert state.solves == solves + 8  # budgets 1, 2, 4, ... 64 times: then it gives up
    assert miss(obj, target) > TOLERANCE and state.budget_scale == 1
    target.location = (-1.0, 1.2, 1.7)
    view_layer.update()
    finish(extension, obj)
    assert miss(obj, target) < TOLERANCE


def test_solve_and_bake_with_live_on_run_no_live_solve(
    clean_scene: bpy.types.Scene, extension: ModuleType
) -> None:
    obj, target, live = live_chain(extension)
    state = live.state_of(obj)
    target.keyframe_insert("location", frame=1)
    target.location = (0.0, 1.0, 2.0)
    target.keyframe_insert("location", frame=3)
    bpy.context.scene.frame_set(1)
    finish(extension, obj)
    solves = state.solves
    activate(obj)
    run_op(bpy.ops.reach.solve)
    bpy.context.view_layer.update()
    run_op(bpy.ops.reach.bake, use_scene_range=False, frame_start=1, frame_end=3)
    bpy.context.view_layer.update()
    assert state.solves == solves and obj.reach_ik.live
    baked = keys_of(obj)
    obj.reach_ik.live = False
    run_op(bpy.ops.reach.bake, use_scene_range=False, frame_start=1, frame_end=3)
    assert keys_of(obj).keys() == baked.keys()
    for channel, values in baked.items():
        assert np.array_equal(keys_of(obj)[channel], values), channel
