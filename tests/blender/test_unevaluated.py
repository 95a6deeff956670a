"""Targets and armatures Blender does not evaluate (disabled in viewports, in an excluded or
disabled collection): Solve, Solve & Key and Bake follow such a target's animation, as
Blender's own IK does; live posing refuses it; an armature Blender does not evaluate is
refused by name before anything is written.

Before: a bake keyed the target's frame-1 position at every frame and reported "satisfied,
1.3e-7" (2.29 units off the target at frame 20); a Solve at frame 20 reached the stale
position; an armature disabled in viewports got "Blender moves the bones away from the solved
pose" (MISSED 1.87) although the model was right.
"""

from __future__ import annotations

import importlib
import types
from types import ModuleType

import bpy
import numpy as np
import pytest

from tests.blender.bake_support import modal_operator
from tests.blender.conftest import run_op, world_bone_tail
from tests.blender.reach_scenes import (
    activate,
    add_constraint,
    add_empty,
    assert_unchanged,
    fcurves,
    last_report,
    make_chain,
    scene_state,
)

#: The target's keys: frame -> location.
KEYS = {1: (1.5, 0.0, 1.5), 20: (-1.5, 0.5, 2.0)}
#: The ways Blender leaves an object out of the view layer's evaluation.
HIDDEN = ("DISABLED", "EXCLUDED", "COLLECTION_DISABLED")
#: Hidden with the eye (the object's or its collection's): Blender still evaluates it.
EYE = ("EYE", "COLLECTION_EYE")
REACHED = 1e-4  # scene units: tolerance 1e-5 plus float32 evaluation
TIMER, ESC = types.SimpleNamespace(type="TIMER"), types.SimpleNamespace(type="ESC")


def _leave_out(obj: bpy.types.Object, how: str) -> None:
    """Hide ``obj`` ``how``: one of :data:`HIDDEN` (Blender then stops evaluating it) or of
    :data:`EYE` (Blender still evaluates it)."""
    if how == "DISABLED":
        obj.hide_viewport = True
    elif how == "EYE":
        obj.hide_set(True)
    else:
        collection = bpy.data.collections.new(f"{obj.name} hidden")
        bpy.context.scene.collection.children.link(collection)
        for owner in list(obj.users_collection):
            owner.objects.unlink(obj)
        collection.objects.link(obj)
        layer = bpy.context.view_layer.layer_collection.children[collection.name]
        if how == "EXCLUDED":
            layer.exclude = True
        elif how == "COLLECTION_EYE":
            layer.hide_viewport = True
        else:
            collection.hide_viewport = True
    bpy.context.view_layer.update()
    assert not obj.visible_get()


def _chain_and_target() -> tuple[bpy.types.Object, bpy.types.Object]:
    """A 3-bone chain and an empty keyed at :data:`KEYS` (frames 1..20)."""
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, 20
    obj = make_chain()
    target = add_empty("T", KEYS[1])
    for frame, location in KEYS.items():
        target.location = location
        target.keyframe_insert("location", frame=frame)
    return obj, target


def _scene(hide_target: str | None) -> tuple[bpy.types.Object, bpy.types.Object]:
    """:func:`_chain_and_target`, its tail reaching for the target, at frame 1, the target
    then left out of the evaluation ``hide_target`` (None: not)."""
    obj, target = _chain_and_target()
    add_constraint(obj, "b2", target, "POSITION")
    bpy.context.scene.frame_set(1)
    if hide_target is not None:
        _leave_out(target, hide_target)
    activate(obj)
    return obj, target


def _animated(target: bpy.types.Object, frame: int) -> np.ndarray:
    """Where the target's keys put it at ``frame`` (its F-curves evaluated), (3,)."""
    location = np.zeros(3)
    for fcurve in fcurves(target):
        location[fcurve.array_index] = fcurve.evaluate(frame)
    return location


def _miss(obj: bpy.types.Object, target: bpy.types.Object, frame: int) -> float:
    return float(np.linalg.norm(world_bone_tail(obj, "b2") - _animated(target, frame)))


@pytest.mark.parametrize("how", HIDDEN)
def test_bake_follows_a_target_blender_does_not_evaluate(
    clean_scene: bpy.types.Scene, how: str
) -> None:
    obj, target = _scene(how)
    run_op(bpy.ops.reach.bake)
    for frame in (1, 7, 14, 20):  # the keys follow the target's animation
        clean_scene.frame_set(frame)
        assert _miss(obj, target, frame) < REACHED, frame
    report = last_report(obj)
    assert report.satisfied, report.text()
    assert any(note.startswith("target 'T' is not evaluated by Blender") for note in report.notes)
    assert len(obj.constraints) == 0  # what made Blender evaluate the target is gone


