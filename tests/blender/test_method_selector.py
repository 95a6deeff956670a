"""The solve method in Blender: every registered method offered and used by Solve, a bake's
own method, and files saved before the setting was named *Method* (``hessian``)."""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType

import bpy
import numpy as np
import pytest

from solver.methods import METHODS  # the checkout's registry: the installed zip is built from it
from tests.blender.conftest import run_op, world_bone_tail
from tests.blender.reach_scenes import (
    activate,
    add_constraint,
    add_empty,
    last_report,
    make_chain,
    tolerance_of,
)

#: Methods that must reach the easy target below (the projected optimiser's two strategies).
PROJECTED = ("gauss-newton-hybrid", "bfgs")
TARGET = (1.2, 0.3, 1.8)  # within reach of the 3-bone chain's b2 tail


def _methods(extension: ModuleType) -> tuple[str, ...]:
    return importlib.import_module(f"{extension.__name__}.solver.methods").METHODS


def _enum_ids(rna: bpy.types.Struct, name: str) -> list[str]:
    return [item.identifier for item in rna.properties[name].enum_items]


def _chain() -> tuple[bpy.types.Object, bpy.types.Object]:
    obj = make_chain()
    target = add_empty("T", TARGET)
    add_constraint(obj, "b2", target, "POSITION")
    return obj, target


def _miss(obj: bpy.types.Object, target: bpy.types.Object) -> float:
    bpy.context.view_layer.update()
    return float(np.linalg.norm(world_bone_tail(obj, "b2") - np.array(target.location)))


def test_every_registered_method_is_offered(
    clean_scene: bpy.types.Scene, extension: ModuleType
) -> None:
    methods = list(_methods(extension))
    assert methods == list(METHODS)
    obj = make_chain()
    assert _enum_ids(obj.reach_ik.bl_rna, "method") == methods
    bake_rna = bpy.ops.reach.bake.get_rna_type()
    assert _enum_ids(bake_rna, "method") == ["ARMATURE", *methods]
    prefs = importlib.import_module(f"{extension.__name__}.props.preferences").preferences()
    assert _enum_ids(prefs.bl_rna, "method") == methods
    labels = {
        item.identifier: item.name for item in obj.reach_ik.bl_rna.properties["method"].enum_items
    }
    assert all(labels[name] != name for name in methods), labels  # each has its own label


@pytest.mark.parametrize("method", METHODS)
def test_solve_uses_the_armature_method_and_reports_truthfully(
    clean_scene: bpy.types.Scene, method: str
) -> None:
    obj, target = _chain()
    obj.reach_ik.method = method
    activate(obj)
    run_op(bpy.ops.reach.solve)
    report = last_report(obj)
    miss = _miss(obj, target)
    [outcome] = report.constraints
    assert report.method == method and f"method {method}" in report.text()
    assert abs(outcome.measured.distance - miss) < 1e-6
    assert report.satisfied == (miss <= tolerance_of(obj) * (1 + 1e-6))
    if method in PROJECTED:
        assert report.satisfied, report.text()


@pytest.mark.parametrize("method", METHODS)
def test_bake_method_is_used_for_that_bake_only(clean_scene: bpy.types.Scene, method: str) -> None:
    obj, target = _chain()
    obj.reach_ik.method = "bfgs" if method == "gauss-newton-hybrid" else "gauss-newton-hybrid"
    armature_method = obj.reach_ik.method
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, 3
    for frame, x in ((1, 1.2), (3, 0.9)):
        target.location.x = x
        target.keyframe_insert("location", index=0, frame=frame)
    activate(obj)
    run_op(bpy.ops.reach.bake, method=method)
    report = last_report(obj)
    assert report.method == method and f"method {method}" in report.text()
    assert obj.reach_ik.method == armature_method  # the setting is left as it was
    run_op(bpy.ops.reach.bake)  # the next bake: the armature's method again
    assert last_report(obj).method == armature_method


def test_bake_of_an_unknown_method_is_refused(clean_scene: bpy.types.Scene) -> None:
    obj, _target = _chain()
    activate(obj)
    with pytest.raises(TypeError, match="not found in"):
        bpy.ops.reach.bake(method="no-such-method")


def test_old_hessian_setting_is_migrated_on_load(
    clean_scene: bpy.types.Scene, extension: ModuleType, tmp_path: Path
) -> None:
    old, kept = make_chain("Old"), make_chain("Kept")
    old.reach_ik["hessian"] = 1  # what a file saved before the rename holds: bfgs
    kept.reach_ik["hessian"] = 0
    kept.reach_ik.method = "bfgs"  # set after the rename: it wins
    path = str(tmp_path / "old.blend")
    run_op(bpy.ops.wm.save_as_mainfile, filepath=path)
    run_op(bpy.ops.wm.open_mainfile, filepath=path)
    old, kept = bpy.data.objects["Old"], bpy.data.objects["Kept"]
    for obj in (old, kept):
        assert "hessian" not in obj.reach_ik and obj.reach_ik.method == "bfgs"
    migration = importlib.import_module(f"{extension.__name__}.operators.method_migration")
    assert migration.migrate(bpy.data.objects) == []  # idempotent
    handlers = [h for h in bpy.app.handlers.load_post if h.__name__ == "migrate_loaded"]
    assert len(handlers) == 1
