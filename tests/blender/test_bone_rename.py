"""Renaming a bone keeps the Reach constraints that name it working.

Blender renames bones in its own constraints and F-curves, not in an extension's properties;
Reach follows renames itself (``bridge.edit.renames``), in pose/object mode, in edit mode and after
the file is saved and opened again.
"""

from __future__ import annotations

from pathlib import Path

import bpy
import numpy as np
import pytest

from tests.blender.conftest import load_empty_file, run_op, world_bone_tail
from tests.blender.reach_scenes import activate, add_constraint, add_empty, make_chain


def rig_with_constraints() -> tuple[bpy.types.Object, bpy.types.Object]:
    """A chain whose b2 reaches an empty (chain root b0) and a second armature whose
    constraint targets the chain's bone b1; returns ``(chain, other)``."""
    chain = make_chain("Chain")
    target = add_empty("T", (0.8, 0.2, 2.3))
    add_constraint(chain, "b2", target, "POSITION", chain_mode="ROOT", chain_root="b0")
    other = make_chain("Other", n=2)
    other.location = (2.0, 0.0, 0.0)
    add_constraint(other, "b1", chain, "POSITION", target_bone="b1")
    bpy.context.view_layer.update()
    return chain, other


def rename(armature: bpy.types.Armature, names: dict[str, str]) -> None:
    """Rename bones the way the UI does (Bone.name), then let the depsgraph update run."""
    for old, new in names.items():
        armature.bones[old].name = new
    bpy.context.view_layer.update()


def test_renamed_bones_are_followed_by_bone_chain_root_and_target_bone(
    clean_scene: bpy.types.Scene,
) -> None:
    chain, other = rig_with_constraints()
    rename(chain.data, {"b2": "hand", "b0": "shoulder", "b1": "forearm"})
    item = chain.reach_ik.constraints[0]
    assert (item.bone, item.chain_root) == ("hand", "shoulder")
    assert other.reach_ik.constraints[0].target_bone == "forearm"
    activate(chain)
    run_op(bpy.ops.reach.solve)
    target = np.array(bpy.data.objects["T"].matrix_world.translation)
    np.testing.assert_allclose(world_bone_tail(chain, "hand"), target, atol=1e-4)


def test_swapped_names_are_followed(clean_scene: bpy.types.Scene) -> None:
    chain, _ = rig_with_constraints()
    armature = chain.data
    armature.bones["b2"].name = "tmp"
    armature.bones["b0"].name = "b2"
    armature.bones["tmp"].name = "b0"
    bpy.context.view_layer.update()  # one update sees b0 <-> b2 swapped
    item = chain.reach_ik.constraints[0]
    assert (item.bone, item.chain_root) == ("b0", "b2")


def test_renames_in_edit_mode_are_followed_on_leaving_it(clean_scene: bpy.types.Scene) -> None:
    chain, _ = rig_with_constraints()
    activate(chain)
    bpy.ops.object.mode_set(mode="EDIT")
    chain.data.edit_bones["b2"].name = "hand"
    bpy.ops.object.mode_set(mode="OBJECT")
    bpy.context.view_layer.update()
    assert chain.reach_ik.constraints[0].bone == "hand"


def test_renames_after_reopening_the_file_are_followed(
    clean_scene: bpy.types.Scene, tmp_path: Path
) -> None:
    rig_with_constraints()
    path = tmp_path / "renames.blend"
    bpy.ops.wm.save_as_mainfile(filepath=str(path))
    load_empty_file()
    bpy.ops.wm.open_mainfile(filepath=str(path))
    chain = bpy.data.objects["Chain"]
    rename(chain.data, {"b2": "hand"})
    assert chain.reach_ik.constraints[0].bone == "hand"


def test_added_bones_are_not_taken_for_renames(clean_scene: bpy.types.Scene) -> None:
    chain, _ = rig_with_constraints()
    activate(chain)
    bpy.ops.object.mode_set(mode="EDIT")
    extra = chain.data.edit_bones.new("extra")
    extra.tail = (0.0, 1.0, 0.0)
    chain.data.edit_bones["b2"].name = "hand"
    bpy.ops.object.mode_set(mode="OBJECT")
    bpy.context.view_layer.update()
    item = chain.reach_ik.constraints[0]
    assert item.bone == "b2"  # not guessed; the solve names the missing bone
    activate(chain)
    with pytest.raises(RuntimeError, match="bone 'b2' not found"):
        bpy.ops.reach.solve()
