"""``bridge.blender.compat``: F-curve access that works on Blender 4.2 and on 4.4+ / 5.x alike."""

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
    compat = extension.bridge.blender.compat
    plain = _empty(clean_scene, "Plain")
    keyed = _empty(clean_scene, "Keyed")
    keyed.keyframe_insert("location", index=0, frame=1)
    (fcurve,) = compat.fcurves(keyed)
    with pytest.raises(ValueError, match="obj 'Plain' has no action"):
        compat.remove_fcurve(plain, fcurve)
    assert [(f.data_path, f.array_index) for f in compat.fcurves(keyed)] == [("location", 0)]
    assert plain.animation_data is None


def test_find_fcurve_finds_what_a_scan_of_the_fcurves_finds(
    clean_scene: bpy.types.Scene, extension: ModuleType
) -> None:
    """Each keyed channel's own F-curve, None for a channel without one, for an object
    without animation data and for one whose action was unassigned."""
    compat = extension.bridge.blender.compat
    keyed = _empty(clean_scene, "Keyed")
    for prop, indices in (("location", (0, 2)), ("rotation_euler", (1,)), ("scale", (0, 1, 2))):
        for index in indices:
            keyed.keyframe_insert(prop, index=index, frame=1)
    curves = compat.fcurves(keyed)
    assert len(curves) == 6
    for fcurve in curves:
        found = compat.find_fcurve(keyed, fcurve.data_path, fcurve.array_index)
        assert found == fcurve and (found.data_path, found.array_index) == (
            fcurve.data_path, fcurve.array_index,
        )  # fmt: skip
    assert compat.find_fcurve(keyed, "location", 1) is None
    assert compat.find_fcurve(keyed, "rotation_quaternion", 0) is None
    assert compat.find_fcurve(_empty(clean_scene, "Plain"), "location", 0) is None
    keyed.animation_data.action = None
    assert compat.find_fcurve(keyed, "location", 0) is None


def test_ensure_fcurve_creates_the_curve_in_its_group_once(
    clean_scene: bpy.types.Scene, extension: ModuleType
) -> None:
    """On every line (4.2 and 4.3: legacy F-curves; 4.4 and 4.5: a group assigned after
    ``fcurve_ensure_for_datablock``, which takes none there; 5.0: its ``group_name``): the
    curve is made once, in the named group, and a second channel joins the same group."""
    compat = extension.bridge.blender.compat
    obj = _empty(clean_scene, "Keyed")
    first = compat.ensure_fcurve(obj, "location", 1, "Object Transforms")
    assert (first.data_path, first.array_index) == ("location", 1)
    assert first.group is not None and first.group.name == "Object Transforms"
    assert compat.ensure_fcurve(obj, "location", 1, "Elsewhere") == first
    second = compat.ensure_fcurve(obj, "rotation_euler", 2, "Object Transforms")
    assert second.group == first.group
    container = compat.fcurve_container(obj)
    assert [g.name for g in container.groups] == ["Object Transforms"]
    assert [(f.data_path, f.array_index) for f in compat.fcurves(obj)] == [
        ("location", 1), ("rotation_euler", 2),
    ]  # fmt: skip
    first.keyframe_points.insert(3, 0.5)
    clean_scene.frame_set(3)
    assert obj.location[1] == pytest.approx(0.5)
