"""``bridge.compat``: F-curve access that works on Blender 4.2 and on 4.4+ / 5.x alike."""

from __future__ import annotations

from types import ModuleType

import bpy
import pytest


def _empty(scene: bpy.types.Scene, name: str) -> bpy.types.Object:
    obj = bpy.data.objects.new(name, None)
    scene.collection.objects.link(obj)
    return obj


def test_remove_fcurve_from_an_object_without_action_names_it(
    clean_scene: bpy.types.Scene, extension: ModuleType
) -> None:
    """A specific error naming the object, and the other object's F-curve left alone."""
    compat = extension.bridge.compat
    plain = _empty(clean_scene, "Plain")
    keyed = _empty(clean_scene, "Keyed")
    keyed.keyframe_insert("location", index=0, frame=1)
    (fcurve,) = compat.fcurves(keyed)
    with pytest.raises(ValueError, match="obj 'Plain' has no action"):
        compat.remove_fcurve(plain, fcurve)
    assert [(f.data_path, f.array_index) for f in compat.fcurves(keyed)] == [("location", 0)]
    assert plain.animation_data is None
