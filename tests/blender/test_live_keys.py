"""Live posing and the animator's data: auto keying as a transform, undo, save and reload."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import bpy
import numpy as np
import pytest

from tests.blender.conftest import run_op, world_bone_tail
from tests.blender.live_support import (  # noqa: F401  (room_to_solve: an autouse fixture)
    live_chain,
    room_to_solve,
    rotate_by_transform,
    run_in_blender,
)
from tests.blender.reach_scenes import (
    channel_set,
    fcurves,
    pose_of,
)

ROTATION = 'pose.bones["{}"].rotation_quaternion'


@pytest.fixture
def keying() -> Iterator[bpy.types.ToolSettings]:
    """The scene's tool settings; auto keying and the keying preferences reset afterwards."""
    edit = bpy.context.preferences.edit
    saved = (edit.use_keyframe_insert_available, edit.use_auto_keyframe_insert_needed)
    yield bpy.context.scene.tool_settings
    edit.use_keyframe_insert_available, edit.use_auto_keyframe_insert_needed = saved
    bpy.context.scene.tool_settings.use_keyframe_insert_auto = False


def _keys(
    obj: bpy.types.Object,
) -> dict[tuple[str, int], tuple[str, list[tuple[float, float]], list[str]]]:
    """(group, [(frame, value)], [key type]) per F-curve."""
    return {
        (f.data_path, f.array_index): (
            f.group.name if f.group is not None else "",
            [tuple(k.co) for k in f.keyframe_points],
            [k.type for k in f.keyframe_points],
        )
        for f in fcurves(obj)
    }


def _auto_keyed_move(
    extension: ModuleType, keying: bpy.types.ToolSettings, **tool_settings: str
) -> tuple[bpy.types.Object, bpy.types.Object, ModuleType]:
    """A live chain; auto keying on with ``tool_settings``; its target moved once."""
    obj, target, live = live_chain(extension)
    keying.use_keyframe_insert_auto = True
    for name, value in tool_settings.items():
        setattr(keying, name, value)
    target.location = (0.5, 1.0, 2.0)
    bpy.context.view_layer.update()
    return obj, target, live


def test_auto_keying_off_writes_no_key(
    clean_scene: bpy.types.Scene, extension: ModuleType, keying: bpy.types.ToolSettings
) -> None:
    obj, target, live = live_chain(extension)
    keying.use_keyframe_insert_auto = False
    target.location = (0.5, 1.0, 2.0)
    bpy.context.view_layer.update()
    assert live.state_of(obj).solves == 2 and not fcurves(obj)


def test_auto_keying_keys_the_moved_rotations_like_a_transform(
    clean_scene: bpy.types.Scene, extension: ModuleType, keying: bpy.types.ToolSettings
) -> None:
    bpy.context.scene.frame_set(7)
    obj, _target, live = _auto_keyed_move(extension, keying, keyframe_type="BREAKDOWN")
    keys = _keys(obj)
    # What Blender's auto keying does after a rotation of these bones: every component of
    # each bone's rotation, in a group named after the bone, at the frame, of the key type.
    expected = {(ROTATION.format(b), i) for b in ("b0", "b1", "b2") for i in range(4)}
    assert set(keys) == expected
    for (path, index), (group, points, types) in keys.items():
        bone = path.split('"')[1]
        value = obj.pose.bones[bone].rotation_quaternion[index]
        assert group == bone and types == ["BREAKDOWN"]
        assert len(points) == 1 and points[0][0] == 7.0 and abs(points[0][1] - value) < 1e-6
    if bpy.app.version >= (5, 0, 0):  # bpy 4.2 crashes in transform.rotate in background
        transform = _keys(rotate_by_transform())
        assert set(transform) == {(ROTATION.format("b1"), i) for i in range(4)}
        for (_path, _index), (group, points, types) in transform.items():
            assert group == "b1" and types == ["BREAKDOWN"] and points[0][0] == 7.0
    # A re-solve that does not move the pose keys nothing more: a weight changed alone.
    obj.reach_ik.constraints[0].weight = 2.0
    obj.update_tag()
    solves = live.state_of(obj).solves
    bpy.context.view_layer.update()
    assert live.state_of(obj).solves == solves + 1 and _keys(obj) == keys


