"""Solve shows Blender's progress cursor while it blocks the UI (the bake's progress and ESC
are tested in ``test_bake_restore.py``), on success and on failure alike."""

from __future__ import annotations

import types
from types import ModuleType

import bpy

from tests.blender.bake_support import FakeWindowManager
from tests.blender.reach_scenes import add_constraint, add_empty, make_chain


def _solve(extension: ModuleType, obj: bpy.types.Object) -> tuple[set[str], FakeWindowManager]:
    """Run the Solve operator's execute with a window manager that records progress calls."""
    cls = extension.operators.solve_ops.REACH_OT_solve
    fake = types.SimpleNamespace(insert_keys=False, all_selected=False, reports=[])
    fake.report = lambda kind, text: fake.reports.append((kind, text))
    wm = FakeWindowManager()
    context = types.SimpleNamespace(
        scene=bpy.context.scene, view_layer=bpy.context.view_layer, active_object=obj,
        window_manager=wm,
    )  # fmt: skip
    return cls.execute(fake, context), wm


def test_solve_begins_and_ends_progress(
    clean_scene: bpy.types.Scene, extension: ModuleType
) -> None:
    obj = make_chain()
    add_constraint(obj, "b2", add_empty("T", (1.0, 0.0, 2.0)), "POSITION")
    result, wm = _solve(extension, obj)
    assert result == {"FINISHED"} and wm.progress == [0, 1, -1]
    item = obj.reach_ik.constraints[0]
    item.bone = "missing"  # the solve fails: the progress still ends
    result, wm = _solve(extension, obj)
    assert result == {"CANCELLED"} and wm.progress == [0, 1, -1]
