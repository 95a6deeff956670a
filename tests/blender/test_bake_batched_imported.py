"""The batched bake takes an FBX-imported animated rig (issue 21, tried on importers' rigs).

Blender's FBX exporter with *Bake Animation* (a game-engine export) keys every channel of every
bone at every frame, computed back from the bones' world matrices: a bone whose parent turns
gets location keys that wander by ~1e-7 units although it is Connected, where Blender (and
Reach's figure) ignore the location. The batched path compared those locations frame to frame
exactly and went one frame after another on every such rig, saying "bone 'forearm.L' moves at
frame 2". Only what places a bone is compared now.
"""

from __future__ import annotations

import math
from pathlib import Path

import addon_utils
import bpy
import numpy as np

from tests.blender.conftest import run_op, world_bone_head, world_bone_tail
from tests.blender.reach_scenes import activate, add_constraint, add_empty, last_report

FRAMES = 24
#: Bones keyed in the exported animation (their X rotation swings).
SWUNG = ("upper_arm.L", "forearm.R")
#: Hand -> the chain's top bone.
ARMS = {"hand.L": "upper_arm.L", "hand.R": "upper_arm.R"}


def _exported_and_imported(metarig: bpy.types.Object, tmp_path: Path, helpers: object) -> object:
    """The metarig with its arms swinging over :data:`FRAMES`, through FBX and back."""
    for frame in range(1, FRAMES + 1):
        for name in SWUNG:
            pb = metarig.pose.bones[name]
            pb.rotation_mode = "XYZ"
            pb.rotation_euler = (0.3 * math.sin(frame / 4.0), 0.0, 0.0)
            pb.keyframe_insert("rotation_euler", frame=frame)
    addon_utils.enable("io_scene_fbx", default_set=True)
    path = str(tmp_path / "swing.fbx")
    run_op(bpy.ops.export_scene.fbx, filepath=path, use_selection=True,
           object_types={"ARMATURE"}, add_leaf_bones=True, bake_anim=True)  # fmt: skip
    helpers.load_empty_file()
    run_op(bpy.ops.import_scene.fbx, filepath=path)
    (obj,) = [o for o in bpy.data.objects if o.type == "ARMATURE"]
    return obj


def test_an_fbx_export_with_baked_animation_is_baked_in_batches(
    rigify_metarig: bpy.types.Object, tmp_path: Path, blender_helpers: object
) -> None:
    obj = _exported_and_imported(rigify_metarig, tmp_path, blender_helpers)
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, FRAMES
    scene.frame_set(1)
    for hand, top in ARMS.items():  # the hand a quarter of the arm in from its rest tail
        tail = world_bone_tail(obj, hand)
        rest = tail + 0.25 * (world_bone_head(obj, top) - tail)
        target = add_empty(f"{hand} target", tuple(rest))
        for frame in range(1, FRAMES + 1):
            target.location = rest + 0.05 * np.array([math.sin(frame / 3.0), 0.0, 0.0])
            target.keyframe_insert("location", frame=frame)
        add_constraint(obj, hand, target, "POSITION", chain_mode="ROOT", chain_root=top)
    scene.frame_set(1)
    activate(obj)
    run_op(bpy.ops.reach.bake)
    report = last_report(obj)
    assert report.satisfied, report.text()
    assert report.batched == "dls", report.text()
