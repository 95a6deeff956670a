"""A Solve of several armatures as one system runs modally, as a Solve of one armature does:
the first solve, then each correction pass over the whole join, one per timer step, with the
progress cursor and a status text naming the armatures and the pass; the pose it ends with is
that of the Solve in one go, bit for bit; ESC between steps puts every armature's pose back,
writes no key and returns CANCELLED (no undo step).

The scene: A's tip held on B's tip, and a Copy Rotation on A's tip bone the model does not
reproduce, so correction passes run (9 measured on bpy 5.0.1 and 4.2).
"""

from __future__ import annotations

import importlib
import types
from types import ModuleType

import bpy
import numpy as np
import pytest

from tests.blender.bake_support import FakeWindowManager, FakeWorkspace, operator_stand_in
from tests.blender.conftest import load_empty_file, run_op, world_bone_tail
from tests.blender.joined_support import copy_rotation_on_a, two_arms
from tests.blender.reach_scenes import keys_of, last_report, pose_of

TIMER, ESC = types.SimpleNamespace(type="TIMER"), types.SimpleNamespace(type="ESC")


def _scene() -> tuple[bpy.types.Object, bpy.types.Object]:
    """The two arms, A's tip bone turned a fifth of the way to an empty's rotation."""
    a, b = two_arms()
    copy_rotation_on_a(a)
    return a, b


def _operator(extension: ModuleType, a: bpy.types.Object) -> tuple[object, object]:
    """The Solve operator's methods on a stand-in (Solve & Key), and a fake context."""
    cls = extension.operators.solve_ops.REACH_OT_solve
    op = operator_stand_in(cls, insert_keys=True, all_selected=False, time_slice=0.0)
    context = types.SimpleNamespace(
        scene=bpy.context.scene, view_layer=bpy.context.view_layer, active_object=a,
        window=object(), workspace=FakeWorkspace(), window_manager=FakeWindowManager(),
    )  # fmt: skip
    return op, context


def test_a_joined_solve_run_modally_ends_with_the_pose_of_the_solve_in_one_go(
    clean_scene: bpy.types.Scene, extension: ModuleType
) -> None:
    a, b = _scene()
    op, context = _operator(extension, a)
    assert op.invoke(context, None) == {"RUNNING_MODAL"}
    states = []
    while not states or states[-1] == {"RUNNING_MODAL"}:
        states.append(op.modal(context, TIMER))
    assert states[-1] == {"FINISHED"}
    passes = last_report(a).passes
    assert passes > 0 and len(states) == passes + 2  # the first solve, each pass, the keys
    status = context.workspace.status
    assert status[0] == "Reach: solving 'A', 'B' as one system - first solve, ESC cancels"
    assert status[2] == "Reach: solving 'A', 'B' as one system - pass 2/12, ESC cancels"
    assert status[-1] is None and context.window_manager.timers == 0
    assert context.window_manager.progress[-1] == -1
    assert op.reports[0][1].startswith("Reach: 2 armatures solved as one system ('A', 'B')")
    assert "solved as one system with 'A'" in last_report(b).notes
    modal = {obj.name: (pose_of(obj), keys_of(obj)) for obj in (a, b)}

    load_empty_file()
    a, b = _scene()
    run_op(bpy.ops.reach.solve, insert_keys=True)
    assert last_report(a).passes == passes
    for obj in (a, b):
        pose, keyed = modal[obj.name]
        assert all(np.array_equal(pose[n], v) for n, v in pose_of(obj).items()), obj.name
        assert keyed.keys() == keys_of(obj).keys() and keyed, obj.name
        for channel, data in keys_of(obj).items():
            assert np.array_equal(keyed[channel], data), (obj.name, channel)


@pytest.mark.parametrize("steps", [1, 3])  # after the first solve; after two passes
def test_esc_puts_every_armatures_pose_back_with_no_key(
    clean_scene: bpy.types.Scene, extension: ModuleType, steps: int
) -> None:
    a, b = _scene()
    before = {obj.name: pose_of(obj) for obj in (a, b)}
    busy = importlib.import_module(f"{extension.__name__}.bridge.blender.busy_armatures")
    op, context = _operator(extension, a)
    assert op.invoke(context, None) == {"RUNNING_MODAL"}
    for _ in range(steps):
        assert op.modal(context, TIMER) == {"RUNNING_MODAL"}
    assert busy.is_busy(a) and busy.is_busy(b)
    moved = pose_of(a)
    assert any(not np.array_equal(before["A"][n], moved[n]) for n in moved)  # solved, written
    assert op.modal(context, ESC) == {"CANCELLED"}
    assert op.reports[-1] == ({"WARNING"}, "Solve cancelled: every armature's pose restored")
    assert context.window_manager.timers == 0 and context.workspace.status[-1] is None
    for obj in (a, b):
        after = pose_of(obj)
        assert all(np.array_equal(before[obj.name][n], after[n]) for n in after), obj.name
        assert keys_of(obj) == {}, obj.name
        assert not busy.is_busy(obj), obj.name
    run_op(bpy.ops.reach.solve)  # the next Solve reads the restored pose: as in one go
    bpy.context.view_layer.update()
    assert np.linalg.norm(world_bone_tail(a, "b1") - world_bone_tail(b, "b1")) < 0.01
    assert last_report(a).passes > 0


def test_a_member_the_join_refuses_cancels_the_modal_solve_naming_it(
    clean_scene: bpy.types.Scene, extension: ModuleType
) -> None:
    a, b = two_arms()
    b.scale = (-1.0, 1.0, 1.0)  # a mirror: B's space cannot hold A's
    bpy.context.view_layer.update()  # as Blender has before any event reaches the operator
    before = {obj.name: pose_of(obj) for obj in (a, b)}
    op, context = _operator(extension, a)
    assert op.invoke(context, None) == {"RUNNING_MODAL"}
    assert op.modal(context, TIMER) == {"CANCELLED"}
    kind, text = op.reports[-1]
    assert kind == {"ERROR"} and "Armature 'B' has a negative (mirroring) scale" in text
    assert context.window_manager.timers == 0 and context.workspace.status[-1] is None
    for obj in (a, b):
        after = pose_of(obj)
        assert all(np.array_equal(before[obj.name][n], after[n]) for n in after), obj.name
        assert keys_of(obj) == {}, obj.name
