"""The kept session on Rigify's generated rig: a move of an IK control never rebuilds it.

Defect: on the generated human (about 700 bones, drivers; Convert Built-in IK gives four
chains whose IK Stretch Reach solves) the session was rebuilt at every solve, so every live
update paid a full build: the key read the pose scale of the stretched bones, which the
solve itself writes.

The rig is generated once per module (Rigify takes seconds) and saved; every test opens its
own copy of that file.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import bpy
import numpy as np
import pytest

from tests.blender.conftest import enable_rigify, load_empty_file, run_op
from tests.blender.live_support import room_to_solve  # noqa: F401  (a 1 s live budget)
from tests.blender.reach_scenes import activate
from tests.blender.test_session_cache import _solve_as_built_from_scratch

#: The control a user drags, and the steps of its circle (radius 0.12, one turn in 120).
CONTROL = "hand_ik.L"
STEPS = range(1, 13)


@pytest.fixture(scope="module")
def generated_file(extension: ModuleType, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A .blend with Rigify's generated human, its built-in IK converted (``rig``)."""
    load_empty_file()
    enable_rigify()
    run_op(bpy.ops.object.armature_human_metarig_add)
    run_op(bpy.ops.pose.rigify_generate)
    rig = bpy.data.objects["rig"]
    for obj in bpy.context.view_layer.objects:
        obj.select_set(False)
    activate(rig)
    run_op(bpy.ops.reach.convert_ik)
    path = tmp_path_factory.mktemp("rigify") / "generated.blend"
    run_op(bpy.ops.wm.save_as_mainfile, filepath=str(path), copy=True)
    return path


@pytest.fixture
def generated_rig(generated_file: Path) -> Iterator[bpy.types.Object]:
    """A fresh copy of the generated, converted rig: active, object mode."""
    run_op(bpy.ops.wm.open_mainfile, filepath=str(generated_file))
    rig = bpy.data.objects["rig"]
    activate(rig)
    yield rig
    load_empty_file()


def _cache(extension: ModuleType) -> ModuleType:
    return importlib.import_module(f"{extension.__name__}.bridge.session.kept")


def _session(extension: ModuleType, rig: bpy.types.Object) -> object:
    context = bpy.context
    return _cache(extension).session_for(rig, rig.reach_ik, context.scene, context.view_layer)


def _move(rig: bpy.types.Object, centre: np.ndarray, step: float) -> None:
    """One step of a drag of the control around its circle."""
    angle = 2.0 * np.pi * step / 120
    offset = 0.12 * np.array([np.cos(angle) - 1.0, 0.0, np.sin(angle)])
    rig.pose.bones[CONTROL].location = (centre + offset).tolist()
    bpy.context.view_layer.update()


def test_kept_session_follows_the_moved_control(
    generated_rig: bpy.types.Object, extension: ModuleType
) -> None:
    """Solve after each move: the same session every time, every hand and foot reached, and
    the pose the one a session built from scratch writes."""
    rig = generated_rig
    kept = _session(extension, rig)
    assert kept.solve_frame().satisfied
    stretched = [name for name, info in kept.rig.solved.items() if info.writes_scale]
    assert stretched, "the converted chains keep Rigify's IK Stretch"
    centre = np.array(rig.pose.bones[CONTROL].location)
    for step in STEPS:
        _move(rig, centre, step)
        session = _session(extension, rig)
        assert session is kept, f"rebuilt at step {step}"
        report = session.solve_frame()
        assert report.satisfied, report.text()
    _move(rig, centre, STEPS[-1] + 1)
    assert _solve_as_built_from_scratch(extension, rig) is kept


def test_live_posing_keeps_the_session_while_the_control_is_dragged(
    generated_rig: bpy.types.Object, extension: ModuleType
) -> None:
    """Live on, the control dragged: one session for the whole drag, every hand and foot
    reached after every update."""
    rig = generated_rig
    rig.reach_ik.live = True
    bpy.context.view_layer.update()  # after opening the file: the pose is taken as it is
    centre = np.array(rig.pose.bones[CONTROL].location)
    _move(rig, centre, 0.5)  # the first live solve builds the session
    kept = _cache(extension)._SESSIONS[rig.session_uid].session
    results = importlib.import_module(f"{extension.__name__}.bridge.session.last_report")
    live = importlib.import_module(f"{extension.__name__}.bridge.live.posing")
    solves = live.state_of(rig).solves
    for step in STEPS:
        _move(rig, centre, step)
        assert _cache(extension)._SESSIONS[rig.session_uid].session is kept, step
        assert results.last(rig).satisfied, results.last(rig).text()
    assert live.state_of(rig).solves == solves + len(STEPS)
