"""``bridge.session.rig_session.RigSession``: the one entry the operators use, called directly."""

from __future__ import annotations

import dataclasses
import importlib
from types import ModuleType

import bpy
import numpy as np
import pytest

from tests.blender.conftest import world_bone_tail
from tests.blender.reach_scenes import activate, add_constraint, add_empty, channel_set, make_chain


def _session(extension: ModuleType, obj: bpy.types.Object) -> object:
    module = importlib.import_module(f"{extension.__name__}.bridge.session.rig_session")
    context = bpy.context
    return module.RigSession(obj, obj.reach_ik, context.scene, context.view_layer)


def test_solve_frame_and_bake(clean_scene: bpy.types.Scene, extension: ModuleType) -> None:
    obj = make_chain()
    target = add_empty("T", (1.2, 0.3, 1.8))
    add_constraint(obj, "b2", target, "POSITION")
    session = _session(extension, obj)
    report = session.solve_frame()
    assert report.satisfied and report.passes == 0 and report.keys == 0
    assert np.linalg.norm(world_bone_tail(obj, "b2") - np.array(target.location)) < 1e-4
    target.location = (0.5, 1.0, 2.0)
    target.keyframe_insert("location", frame=1)
    target.location = (1.0, -1.0, 2.0)
    target.keyframe_insert("location", frame=5)
    baked = session.bake([1, 2, 3, 4, 5])
    assert baked.satisfied and baked.measured and baked.frames == (1, 2, 3, 4, 5)
    assert baked.n_keys > 0
    assert channel_set(obj)


def test_a_built_rig_is_fixed(clean_scene: bpy.types.Scene, extension: ModuleType) -> None:
    """A rig is built once: none of its fields can be assigned and its collections are
    read-only; only its pose (and its goals' targets) change between solves."""
    obj = make_chain()
    target = add_empty("T", (1.2, 0.3, 1.8))
    add_constraint(obj, "b2", target, "POSITION")
    session = _session(extension, obj)
    rig = session.rig
    fields = dataclasses.fields(rig)
    assert {f.name for f in fields} >= {"figure", "constraints", "solved", "length"}
    for f in fields:
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(rig, f.name, getattr(rig, f.name))
    with pytest.raises(TypeError):
        rig.solved["b1"] = rig.solved["b2"]  # type: ignore[index]
    for name in ("constraints", "bindings", "specs", "bones", "notes"):
        assert isinstance(getattr(rig, name), tuple), name
    assert session.solve_frame().satisfied  # nothing of the rig is assigned by a solve


def test_scene_errors_are_reach_errors(clean_scene: bpy.types.Scene, extension: ModuleType) -> None:
    obj = make_chain()
    rig = importlib.import_module(f"{extension.__name__}.bridge.rig.build")
    assert issubclass(rig.RigError, extension.solver.ReachError)
    with pytest.raises(rig.RigError, match="no enabled Reach constraints"):
        _session(extension, obj)


def test_list_edits_refuse_bad_input_and_change_nothing(clean_scene: bpy.types.Scene) -> None:
    obj = make_chain()
    activate(obj)
    with pytest.raises(RuntimeError, match="target object 'nope' not found"):
        bpy.ops.reach.constraint_add(bone="b2", target="nope")
    with pytest.raises(RuntimeError, match="bone 'b9' not found"):
        bpy.ops.reach.pin(bone="b9")
    assert bpy.ops.reach.convert_ik() == {"CANCELLED"}  # no built-in IK: a warning
    with pytest.raises(RuntimeError, match=r"poll\(\) Add a Reach constraint first"):
        bpy.ops.reach.constraint_move(direction="UP")  # nothing to move: greyed out
    assert len(obj.reach_ik.constraints) == 0 and set(bpy.data.objects.keys()) == {"Chain"}
