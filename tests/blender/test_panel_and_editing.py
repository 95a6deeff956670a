"""The sidebar panel's draw code, and the list-editing operators (add, remove, move, pin,
convert built-in IK), in real Blender."""

from __future__ import annotations

import math
from types import ModuleType

import bpy
import numpy as np
import pytest

from tests.blender.conftest import run_op, world_bone_matrix, world_bone_tail
from tests.blender.panel_draw import Recorder, draw_panels
from tests.blender.reach_scenes import activate, add_constraint, add_empty, make_chain

TIP = 1e-4


def test_panel_draws_every_section(clean_scene: bpy.types.Scene, extension: ModuleType) -> None:
    obj = make_chain()
    target = add_empty("T", (1.0, 0.5, 2.0))
    for goal in ("POSITION", "AIM", "LINE", "POSITION_ORIENTATION"):
        add_constraint(obj, "b2", target, goal)
    obj.data.bones.active = obj.data.bones["b1"]
    log = draw_panels(extension)
    assert ("label", "Not solved yet") in log
    run_op(bpy.ops.reach.solve)
    obj.reach_ik.active_index = 1
    log = draw_panels(extension)
    assert ("prop", "aim_axis") in log and ("list", "constraints") in log
    assert ("prop", "use_rigidity") in log
    labels = [text for kind, text in log if kind == "label"]
    for item in obj.reach_ik.constraints:  # one residual line per constraint
        assert sum(text.startswith(f"{item.name}: ") for text in labels) == 1, item.name


def test_panel_draws_a_bake_report(clean_scene: bpy.types.Scene, extension: ModuleType) -> None:
    obj = make_chain()
    add_constraint(obj, "b2", add_empty("T", (1.0, 0.5, 2.0)), "POSITION")
    clean_scene.frame_start, clean_scene.frame_end = 1, 3
    run_op(bpy.ops.reach.bake)
    labels = [text for kind, text in draw_panels(extension) if kind == "label"]
    assert "Baked 3 frames: every goal reached (measured on Blender's pose)" in labels
    assert sum(text.startswith("b2 Position: ") for text in labels) == 1
    assert len(obj.reach_ik.residuals) == 0  # the result is runtime state, not ID data


def test_list_rows_draw(clean_scene: bpy.types.Scene, extension: ModuleType) -> None:
    obj = make_chain()
    item = add_constraint(obj, "b2", add_empty("T", (1.0, 0.0, 2.0)), "HALF_SPACE")
    log: list = []
    ui_list = extension.panels.reach_panel.REACH_UL_constraints
    # Blender calls draw_item with every argument, flt_flag included.
    ui_list.draw_item(None, bpy.context, Recorder(log), obj.reach_ik, item, 0, obj.reach_ik,
                      "active_index", 0, 0)  # fmt: skip
    assert ("prop", "enabled") in log and ("label", "Half Space") in log


def test_add_remove_move(clean_scene: bpy.types.Scene) -> None:
    obj = make_chain()
    target = add_empty("T", (1.0, 0.5, 2.0))
    activate(obj)
    obj.data.bones.active = obj.data.bones["b2"]
    target.select_set(True)
    run_op(bpy.ops.reach.constraint_add)  # active bone -> selected object
    items = obj.reach_ik.constraints
    assert items[0].bone == "b2" and items[0].target == target
    target.select_set(False)
    run_op(bpy.ops.reach.constraint_add, bone="b1", goal_type="AIM")  # nothing selected
    new_empty = items[1].target
    assert new_empty is not None and new_empty.type == "EMPTY" and new_empty != target
    assert np.allclose(np.array(new_empty.matrix_world.translation), world_bone_tail(obj, "b1"),
                       atol=1e-6)  # fmt: skip
    rotation = np.array(new_empty.matrix_world.to_3x3())  # the bone's orientation, too
    assert np.allclose(rotation, world_bone_matrix(obj, "b1")[:3, :3], atol=1e-6)
    names = [c.name for c in items]
    run_op(bpy.ops.reach.constraint_move, direction="UP")
    assert [c.name for c in items] == names[::-1] and obj.reach_ik.active_index == 0
    run_op(bpy.ops.reach.constraint_remove)
    assert [c.name for c in items] == [names[0]]


def test_adding_with_the_default_chain_says_what_it_moves(
    clean_scene: bpy.types.Scene, capfd: pytest.CaptureFixture
) -> None:
    """All Ancestors moves every bone above the effector (on a character: the hips for a
    hand): the add operator's report says so and how to limit it; a chain limited another
    way, or a root bone, gets no such note."""
    obj = make_chain(n=4)
    target = add_empty("T", (1.0, 0.5, 2.0))
    activate(obj)
    capfd.readouterr()
    run_op(bpy.ops.reach.constraint_add, bone="b3", target=target.name)
    out = capfd.readouterr().out
    assert "it moves all 3 bone(s) above 'b3', up to 'b0'" in out, out
    assert "Chain: Root Bone or Length limits that" in out
    run_op(bpy.ops.reach.constraint_add, bone="b0", target=target.name)
    assert "bone(s) above" not in capfd.readouterr().out


def test_pin_holds_a_bone_where_it_was(clean_scene: bpy.types.Scene) -> None:
    obj = make_chain(n=4)
    obj.pose.bones["b1"].rotation_quaternion = (math.cos(0.3), math.sin(0.3), 0.0, 0.0)
    bpy.context.view_layer.update()
    activate(obj)
    run_op(bpy.ops.reach.pin, bone="b1")
    held = world_bone_matrix(obj, "b1")
    target = add_empty("T", (1.0, 0.5, 2.5))
    add_constraint(obj, "b3", target, "POSITION", chain_mode="ROOT", chain_root="b0")
    run_op(bpy.ops.reach.solve)
    bpy.context.view_layer.update()
    assert np.allclose(world_bone_matrix(obj, "b1"), held, atol=1e-4)
    assert np.linalg.norm(world_bone_tail(obj, "b3") - np.array(target.location)) < TIP


def test_convert_builtin_ik(clean_scene: bpy.types.Scene) -> None:
    obj = make_chain()
    target = add_empty("T", (1.0, 0.5, 2.0), (0.2, 0.3, 0.1))
    ik = obj.pose.bones["b2"].constraints.new("IK")
    ik.target = target
    ik.chain_count = 2
    ik.use_rotation = True
    ik.weight = 0.8
    activate(obj)
    run_op(bpy.ops.reach.convert_ik)
    assert ik.mute
    (item,) = obj.reach_ik.constraints
    assert item.bone == "b2" and item.target == target and item.effector == "TAIL"
    assert item.goal_type == "POSITION_ORIENTATION"
    assert item.chain_mode == "LENGTH" and item.chain_length == 2
    assert math.isclose(item.weight, 0.8, rel_tol=1e-6)
    item.goal_type = "POSITION"
    run_op(bpy.ops.reach.solve)
    bpy.context.view_layer.update()
    assert np.linalg.norm(world_bone_tail(obj, "b2") - np.array(target.location)) < TIP
    assert np.allclose(obj.pose.bones["b0"].rotation_quaternion, (1, 0, 0, 0))
