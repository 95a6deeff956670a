"""The rules by which a batched bake reads its targets by stepping the scene rather than
from their F-curves (issue 21, ``bridge/measure/target_curves.py``), one test per rule that
``test_bake_target_curves.py`` does not cover: a muted F-curve, NLA tracks,
an animated transform other than the target's own F-curves, remapped time, a parent bone, the
armature's animated inputs, and the two runtime guards (a zero quaternion key; a first frame
whose composed matrix is not Blender's).

Where the rule matters to the motion (the target moves otherwise than its F-curves say), the
keys must be the stepping bake's bit for bit: without the rule the F-curves would be read and
the keys would differ. Every case names its reason in the report.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from types import ModuleType

import bpy
import numpy as np
import pytest

from tests.blender.reach_scenes import activate, fcurves, make_chain
from tests.blender.test_bake_batched import FRAMES, _hinged_arm
from tests.blender.test_bake_target_curves import _assert_stepping_bakes_the_same, _bake

PREFIX = "stepping the scene: "
TARGET = "constraint 'b1 Position': its target 'T' "


def _muted_curve(target: bpy.types.Object) -> str:
    """The target's z F-curve muted: Blender holds z at its stored value."""
    next(f for f in fcurves(target) if f.data_path == "location" and f.array_index == 2).mute = True
    return TARGET + "has a muted F-curve"


def _keyed_delta(target: bpy.types.Object) -> None:
    """``delta_location`` keyed at the first and last frame (it sways the target in y)."""
    target.delta_location = (0.0, 0.0, 0.0)
    target.keyframe_insert("delta_location", frame=1)
    target.delta_location = (0.0, -0.25, 0.1)
    target.keyframe_insert("delta_location", frame=FRAMES)


def _other_path(target: bpy.types.Object) -> str:
    """The target's action also animates its delta location (not a channel composed)."""
    _keyed_delta(target)
    return TARGET + "animates 'delta_location'"


def _nla_track(target: bpy.types.Object) -> str:
    """An NLA strip below the active action moves the target's delta location."""
    data = target.animation_data
    action = data.action
    data.action = None
    _keyed_delta(target)
    sway = data.action
    data.action = None
    data.nla_tracks.new().strips.new("Sway", 1, sway)
    data.action = action
    return TARGET + "has NLA tracks"


def _remapped(target: bpy.types.Object) -> str:
    """Time remapped 100 -> 50: the target moves along its path twice as fast."""
    render = bpy.context.scene.render
    render.frame_map_old, render.frame_map_new = 100, 50
    return "the scene remaps time"


def _bone_parent(target: bpy.types.Object) -> str:
    """The target parented to a bone of another, still armature."""
    holder = make_chain("Holder", n=1)
    target.parent = holder
    target.parent_type = "BONE"
    target.parent_bone = "b0"
    bpy.context.view_layer.update()  # keep the target where it was (the arm reaches it)
    parent_world = target.matrix_world @ target.matrix_basis.inverted()
    target.matrix_parent_inverse = parent_world.inverted()
    return TARGET + "is parented to a bone"


def _armature_location(_target: bpy.types.Object) -> str:
    """The armature keys a solved bone's location (the bake keys only rotations)."""
    arm = bpy.data.objects["Chain"]
    arm.pose.bones["b0"].keyframe_insert("location", frame=1)
    return "the armature animates 'pose.bones[\"b0\"].location'"


def _armature_data(_target: bpy.types.Object) -> str:
    """The armature's data is animated."""
    bpy.data.objects["Chain"].data.keyframe_insert("show_axes", frame=1)
    return "the armature animates its armature data"


MOVED = [_muted_curve, _other_path, _nla_track, _remapped]
"""Rules without which the F-curves would give the target another motion than Blender's."""
NAMED = [_bone_parent, _armature_location, _armature_data]
"""Rules whose reason the report names (their scenes' motion is the F-curves')."""


def _prepared(make: Callable[[bpy.types.Object], str]) -> tuple[bpy.types.Object, str]:
    obj = _hinged_arm()
    why = make(bpy.data.objects["T"])
    bpy.context.scene.frame_set(1)
    activate(obj)
    return obj, why


@pytest.mark.parametrize("make", MOVED)
def test_a_rule_that_changes_the_motion_steps_the_scene_with_the_stepping_bakes_keys(
    clean_scene: bpy.types.Scene, extension: ModuleType, monkeypatch: pytest.MonkeyPatch,
    make: Callable[[bpy.types.Object], str],
) -> None:  # fmt: skip
    obj, why = _prepared(make)
    target = bpy.data.objects["T"]
    frames = list(range(1, FRAMES + 1))
    composed = extension.bridge.measure.target_curves.world_matrices(target, frames)
    blender = []
    for frame in frames:
        clean_scene.frame_set(frame)
        blender.append(np.array(target.matrix_world))
    clean_scene.frame_set(1)
    assert np.abs(composed - np.array(blender)).max() > 0.01  # the F-curves alone would miss
    keys, read = _bake(obj)
    assert read == PREFIX + why
    _assert_stepping_bakes_the_same(obj, keys, extension, monkeypatch)


@pytest.mark.parametrize("make", NAMED)
def test_a_rule_names_its_reason(
    clean_scene: bpy.types.Scene, extension: ModuleType, make: Callable[[bpy.types.Object], str]
) -> None:
    obj, why = _prepared(make)
    _keys, read = _bake(obj)
    assert read == PREFIX + why


def test_a_zero_quaternion_key_steps_the_scene(
    clean_scene: bpy.types.Scene, extension: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A quaternion key of zero length has no rotation matrix to compose: the scene is
    stepped (a position goal does not read the rotation, so the keys are the same)."""
    obj, _why = _prepared(lambda target: "")
    target = bpy.data.objects["T"]
    target.rotation_mode = "QUATERNION"
    target.rotation_quaternion = (0.0, 0.0, 0.0, 0.0)
    target.keyframe_insert("rotation_quaternion", frame=20)
    keys, read = _bake(obj)
    assert read == PREFIX + "target 'T' has a zero quaternion key"
    _assert_stepping_bakes_the_same(obj, keys, extension, monkeypatch)


def test_f_curves_that_miss_the_first_frames_matrix_step_the_scene(
    clean_scene: bpy.types.Scene, extension: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The guard against a rule this module does not know: where the composition misses
    Blender's matrix at the first frame (here made to, by 1e-3 in y at every frame), the
    scene is stepped and the keys are the stepping bake's."""
    obj, _why = _prepared(lambda target: "")
    curves = extension.bridge.measure.target_curves
    compose = curves.world_matrices

    def shifted(target: bpy.types.Object, frames: list[int]) -> np.ndarray:
        out = compose(target, frames)
        out[:, 1, 3] += 1e-3 * np.cos(np.arange(len(frames)) * math.pi / 7.0)
        return out

    monkeypatch.setattr(curves, "world_matrices", shifted)
    keys, read = _bake(obj)
    assert read == PREFIX + "target 'T': its F-curves miss its matrix at frame 1"
    _assert_stepping_bakes_the_same(obj, keys, extension, monkeypatch)
