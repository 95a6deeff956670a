"""An armature whose scale changes during a bake (its own scale animated, or a parent's scale
making it sheared from some frame on): the bake stops with a clear error naming the frame and
the object, and nothing is written."""

from __future__ import annotations

import bpy
import pytest

from tests.blender.reach_scenes import (
    activate,
    add_constraint,
    add_empty,
    assert_unchanged,
    call_reach,
    make_chain,
    scene_state,
)


def _animated_scale(obj: bpy.types.Object) -> str:
    obj.scale = (1.0, 1.0, 1.0)
    obj.keyframe_insert("scale", frame=1)
    obj.scale = (1.5, 1.5, 1.5)
    obj.keyframe_insert("scale", frame=5)
    return r"stopped at frame 2, .*Armature 'Chain' changed its scale from 1 to 1\.\d+"


def _parent_scaled_later(obj: bpy.types.Object) -> str:
    parent = add_empty("Squash", (0.0, 0.0, 0.0))
    obj.parent = parent
    obj.rotation_euler = (0.5, 0.0, 0.3)
    parent.keyframe_insert("scale", frame=1)
    parent.scale = (2.0, 1.0, 1.0)
    parent.keyframe_insert("scale", frame=3)
    return r"stopped at frame 2, .*Armature 'Chain' changed its scale from 1 to 1\.\d+"


CASES = {"animated scale": _animated_scale, "parent scaled non-uniformly": _parent_scaled_later}


@pytest.mark.parametrize("case", list(CASES))
def test_a_bake_stops_when_the_armature_changes_shape(
    clean_scene: bpy.types.Scene, case: str
) -> None:
    obj = make_chain()
    message = CASES[case](obj)
    target = add_empty("T", (0.8, 0.3, 2.2))
    add_constraint(obj, "b2", target, "POSITION")
    clean_scene.frame_start, clean_scene.frame_end = 1, 5
    clean_scene.frame_set(1)
    activate(obj)
    before = scene_state(obj)
    with pytest.raises(RuntimeError, match=message):
        call_reach("bake")
    assert_unchanged(before, scene_state(obj))
    assert clean_scene.frame_current == 1
