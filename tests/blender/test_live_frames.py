"""Evaluate on frame change: each frame solved from the animated targets, never keyed, never
during a render; the same poses a bake keys."""

from __future__ import annotations

import importlib
import math
from pathlib import Path
from types import ModuleType

import bpy
import numpy as np

from tests.blender.conftest import run_op, world_bone_tail
from tests.blender.live_support import run_in_blender
from tests.blender.reach_scenes import activate, add_constraint, add_empty, fcurves, make_chain

FRAMES = range(1, 7)
PATH = [(0.0, 0.6 + 0.1 * i, 1.2 + 0.05 * i) for i in range(len(FRAMES))]  # in b0's YZ plane


def _planar_arm() -> tuple[bpy.types.Object, bpy.types.Object]:
    """Two bones turning about X only, the elbow limited to one side: one pose per target.
    The target follows :data:`PATH` over :data:`FRAMES` (linear keys)."""
    obj = make_chain(n=2)
    for pb in obj.pose.bones:
        pb.lock_ik_y = pb.lock_ik_z = True
    elbow = obj.pose.bones["b1"]
    elbow.use_ik_limit_x = True
    elbow.ik_min_x, elbow.ik_max_x = math.radians(5.0), math.radians(170.0)
    target = add_empty("T", PATH[0])
    for frame, location in zip(FRAMES, PATH, strict=True):
        target.location = location
        target.keyframe_insert("location", frame=frame)
    for fcurve in fcurves(target):
        for point in fcurve.keyframe_points:
            point.interpolation = "LINEAR"
    add_constraint(obj, "b1", target, "POSITION")
    bpy.context.scene.frame_set(FRAMES[0])
    return obj, target


def _rotations(obj: bpy.types.Object) -> np.ndarray:
    """World rotation (3, 3) of each bone, stacked (bones, 3, 3)."""
    world = np.array(obj.matrix_world)
    return np.array([(world @ np.array(pb.matrix))[:3, :3] for pb in obj.pose.bones])


def _live(extension: ModuleType) -> ModuleType:
    return importlib.import_module(f"{extension.__name__}.bridge.live.posing")


def test_frame_change_evaluation_matches_a_bake_frame_by_frame(
    clean_scene: bpy.types.Scene, extension: ModuleType
) -> None:
    obj, target = _planar_arm()
    scene = bpy.context.scene
    live = _live(extension)
    obj.reach_ik.evaluate_on_frame_change = True
    scene.tool_settings.use_keyframe_insert_auto = True  # a preview is never keyed, even so
    previews = []
    for frame in FRAMES:
        scene.frame_set(frame)
        tail = world_bone_tail(obj, "b1")
        assert np.linalg.norm(tail - np.array(target.matrix_world)[:3, 3]) < 1e-4, frame
        previews.append(_rotations(obj))
    assert live.state_of(obj).solves == len(FRAMES)
    assert not fcurves(obj)  # never keyed
    scene.tool_settings.use_keyframe_insert_auto = False
    obj.reach_ik.evaluate_on_frame_change = False
    for pb in obj.pose.bones:
        pb.rotation_quaternion = (1.0, 0.0, 0.0, 0.0)
    activate(obj)
    run_op(bpy.ops.reach.bake, use_scene_range=False, frame_start=FRAMES[0], frame_end=FRAMES[-1])
    assert fcurves(obj)
    for frame, preview in zip(FRAMES, previews, strict=True):
        scene.frame_set(frame)
        bpy.context.view_layer.update()
        baked = _rotations(obj)
        assert np.abs(baked - preview).max() < 1e-4, (frame, np.abs(baked - preview).max())


RENDER_SCRIPT = """
import importlib
from pathlib import Path
from tests.blender.test_live_frames import _planar_arm
live = importlib.import_module("bl_ext.user_default.reach_ik.bridge.live.posing")
bpy.ops.wm.read_homefile(use_empty=True)
obj, target = _planar_arm()
scene = bpy.context.scene
obj.reach_ik.evaluate_on_frame_change = True
obj.reach_ik.live = True
scene.frame_set(2)
solves = [live.state_of(obj).solves]

def edit_while_rendering(*_args):
    # A script moving a target mid-render: Live would solve on this update.
    target.location.x += 0.01
    bpy.context.view_layer.update()

bpy.app.handlers.render_pre.append(edit_while_rendering)
camera = bpy.data.objects.new("Camera", bpy.data.cameras.new("Camera"))
scene.collection.objects.link(camera)
scene.camera = camera
scene.render.engine = "BLENDER_WORKBENCH"
scene.render.resolution_x = scene.render.resolution_y = 8
folder = Path(bpy.app.tempdir or ".") / "frames"
scene.render.filepath = str(folder / "frame_")
scene.frame_start, scene.frame_end = 3, 4
bpy.ops.render.render(animation=True)
bpy.app.handlers.render_pre.remove(edit_while_rendering)
solves.append(live.state_of(obj).solves)
obj.reach_ik.live = False
scene.frame_set(5)  # after the render, evaluation resumes
solves.append(live.state_of(obj).solves)
print("RENDER", sorted(p.name for p in folder.iterdir()), solves)
"""


def test_no_live_solve_while_rendering(extension_zip: Path, tmp_path: Path) -> None:
    # In a separate Blender: a render starts a GPU backend that would stay for later tests.
    line = run_in_blender(RENDER_SCRIPT, extension_zip, tmp_path, "RENDER")
    # Neither the frames rendered nor a target moved mid-render solved; frame 5 did.
    assert line == "RENDER ['frame_0003.png', 'frame_0004.png'] [1, 1, 2]", line
