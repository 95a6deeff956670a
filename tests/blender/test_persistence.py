"""Reach settings are ID data: they survive saving and reloading the .blend file."""

from __future__ import annotations

from pathlib import Path

import bpy
import pytest

from tests.blender.conftest import run_op
from tests.blender.reach_scenes import activate, add_constraint, add_empty, make_chain


def test_settings_survive_save_and_reload(clean_scene: bpy.types.Scene, tmp_path: Path) -> None:
    obj = make_chain()
    target = add_empty("T", (1.0, 0.5, 2.0))
    add_constraint(obj, "b2", target, "LINE", target_axis="-X", weight=2.5, group="g",
                   chain_mode="LENGTH", chain_length=2, degrees=3.0)  # fmt: skip
    add_constraint(obj, "b1", obj, "POSITION", target_bone="b0", target_head_tail=0.25)
    obj.reach_ik.tolerance = 1e-4
    obj.reach_ik.max_iterations = 77
    obj.reach_ik.method = "bfgs"
    obj.reach_ik.use_root_translation = True
    bone = obj.pose.bones["b1"].reach_ik
    bone.use_rigidity, bone.rigidity = True, (0.1, 0.2, 0.3)
    activate(obj)
    run_op(bpy.ops.reach.solve)
    path = tmp_path / "reach.blend"
    bpy.ops.wm.save_as_mainfile(filepath=str(path))
    bpy.ops.wm.read_homefile(use_empty=True)
    assert "Chain" not in bpy.data.objects
    bpy.ops.wm.open_mainfile(filepath=str(path))
    obj = bpy.data.objects["Chain"]
    settings = obj.reach_ik
    first, second = settings.constraints
    assert (first.bone, first.goal_type, first.target.name) == ("b2", "LINE", "T")
    assert (first.target_axis, first.group, first.chain_mode) == ("-X", "g", "LENGTH")
    assert first.weight == pytest.approx(2.5) and first.degrees == pytest.approx(3.0)
    assert first.chain_length == 2
    assert (second.target, second.target_bone) == (obj, "b0")
    assert second.target_head_tail == pytest.approx(0.25)
    assert settings.tolerance == pytest.approx(1e-4) and settings.max_iterations == 77
    assert settings.method == "bfgs" and settings.use_root_translation
    assert len(settings.residuals) == 0  # solve results are runtime state, never saved
    bone = obj.pose.bones["b1"].reach_ik
    assert bone.use_rigidity and tuple(bone.rigidity) == pytest.approx((0.1, 0.2, 0.3))
    bpy.context.view_layer.objects.active = obj
    run_op(bpy.ops.reach.solve)  # still solvable after reload
