"""Live posing solves each armature alone; when a Solve or Bake of the armature would join
others (a constraint on another armature's bone), the panel says so while Live is on."""

from __future__ import annotations

from types import ModuleType

import bpy

from tests.blender.joined_support import two_arms
from tests.blender.panel_draw import draw_panels
from tests.blender.reach_scenes import make_chain


def _labels(extension: ModuleType) -> list[str]:
    return [text for kind, text in draw_panels(extension) if kind == "label"]


def test_the_panel_says_live_solves_a_joined_armature_alone(
    clean_scene: bpy.types.Scene, extension: ModuleType
) -> None:
    a, _b = two_arms()
    note = "Live solves 'A' alone; Solve and Bake join 'B'"
    assert note not in _labels(extension)  # Live off: nothing to say
    a.reach_ik.live = True
    assert note in _labels(extension)
    a.reach_ik.live = False
    assert note not in _labels(extension)


def test_no_note_for_an_armature_that_joins_none(
    clean_scene: bpy.types.Scene, extension: ModuleType
) -> None:
    obj = make_chain()
    empty = bpy.data.objects.new("T", None)
    bpy.context.scene.collection.objects.link(empty)
    bpy.ops.reach.constraint_add(bone="b2", target="T", goal_type="POSITION")
    obj.reach_ik.live = True
    assert not [text for text in _labels(extension) if text.startswith("Live solves")]
