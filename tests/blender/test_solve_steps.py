"""A Solve in steps (``bridge.solve.frame_solve.FrameSolve``) and the modal Solve operator: ESC
between steps restores the pose (and writes no key), the status bar says which step runs.

Background Blender (the ``bpy`` wheel) has no window and no event loop, so the modal path is
driven by calling the operator's own ``invoke`` and ``modal`` with stand-in TIMER and ESC
event objects and a context whose window manager and workspace record the calls (the same way
the modal bake is tested in ``test_bake_restore.py``).
"""

from __future__ import annotations

import importlib
import types
from types import ModuleType

import bpy
import numpy as np
import pytest

from tests.blender.bake_support import (
    FakeWindowManager,
    FakeWorkspace,
    keyframes_of,
    operator_stand_in,
)
from tests.blender.reach_scenes import activate, add_constraint, add_empty, make_chain

TIMER, ESC = types.SimpleNamespace(type="TIMER"), types.SimpleNamespace(type="ESC")
POSE_PROPERTIES = ("location", "rotation_quaternion", "rotation_euler", "rotation_axis_angle",
                   "scale")  # fmt: skip


def _rig() -> bpy.types.Object:
    """A 3-bone chain whose middle bone has a half-influence Copy Rotation the model does not
    reproduce: the first solve misses on Blender's pose, so correction passes run."""
    obj = make_chain(connected=False)
    con = obj.pose.bones["b1"].constraints.new("COPY_ROTATION")
    con.target = add_empty("source", (0.4, -0.3, 1.2), (0.3, -0.5, 0.8))
    con.influence = 0.5
    add_constraint(obj, "b2", add_empty("T", (1.1, 0.4, 1.9)), "POSITION")
    obj.pose.bones["b0"].rotation_quaternion = (0.98, 0.1, -0.15, 0.05)  # a start off rest
    activate(obj)
    bpy.context.view_layer.update()
    return obj


def _pose(obj: bpy.types.Object) -> dict[tuple[str, str], np.ndarray]:
    return {
        (pb.name, prop): np.array(getattr(pb, prop), dtype=np.float32)
        for pb in obj.pose.bones
        for prop in POSE_PROPERTIES
    }


def _set_pose(obj: bpy.types.Object, pose: dict[tuple[str, str], np.ndarray]) -> None:
    for (name, prop), values in pose.items():
        setattr(obj.pose.bones[name], prop, values)
    bpy.context.view_layer.update()


def _assert_same_pose(a: dict, b: dict) -> None:
    assert a.keys() == b.keys()
    for key in a:
        assert np.array_equal(a[key], b[key]), (key, a[key], b[key])


def _assert_same_keys(a: dict, b: dict) -> None:
    """Every keyframe property of every F-curve equal, bit for bit."""
    assert a.keys() == b.keys()
    for channel, data in b.items():
        for prop, values in data.items():
            assert np.array_equal(a[channel][prop], values), (channel, prop)


def _session(extension: ModuleType, obj: bpy.types.Object) -> object:
    module = importlib.import_module(f"{extension.__name__}.bridge.session.rig_session")
    context = bpy.context
    return module.RigSession(obj, obj.reach_ik, context.scene, context.view_layer)


def _figures(report: object) -> tuple:
    """Every figure of a frame report but the solver's seconds (a wall time)."""
    return (
        report.status, report.satisfied, report.passes, report.iterations, report.dof,
        report.bones, report.keys, report.notes,
        tuple((c.measured.distance, c.measured.angle, c.modelled_distance, c.modelled_angle,
               c.reason, c.satisfied) for c in report.constraints),
    )  # fmt: skip


def test_steps_driven_to_the_end_equal_solve_frame(
    clean_scene: bpy.types.Scene, extension: ModuleType
) -> None:
    obj = _rig()
    start = _pose(obj)
    one_call = _session(extension, obj).solve_frame(True, 1)
    solved = _pose(obj)
    keys = keyframes_of(obj)
    assert one_call.passes > 0 and one_call.keys > 0  # a case with steps to split
    obj.animation_data_clear()  # first: an update would play the keys into the pose
    _set_pose(obj, start)
    job = _session(extension, obj).frame_solve(True, 1)
    steps = 0
    while not job.step():
        steps += 1
        assert obj.animation_data is None  # no key before the last step
    assert steps + 1 == one_call.passes + 1  # the first solve, then one step per pass
    assert _figures(job.report) == _figures(one_call)
    _assert_same_pose(_pose(obj), solved)
    _assert_same_keys(keyframes_of(obj), keys)