@pytest.mark.parametrize("insert_keys", [False, True])
@pytest.mark.parametrize("how", HIDDEN)
def test_solve_follows_a_target_blender_does_not_evaluate(
    clean_scene: bpy.types.Scene, how: str, insert_keys: bool
) -> None:
    obj, target = _scene(how)
    clean_scene.frame_set(20)  # the target is not evaluated: it stays at its frame-1 place
    run_op(bpy.ops.reach.solve, insert_keys=insert_keys)
    report = last_report(obj)
    assert report.satisfied, report.text()
    bpy.context.view_layer.update()
    miss = _miss(obj, target, 20)
    assert miss < REACHED
    assert abs(report.constraints[0].measured.distance - miss) < 1e-6  # measured where it is
    assert len(obj.constraints) == 0
    if insert_keys:  # the key holds the pose at the target's frame-20 place
        for pb in obj.pose.bones:
            pb.rotation_quaternion = (1.0, 0.0, 0.0, 0.0)
        clean_scene.frame_set(19)
        clean_scene.frame_set(20)
        assert _miss(obj, target, 20) < REACHED


def test_a_modal_bake_cancelled_midway_removes_what_it_added(
    clean_scene: bpy.types.Scene, extension: ModuleType
) -> None:
    """The muted constraint that makes Blender evaluate the target lasts as long as the
    bake: ESC between two frames leaves the armature as it was."""
    obj, _target = _scene("DISABLED")
    before = scene_state(obj)
    op, context = modal_operator(extension, obj)
    assert op.invoke(context, None) == {"RUNNING_MODAL"}
    for _ in range(5):
        assert op.modal(context, TIMER) == {"RUNNING_MODAL"}
    assert [c.mute for c in obj.constraints] == [True]  # held while the bake runs
    assert op.modal(context, ESC) == {"CANCELLED"}
    assert len(obj.constraints) == 0
    assert_unchanged(before, scene_state(obj))


def test_frame_change_evaluation_refuses_a_target_blender_does_not_evaluate(
    clean_scene: bpy.types.Scene, extension: ModuleType
) -> None:
    """Live posing cannot change what Blender evaluates from its handlers: it stops and says
    why instead of posing to the target's stale place."""
    obj, _target = _scene("DISABLED")
    live = importlib.import_module(f"{extension.__name__}.bridge.live.posing")
    obj.reach_ik.evaluate_on_frame_change = True
    clean_scene.frame_set(20)
    assert not obj.reach_ik.evaluate_on_frame_change
    assert (
        "Constraint 'b2 Position': target 'T' is not evaluated by Blender (it is disabled in "
        "viewports)" in live.live_error(obj)
    )
    assert len(obj.constraints) == 0


@pytest.mark.parametrize("how", EYE)
def test_a_target_hidden_with_the_eye_is_taken_as_it_is(
    clean_scene: bpy.types.Scene, extension: ModuleType, how: str
) -> None:
    """Blender evaluates an object hidden with the eye: nothing to follow or refuse."""
    obj, target = _scene(how)
    run_op(bpy.ops.reach.bake)
    report = last_report(obj)
    assert report.satisfied and not report.notes, report.text()
    live = importlib.import_module(f"{extension.__name__}.bridge.live.posing")
    obj.reach_ik.evaluate_on_frame_change = True
    for frame in (20, 7):
        clean_scene.frame_set(frame)
        assert obj.reach_ik.evaluate_on_frame_change and live.live_error(obj) == ""
        assert _miss(obj, target, frame) < REACHED


@pytest.mark.parametrize("how", ["DISABLED", "COLLECTION_DISABLED"])
def test_an_armature_blender_does_not_evaluate_is_refused(
    clean_scene: bpy.types.Scene, how: str
) -> None:
    obj, _target = _scene(None)
    _leave_out(obj, how)
    activate(obj)
    before = scene_state(obj)
    why = "it is disabled in viewports" if how == "DISABLED" else "a collection holding it"
    for op in (bpy.ops.reach.solve, bpy.ops.reach.bake, bpy.ops.reach.envelope):
        with pytest.raises(
            RuntimeError, match=f"Armature 'Chain' is not evaluated by Blender: {why}"
        ):
            op()
    assert_unchanged(before, scene_state(obj))
    assert len(obj.constraints) == 0


def test_what_blender_itself_evaluates(empty_file: bpy.types.Scene) -> None:
    """The facts :mod:`bridge.solve.unevaluated` rests on, in Blender alone: its IK follows a target
    disabled in viewports (so Reach should too); a muted constraint is enough to have the
    target evaluated and moves nothing; a custom property pointing at it is not (the target
    gets an evaluated copy that never animates, so ``is_evaluated`` cannot tell)."""
    obj, target = _chain_and_target()
    obj["target"] = target  # as a Reach constraint's target is stored
    empty_file.frame_set(1)
    _leave_out(target, "DISABLED")
    empty_file.frame_set(20)
    depsgraph = bpy.context.evaluated_depsgraph_get()
    assert target.evaluated_get(depsgraph).is_evaluated
    assert np.allclose(target.matrix_world.translation, KEYS[1])  # never animated
    ik = obj.pose.bones["b2"].constraints.new("IK")
    ik.target = target
    bpy.context.view_layer.update()
    for frame in (7, 20):
        empty_file.frame_set(frame)
        assert _miss(obj, target, frame) < 1e-3  # Blender's IK follows the animation
    ik.mute = True
    empty_file.frame_set(7)
    assert np.allclose(target.matrix_world.translation, _animated(target, 7), atol=1e-6)
    assert np.allclose(world_bone_tail(obj, "b2"), (0.0, 0.0, 3.0), atol=1e-6)  # at rest
