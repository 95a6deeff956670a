"""Linked and library-overridden characters, the way studios animate them.

Each test writes a library .blend (an armature with one Reach constraint and its target) to
``tmp_path``, links it into an empty file and either leaves it linked (every editing operator
must refuse, naming the armature and the fix, before writing anything) or makes a library
override of its collection (Add, Solve, Solve & Key and Bake work and survive save + reload).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import bpy
import numpy as np
import pytest

from tests.blender.conftest import load_empty_file, run_op, world_bone_tail
from tests.blender.reach_scenes import (
    activate,
    add_constraint,
    add_empty,
    channel_set,
    make_chain,
    pose_of,
)

RIG, TARGET, COLLECTION = "Rig", "Hand Target", "Character"


def write_library(path: Path) -> None:
    """Save a library with collection ``Character``: a 3-bone chain, one constraint, a target."""
    obj = make_chain(RIG)
    target = add_empty(TARGET, (0.8, 0.3, 2.2))
    add_constraint(obj, "b2", target, "POSITION")
    collection = bpy.data.collections.new(COLLECTION)
    for item in (obj, target):
        collection.objects.link(item)
        bpy.context.scene.collection.objects.unlink(item)
    bpy.context.scene.collection.children.link(collection)
    bpy.data.libraries.write(str(path), {collection}, fake_user=True)


def link_library(path: Path) -> bpy.types.Collection:
    """Link collection ``Character`` from ``path`` into the scene (no override)."""
    with bpy.data.libraries.load(str(path), link=True) as (_source, linked):
        linked.collections = [COLLECTION]
    collection = linked.collections[0]
    assert collection is not None and collection.library is not None
    for obj in collection.objects:  # the objects, linked as they are, in the scene
        bpy.context.scene.collection.objects.link(obj)
    bpy.context.view_layer.update()
    return collection


@pytest.fixture
def library(clean_scene: bpy.types.Scene, tmp_path: Path) -> Path:
    """Path of the library .blend; the open file is empty again afterwards."""
    path = tmp_path / "character.blend"
    write_library(path)
    load_empty_file()
    return path


@pytest.fixture
def linked_rig(library: Path) -> bpy.types.Object:
    """The library's armature, linked without override, active (it cannot enter pose mode)."""
    link_library(library)
    obj = bpy.data.objects[RIG]
    assert obj.library is not None and obj.override_library is None
    activate(obj)
    return obj


def overridden_rig(library: Path, editable: bool = True) -> bpy.types.Object:
    """A library override of the linked collection; returns the armature's override.

    ``editable=False`` leaves every override a system override (Blender keeps those locked).
    """
    collection = link_library(library)
    for obj in list(bpy.context.scene.collection.objects):
        bpy.context.scene.collection.objects.unlink(obj)
    override = collection.override_hierarchy_create(
        bpy.context.scene, bpy.context.view_layer, do_fully_editable=editable
    )
    assert override is not None
    bpy.context.view_layer.update()
    obj = next(o for o in override.objects if o.type == "ARMATURE")
    assert obj.library is None and obj.override_library is not None
    assert obj.override_library.is_system_override is not editable
    activate(obj)
    return obj


def scene_state(obj: bpy.types.Object) -> tuple:
    """Everything an editing operator could write: pose, constraints, objects, actions."""
    return (
        {name: tuple(values) for name, values in pose_of(obj).items()},
        len(obj.reach_ik.constraints),
        sorted(o.name for o in bpy.data.objects),
        sorted(a.name for a in bpy.data.actions),
        obj.animation_data is not None and obj.animation_data.action is not None,
        bpy.context.scene.frame_current,
    )


EDITING_OPERATORS: dict[str, Callable[[], object]] = {
    "solve": lambda: bpy.ops.reach.solve(),
    "solve and key": lambda: bpy.ops.reach.solve(insert_keys=True),
    "add constraint": lambda: bpy.ops.reach.constraint_add(bone="b1", target=TARGET),
    "remove constraint": lambda: bpy.ops.reach.constraint_remove(),
    "move constraint": lambda: bpy.ops.reach.constraint_move(direction="DOWN"),
    "pin": lambda: bpy.ops.reach.pin(bone="b1"),
    "convert built-in IK": lambda: bpy.ops.reach.convert_ik(),
    "bake": lambda: bpy.ops.reach.bake(),
    "clear keys": lambda: bpy.ops.reach.clear_keys(),
}


@pytest.mark.parametrize("operator", EDITING_OPERATORS, ids=list(EDITING_OPERATORS))
def test_linked_rig_without_override_refuses_every_editing_operator(
    linked_rig: bpy.types.Object, operator: str
) -> None:
    before = scene_state(linked_rig)
    with pytest.raises(RuntimeError, match=rf"'{RIG}' is linked from .*character\.blend"):
        EDITING_OPERATORS[operator]()
    assert scene_state(linked_rig) == before


def test_overridden_rig_solves_adds_and_bakes_and_survives_reload(
    library: Path, tmp_path: Path
) -> None:
    obj = overridden_rig(library)
    target = bpy.data.objects[TARGET]
    assert len(obj.reach_ik.constraints) == 1  # from the library
    # A second constraint added on the override, then a solve and a bake of frames 1-3.
    elbow = add_empty("Elbow Target", (0.5, 0.0, 1.0))
    add_constraint(obj, "b1", elbow, "HALF_SPACE", target_axis="X")
    assert len(obj.reach_ik.constraints) == 2
    obj.reach_ik.tolerance = 1e-5
    activate(obj)
    run_op(bpy.ops.reach.solve)
    tail = world_bone_tail(obj, "b2")
    np.testing.assert_allclose(tail, np.array(target.matrix_world.translation), atol=1e-4)
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, 3
    run_op(bpy.ops.reach.bake)
    keyed = channel_set(obj)
    assert ('pose.bones["b2"].rotation_quaternion', 0) in keyed
    pose = pose_of(obj)

    path = tmp_path / "shot.blend"
    bpy.ops.wm.save_as_mainfile(filepath=str(path))
    load_empty_file()
    bpy.ops.wm.open_mainfile(filepath=str(path))
    obj = bpy.data.objects[RIG, None]  # the local override, not the linked original
    assert obj.override_library is not None
    items = obj.reach_ik.constraints
    assert [(c.bone, c.goal_type) for c in items] == [("b2", "POSITION"), ("b1", "HALF_SPACE")]
    assert items[1].target.name == "Elbow Target" and items[1].target_axis == "X"
    assert channel_set(obj) == keyed
    for name, values in pose_of(obj).items():
        np.testing.assert_allclose(values, pose[name], atol=1e-6)
    activate(obj)
    run_op(bpy.ops.reach.solve)  # still solvable after reload


def test_system_override_is_refused_with_the_way_out(library: Path) -> None:
    obj = overridden_rig(library, editable=False)
    before = scene_state(obj)
    with pytest.raises(RuntimeError, match=rf"'{RIG}' is a system library override.*Make Editable"):
        bpy.ops.reach.solve()
    assert scene_state(obj) == before