def test_cancel_after_the_first_step_restores_the_pose_bit_for_bit(
    clean_scene: bpy.types.Scene, extension: ModuleType
) -> None:
    obj = _rig()
    start = _pose(obj)
    session = _session(extension, obj)
    busy = importlib.import_module(f"{extension.__name__}.bridge.blender.busy_armatures")
    job = session.frame_solve()
    assert not job.step() and busy.is_busy(obj)  # the first solve ran; passes follow
    assert any(not np.array_equal(v, start[k]) for k, v in _pose(obj).items())
    job.cancel()
    assert not busy.is_busy(obj)
    _assert_same_pose(_pose(obj), start)
    with pytest.raises(extension.solver.InvalidInputError, match="was cancelled"):
        job.step()  # a cancelled solve stays cancelled
    # The session re-reads the restored pose: a Solve afterwards is the one from the start.
    report = session.solve_frame()
    solved = _pose(obj)
    _set_pose(obj, start)
    assert _figures(_session(extension, obj).solve_frame()) == _figures(report)
    _assert_same_pose(_pose(obj), solved)


def test_cancel_restores_channels_edited_while_the_solve_ran(
    clean_scene: bpy.types.Scene, extension: ModuleType
) -> None:
    """Cancel puts back every channel that differs from the recorded pose, also one the
    solve never writes (a bone's scale, the location of a bone it does not translate) that
    was edited between two steps of a modal Solve."""
    obj = _rig()
    start = _pose(obj)
    job = _session(extension, obj).frame_solve()
    assert not job.step()
    obj.pose.bones["b1"].scale = (1.3, 0.9, 1.1)
    obj.pose.bones["b2"].location = (0.1, 0.0, -0.2)
    job.cancel()
    _assert_same_pose(_pose(obj), start)


def _modal_solve(
    extension: ModuleType, obj: bpy.types.Object, insert_keys: bool
) -> tuple[object, object]:
    """The Solve operator's methods bound to a plain object, and a recording context."""
    cls = extension.operators.solve_ops.REACH_OT_solve
    fake = operator_stand_in(cls, insert_keys=insert_keys, all_selected=False)
    context = types.SimpleNamespace(
        scene=bpy.context.scene, view_layer=bpy.context.view_layer, active_object=obj,
        window=object(), workspace=FakeWorkspace(), window_manager=FakeWindowManager(),
    )  # fmt: skip
    return fake, context


def test_esc_cancels_solve_and_key(clean_scene: bpy.types.Scene, extension: ModuleType) -> None:
    """ESC after the first step of a Solve & Key: pose and keys exactly as before, the
    status bar cleared, the timer removed, no undo step (CANCELLED)."""
    obj = _rig()
    pb = obj.pose.bones["b1"]
    pb.keyframe_insert("rotation_quaternion", frame=1)  # keys the Solve & Key would overwrite
    pb.keyframe_insert("rotation_quaternion", frame=7)
    bpy.context.scene.frame_set(1)
    start, keys = _pose(obj), keyframes_of(obj)
    op, context = _modal_solve(extension, obj, insert_keys=True)
    assert op.invoke(context, None) == {"RUNNING_MODAL"}
    assert op.modal(context, TIMER) == {"RUNNING_MODAL"}  # the first solve
    assert any(not np.array_equal(v, start[k]) for k, v in _pose(obj).items())
    assert op.modal(context, types.SimpleNamespace(type="MOUSEMOVE")) == {"PASS_THROUGH"}
    assert op.modal(context, ESC) == {"CANCELLED"}
    assert op.reports == [({"WARNING"}, "Solve cancelled: pose restored")]
    _assert_same_pose(_pose(obj), start)
    _assert_same_keys(keyframes_of(obj), keys)
    status = context.workspace.status
    assert status == [
        "Reach: solving 'Chain' - first solve, ESC cancels",
        "Reach: solving 'Chain' - pass 1/12, ESC cancels",
        None,
    ]
    wm = context.window_manager
    assert wm.timers == 0 and wm.progress == [0, 1, -1]


