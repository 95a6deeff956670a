"""The panel's *Only Selected Bones* checkbox (``reach_ik.bake_only_selected_bones``) reaches
the bake started from the panel, the Pose › Reach menu or *Bake To* (every one calls
``reach.bake`` without the option, as a script may), and an explicit ``only_selected_bones``
still wins."""

from __future__ import annotations

from types import ModuleType

import bpy

from tests.blender.conftest import run_op, select_pose_bones
from tests.blender.panel_draw import draw_panels
from tests.blender.reach_scenes import activate, add_constraint, add_empty, fcurves, make_chain


def _rig() -> bpy.types.Object:
    """A 3-bone chain reaching for a target keyed at frames 1 and 3, in pose mode with only
    b2 selected."""
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, 3
    obj = make_chain()
    target = add_empty("T", (1.0, 0.0, 2.2))
    target.keyframe_insert("location", frame=1)
    target.location = (0.0, 1.0, 2.2)
    target.keyframe_insert("location", frame=3)
    add_constraint(obj, "b2", target, "POSITION")
    activate(obj)
    scene.frame_set(1)
    bpy.ops.object.mode_set(mode="POSE")
    select_pose_bones(obj, ["b2"], active="b2")
    return obj


def _keyed_bones(obj: bpy.types.Object) -> set[str]:
    return {f.data_path.split('"')[1] for f in fcurves(obj) if f.data_path.startswith("pose.")}


def test_the_panel_draws_the_checkbox(clean_scene: bpy.types.Scene, extension: ModuleType) -> None:
    _rig()
    assert ("prop", "bake_only_selected_bones") in draw_panels(extension)


def test_the_checkbox_reaches_the_bake(clean_scene: bpy.types.Scene) -> None:
    obj = _rig()
    obj.reach_ik.bake_only_selected_bones = True
    run_op(bpy.ops.reach.bake)  # no option given, as a button or menu entry calls it
    assert _keyed_bones(obj) == {"b2"}
    obj.reach_ik.bake_only_selected_bones = False
    run_op(bpy.ops.reach.bake)
    assert _keyed_bones(obj) == {"b0", "b1", "b2"}


def test_an_explicit_option_wins_over_the_checkbox(clean_scene: bpy.types.Scene) -> None:
    obj = _rig()
    obj.reach_ik.bake_only_selected_bones = True
    run_op(bpy.ops.reach.bake, only_selected_bones=False)
    assert _keyed_bones(obj) == {"b0", "b1", "b2"}