def test_auto_keying_replace_and_only_available_modes(
    clean_scene: bpy.types.Scene, extension: ModuleType, keying: bpy.types.ToolSettings
) -> None:
    obj, target, _live_module = _auto_keyed_move(extension, keying, auto_keying_mode="REPLACE_KEYS")
    scene = bpy.context.scene
    assert not fcurves(obj)  # replace mode: no key on this frame, nothing keyed
    keying.auto_keying_mode = "ADD_REPLACE_KEYS"
    bpy.context.preferences.edit.use_keyframe_insert_available = True
    target.location = (0.4, 1.0, 2.0)
    bpy.context.view_layer.update()
    assert not fcurves(obj)  # only available F-curves, and there are none
    obj.keyframe_insert(ROTATION.format("b1"), index=0, frame=1, group="b1")
    scene.frame_set(4)
    target.location = (0.3, 1.0, 2.0)
    bpy.context.view_layer.update()
    keys = _keys(obj)
    assert set(keys) == {(ROTATION.format("b1"), 0)}  # that F-curve only, now keyed twice
    assert [p[0] for p in keys[(ROTATION.format("b1"), 0)][1]] == [1.0, 4.0]


def test_undo_and_redo_restore_without_a_new_solve(
    clean_scene: bpy.types.Scene, extension: ModuleType
) -> None:
    obj, target, live = live_chain(extension)
    run_op(bpy.ops.ed.undo_push, message="solved")
    first = pose_of(obj)
    target.location = (0.5, 1.0, 2.0)
    bpy.context.view_layer.update()
    run_op(bpy.ops.ed.undo_push, message="moved")
    second = pose_of(bpy.data.objects["Chain"])
    solves = live.state_of(obj).solves
    run_op(bpy.ops.ed.undo)
    obj = bpy.data.objects["Chain"]
    bpy.context.view_layer.update()
    assert tuple(bpy.data.objects["T"].location) == pytest.approx((1.2, 0.3, 1.8))
    for bone, values in first.items():
        assert np.array_equal(pose_of(obj)[bone], values), bone
    run_op(bpy.ops.ed.redo)
    obj = bpy.data.objects["Chain"]
    bpy.context.view_layer.update()
    for bone, values in second.items():
        assert np.array_equal(pose_of(obj)[bone], values), bone
    assert live.state_of(obj).solves == solves  # the restored states were not solved again
    assert obj.reach_ik.live and not channel_set(obj)


def test_live_is_restored_after_save_and_reload(
    clean_scene: bpy.types.Scene, extension: ModuleType, tmp_path: Path
) -> None:
    obj, target, live = live_chain(extension)
    path = str(tmp_path / "live.blend")
    run_op(bpy.ops.wm.save_as_mainfile, filepath=path)
    run_op(bpy.ops.wm.open_mainfile, filepath=path)
    obj, target = bpy.data.objects["Chain"], bpy.data.objects["T"]
    assert obj.reach_ik.live  # restored with the file
    pose = pose_of(obj)
    bpy.context.view_layer.update()
    assert live.state_of(obj).solves == 0 and all(
        np.array_equal(pose_of(obj)[b], v) for b, v in pose.items()
    )  # opening the file solved nothing
    target.location = (0.5, 1.0, 2.0)
    bpy.context.view_layer.update()
    assert live.state_of(obj).solves == 1
    assert np.linalg.norm(world_bone_tail(obj, "b2") - np.array(target.location)) < 1e-4


RELOAD_SCRIPT = """
def count():
    handlers = bpy.app.handlers
    return [sum(f.__name__ == name for f in getattr(handlers, kind)) for kind, name in (
        ("depsgraph_update_post", "live_update"), ("frame_change_post", "frame_change"),
        ("undo_post", "accept_restored"), ("render_init", "render_started"),
        ("load_post", "migrate_loaded"))]
before = count()
bpy.ops.script.reload()
bpy.ops.script.reload()
print("COUNTS", before, count())
"""


def test_reload_scripts_leaves_one_set_of_handlers(extension_zip: Path, tmp_path: Path) -> None:
    # In a separate Blender: reloading replaces the modules every other test here imported.
    line = run_in_blender(RELOAD_SCRIPT, extension_zip, tmp_path, "COUNTS")
    assert line == "COUNTS [1, 1, 1, 1, 1] [1, 1, 1, 1, 1]", line