def test_modal_solve_to_the_end_reports_and_clears_status(
    clean_scene: bpy.types.Scene, extension: ModuleType
) -> None:
    obj = _rig()
    op, context = _modal_solve(extension, obj, insert_keys=False)
    assert op.invoke(context, None) == {"RUNNING_MODAL"}
    states = [op.modal(context, TIMER)]
    while states[-1] == {"RUNNING_MODAL"}:
        states.append(op.modal(context, TIMER))
    assert states[-1] == {"FINISHED"}  # the one undo step of the Solve
    report = op._job.report
    assert len(states) == report.passes + 1
    status = context.workspace.status
    assert status[0] == "Reach: solving 'Chain' - first solve, ESC cancels"
    assert status[1:-1] == [
        f"Reach: solving 'Chain' - pass {k}/12, ESC cancels" for k in range(1, report.passes + 1)
    ]
    assert status[-1] is None and context.window_manager.timers == 0
    assert op.reports == [({"INFO"} if report.satisfied else {"WARNING"}, report.text())]


def test_modal_solve_error_restores_and_clears_status(
    clean_scene: bpy.types.Scene, extension: ModuleType
) -> None:
    obj = _rig()
    start = _pose(obj)
    op, context = _modal_solve(extension, obj, insert_keys=False)
    assert op.invoke(context, None) == {"RUNNING_MODAL"}
    bpy.data.objects.remove(bpy.data.objects["T"])  # the target goes before the first step
    assert op.modal(context, TIMER) == {"CANCELLED"}
    [(kind, text)] = op.reports
    assert kind == {"ERROR"} and text.startswith("Reach: ")
    _assert_same_pose(_pose(obj), start)
    assert context.workspace.status[-1] is None and context.window_manager.timers == 0


def test_without_a_window_invoke_solves_in_one_go(
    clean_scene: bpy.types.Scene, extension: ModuleType
) -> None:
    obj = _rig()
    op, context = _modal_solve(extension, obj, insert_keys=False)
    context.window = None
    assert op.invoke(context, None) == {"FINISHED"}
    assert op._job is None and context.workspace.status == []


def test_no_second_job_while_a_modal_solve_runs(
    clean_scene: bpy.types.Scene, extension: ModuleType
) -> None:
    """Between two steps of a modal Solve, Solve, Bake and the list edits are greyed out with
    the reason (a second job would interleave with the first on the same rig)."""
    obj = _rig()
    op, context = _modal_solve(extension, obj, insert_keys=False)
    assert op.invoke(context, None) == {"RUNNING_MODAL"}
    assert op.modal(context, TIMER) == {"RUNNING_MODAL"}
    for operator in (bpy.ops.reach.solve, bpy.ops.reach.bake, bpy.ops.reach.constraint_remove):
        assert not operator.poll()
    with pytest.raises(RuntimeError, match="Reach is solving or baking this armature now"):
        bpy.ops.reach.solve()
    assert op.modal(context, ESC) == {"CANCELLED"}
    assert bpy.ops.reach.solve.poll() and bpy.ops.reach.bake.poll()


def test_a_solve_without_a_recorded_pose_cannot_be_cancelled(
    clean_scene: bpy.types.Scene, extension: ModuleType
) -> None:
    """``solve_frame`` records no pose (it never cancels); cancelling such a solve says why."""
    obj = _rig()
    module = importlib.import_module(f"{extension.__name__}.bridge.solve.frame_solve")
    job = module.FrameSolve(_session(extension, obj), restorable=False)
    assert not job.step()
    with pytest.raises(extension.solver.InvalidInputError, match="restorable=False"):
        job.cancel()
    assert job.run().passes > 0  # the solve itself goes on
