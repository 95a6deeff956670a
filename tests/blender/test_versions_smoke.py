"""Every operator a user meets, once, on every Blender line the manifest claims.

``make test`` runs this file (with ``test_compat.py``) on bpy 4.3 and 4.4, where the rest of
``tests/blender`` does not run, and as part of the whole suite on 4.2 LTS, 4.5 LTS and 5.0.
Each test drives the installed zip through its operators and reads the result back from
Blender: keys are checked by playing them (the evaluated pose at each frame against the
target read at that frame), not by reading what the add-on says it wrote.
"""

from __future__ import annotations

import math
from types import ModuleType

import bpy
import numpy as np
import pytest

from tests.blender.conftest import run_op, world_bone_tail
from tests.blender.live_support import (  # noqa: F401  (room_to_solve: an autouse fixture)
    TOLERANCE,
    finish,
    live_chain,
    miss,
    room_to_solve,
)
from tests.blender.reach_scenes import (
    activate,
    add_constraint,
    add_empty,
    bone_path,
    channel_set,
    fcurves,
    follow_path,
    last_report,
    make_chain,
)

FRAMES = 12


def _path(frame: int) -> tuple[float, float, float]:
    """A reachable target path for the 3-bone chain (length 3) over ``FRAMES`` frames."""
    theta = 2.0 * math.pi * (frame - 1) / FRAMES
    return (1.2 * math.cos(theta), 1.2 * math.sin(theta), 2.0)


def _tip_error(obj: bpy.types.Object, target: bpy.types.Object) -> float:
    """Distance (scene units) of b2's evaluated tail from the target's evaluated location."""
    return float(np.linalg.norm(world_bone_tail(obj, "b2") - np.array(target.matrix_world)[:3, 3]))


def _chain_with_target(animated: bool) -> tuple[bpy.types.Object, bpy.types.Object]:
    if animated:
        return follow_path(_path, FRAMES)
    obj = make_chain()
    target = add_empty("T", _path(1))
    add_constraint(obj, "b2", target, "POSITION")
    activate(obj)
    return obj, target


def test_the_installed_zip_registers(extension: ModuleType) -> None:
    """The zip built by Blender's own builder installs and registers its operators."""
    assert extension.__name__ == "bl_ext.user_default.reach_ik"
    assert hasattr(bpy.types.Object, "reach_ik")
    for name in ("solve", "bake", "constraint_add", "convert_ik", "clear_keys"):
        assert hasattr(bpy.ops.reach, name), name


def test_solve_reaches_the_target(clean_scene: bpy.types.Scene) -> None:
    obj, target = _chain_with_target(animated=False)
    run_op(bpy.ops.reach.solve)
    bpy.context.view_layer.update()
    assert _tip_error(obj, target) < TOLERANCE
    assert last_report(obj).satisfied
    assert fcurves(obj) == []


def test_solve_and_key_keys_the_solved_pose(clean_scene: bpy.types.Scene) -> None:
    """Solve & Key writes keys that play back the solved pose: checked after the pose is
    reset to rest, so only the keys can bring the tip back to the target."""
    obj, target = _chain_with_target(animated=False)
    clean_scene.frame_set(5)
    run_op(bpy.ops.reach.solve, insert_keys=True)
    assert channel_set(obj) == {
        (bone_path(f"b{i}", "rotation_quaternion"), k) for i in range(3) for k in range(4)
    }
    for pb in obj.pose.bones:
        pb.rotation_quaternion = (1.0, 0.0, 0.0, 0.0)
    clean_scene.frame_set(5)
    assert _tip_error(obj, target) < TOLERANCE


@pytest.mark.parametrize("bake_to", ["CURRENT", "NEW_ACTION", "NEW_STRIP"])
def test_bake_keys_play_back_on_the_target(clean_scene: bpy.types.Scene, bake_to: str) -> None:
    """A bake to the current action, a new action or a new NLA strip: at every frame the
    played-back pose puts the tip on the target, and the keys sit where the bake said."""
    obj, target = _chain_with_target(animated=True)
    before = obj.animation_data.action if obj.animation_data else None
    run_op(bpy.ops.reach.bake, target=bake_to)
    assert last_report(obj).satisfied
    if bake_to == "NEW_STRIP":
        (track,) = obj.animation_data.nla_tracks
        (strip,) = track.strips
        keyed = strip.action
        assert obj.animation_data.action is before
    else:
        keyed = obj.animation_data.action
        assert keyed is not None
    assert len(keyed.fcurves if bpy.app.version < (4, 4, 0) else _strip_fcurves(keyed)) == 12
    for frame in range(1, FRAMES + 1):
        clean_scene.frame_set(frame)
        assert _tip_error(obj, target) < TOLERANCE, (bake_to, frame)


def _strip_fcurves(action: bpy.types.Action) -> list:
    """Every F-curve of a layered action (4.4+), whichever slot it animates."""
    return [
        fcurve
        for layer in action.layers
        for strip in layer.strips
        for bag in strip.channelbags
        for fcurve in bag.fcurves
    ]


def test_one_live_update_follows_the_target(
    clean_scene: bpy.types.Scene, extension: ModuleType
) -> None:
    obj, target, live = live_chain(extension)
    solves = live.state_of(obj).solves
    target.location = (0.4, -1.1, 2.1)
    bpy.context.view_layer.update()
    finish(extension, obj)
    assert live.state_of(obj).solves == solves + 1
    assert miss(obj, target) < TOLERANCE
    assert not live.state_of(obj).error


def test_convert_builtin_ik_then_solve(clean_scene: bpy.types.Scene) -> None:
    """Blender's IK converted to a Reach constraint (Blender's IK muted, not removed), which
    then reaches the same target."""
    obj = make_chain()
    target = add_empty("T", (1.0, 0.8, 1.9))
    ik = obj.pose.bones["b2"].constraints.new("IK")
    ik.target, ik.chain_count = target, 3
    activate(obj)
    run_op(bpy.ops.reach.convert_ik)
    (item,) = obj.reach_ik.constraints
    assert (item.bone, item.target) == ("b2", target)
    assert ik.mute
    run_op(bpy.ops.reach.solve)
    bpy.context.view_layer.update()
    assert _tip_error(obj, target) < TOLERANCE
