"""Live posing's auto keying with *Only Active Keying Set*: the keying set decides, as it
does after a transform (a real ``transform.rotate`` on 5.0 is the reference)."""

from __future__ import annotations

from collections.abc import Iterator
from types import ModuleType

import bpy
import pytest

from tests.blender.live_support import (  # noqa: F401  (room_to_solve: an autouse fixture)
    live_chain,
    room_to_solve,
    rotate_by_transform,
)
from tests.blender.reach_scenes import fcurves

ROTATION = 'pose.bones["{}"].rotation_quaternion'
LOCATION = 'pose.bones["{}"].location'
BONES = ("b0", "b1", "b2")


@pytest.fixture
def keying() -> Iterator[bpy.types.ToolSettings]:
    """*Only Active Keying Set* on (auto keying is switched on once the live chain is
    solved); both off afterwards."""
    tool = bpy.context.scene.tool_settings
    tool.use_keyframe_insert_keyingset = True
    yield tool
    tool.use_keyframe_insert_auto = tool.use_keyframe_insert_keyingset = False


def _activate_builtin(idname: str) -> bpy.types.KeyingSet:
    keying_sets = bpy.context.scene.keying_sets_all
    keying_set = next(k for k in keying_sets if k.bl_idname == idname)
    keying_sets.active = keying_set
    assert keying_sets.active == keying_set
    return keying_set


def _keyed(obj: bpy.types.Object) -> dict[tuple[str, int], str]:
    """(data path, index) -> group name of every F-curve with a key."""
    return {
        (f.data_path, f.array_index): f.group.name if f.group is not None else ""
        for f in fcurves(obj)
        if len(f.keyframe_points)
    }


def _move_target(extension: ModuleType) -> tuple[bpy.types.Object, bpy.types.Object]:
    obj, target, live = live_chain(extension)
    bpy.context.scene.tool_settings.use_keyframe_insert_auto = True
    solves = live.state_of(obj).solves
    target.location = (0.5, 1.0, 2.0)
    bpy.context.view_layer.update()
    assert live.state_of(obj).solves == solves + 1
    return obj, target


def test_relative_keying_set_keys_its_channels_of_each_solved_bone(
    clean_scene: bpy.types.Scene, extension: ModuleType, keying: bpy.types.ToolSettings
) -> None:
    bpy.context.scene.frame_set(5)
    _activate_builtin("BUILTIN_KSI_LocRot")  # "Location & Rotation"
    obj, _target = _move_target(extension)
    # Location too (the solve moves only rotations): the keying set decides, not the change.
    expected = {(LOCATION.format(b), i): b for b in BONES for i in range(3)}
    expected |= {(ROTATION.format(b), i): b for b in BONES for i in range(4)}
    assert _keyed(obj) == expected
    assert all(len(f.keyframe_points) == 1 and f.keyframe_points[0].co[0] == 5.0
               for f in fcurves(obj))  # fmt: skip
    if bpy.app.version >= (5, 0, 0):  # bpy 4.2 crashes in transform.rotate in background
        assert _keyed(rotate_by_transform()) == {
            path: group for path, group in expected.items() if group == "b1"
        }


def test_absolute_keying_set_keys_its_paths(
    clean_scene: bpy.types.Scene, extension: ModuleType, keying: bpy.types.ToolSettings
) -> None:
    obj, target, live = live_chain(extension)
    scene = bpy.context.scene
    keying_set = scene.keying_sets.new(idname="ReachTest", name="Hand Set")
    keying_set.paths.add(obj, ROTATION.format("b1"), index=-1, group_method="NAMED",
                         group_name="arm")  # fmt: skip
    keying_set.paths.add(obj, LOCATION.format("b2"), index=2, group_method="KEYINGSET")
    keying_set.paths.add(target, "location", index=0, group_method="NONE")
    scene.keying_sets_all.active = keying_set
    keying.use_keyframe_insert_auto = True
    target.location = (0.5, 1.0, 2.0)
    bpy.context.view_layer.update()
    expected = {(ROTATION.format("b1"), i): "arm" for i in range(4)}
    expected[(LOCATION.format("b2"), 2)] = "Hand Set"
    assert _keyed(obj) == expected
    # No group of the keying set's; 5.0 files an object's transform under its default group.
    assert _keyed(target) in ({("location", 0): ""}, {("location", 0): "Object Transforms"})
    assert live.state_of(obj).solves == 2


def test_without_an_active_keying_set_keys_as_without_the_option(
    clean_scene: bpy.types.Scene, extension: ModuleType, keying: bpy.types.ToolSettings
) -> None:
    assert bpy.context.scene.keying_sets_all.active is None
    obj, _target = _move_target(extension)
    assert _keyed(obj) == {(ROTATION.format(b), i): b for b in BONES for i in range(4)}
