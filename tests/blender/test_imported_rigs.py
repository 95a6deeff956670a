"""Rigs brought in through Blender's importers reach every reachable goal, without false alarms.

Issue 18, section 2: a round trip of Rigify's metarig through FBX (in the usual game-engine
setting: armature object scale 0.01, rotated 90 degrees about X, leaf bones added) and through
glTF, and a BVH mocap skeleton in centimetres (coordinates up to ~250 units, where Blender's
single-precision evaluation is only good to ~3e-5 units), imported with Blender's own
importers at their defaults. Each reachable goal is reached with no correction pass; the goal
out of reach is reported missed; a bake over the mocap reports no UNREACHED frame.

The glTF round trip runs in a child process, which saves what it imported as a .blend file
the test opens: in a whole bpy 4.2 test session Blender crashed intermittently (1 full run in
4, never alone) inside its own glTF exporter (``io_scene_gltf2``, ``gather_tree.construct``)
and once in the next ``read_homefile`` after it, taking the session with it; the test process
now never enables the glTF add-on. A child that dies by a signal is run again, at most
:data:`ROUND_TRIP_ATTEMPTS` times; any other failure is the test's.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path

import addon_utils
import bpy
import numpy as np
import pytest

from tests.blender.conftest import run_op, world_bone_tail
from tests.blender.reach_scenes import activate, add_constraint, add_empty, last_report
from tests.blender.scale_support import REACHABLE, goal_targets, reached, solve_each

MAX_ITERATIONS = 200  # the Iteration Limit setting's default
ROUND_TRIP_ATTEMPTS = 3
REPO_ROOT = Path(__file__).resolve().parents[2]

#: Child script: Rigify's metarig scaled by argv[2] in its object ("object") or its armature
#: data ("data"), exported to the GLB file argv[1] with Blender's glTF exporter, imported into
#: an empty file by its glTF importer, saved as argv[1] + ".blend".
GLTF_ROUND_TRIP = """
import os
import sys
import bpy
import addon_utils

path, scale, how = sys.argv[1], float(sys.argv[2]), sys.argv[3]
bpy.ops.wm.read_homefile(use_empty=True)
addon_utils.enable("rigify", default_set=True)
addon_utils.enable("io_scene_gltf2", default_set=True)
bpy.ops.object.armature_human_metarig_add()
bpy.context.active_object.scale = (scale, scale, scale)
if how == "data":
    bpy.ops.object.transform_apply(location=False, rotation=False, scale=True)
bpy.ops.export_scene.gltf(filepath=path, use_selection=True, export_format="GLB")
bpy.ops.wm.read_homefile(use_empty=True)
bpy.ops.import_scene.gltf(filepath=path)
bpy.ops.wm.save_as_mainfile(filepath=path + ".blend")
sys.stdout.flush()
os._exit(0)
"""


def _gltf_round_trip_in_child(path: Path, scale: float, how: str) -> Path:
    """The scaled metarig through glTF, in a child Blender (see the module note): the .blend
    file that holds what the importer made."""
    env = {**os.environ, "HOME": str(path.parent), "XDG_CONFIG_HOME": str(path.parent / ".cfg")}
    for _attempt in range(ROUND_TRIP_ATTEMPTS):
        proc = subprocess.run([sys.executable, "-c", GLTF_ROUND_TRIP, str(path), str(scale), how],
                              cwd=REPO_ROOT, env=env, capture_output=True, text=True,
                              timeout=300, check=False)  # fmt: skip
        if proc.returncode >= 0:  # not killed by a signal
            break
    saved = path.with_name(path.name + ".blend")
    assert proc.returncode == 0 and saved.exists(), proc.stdout + proc.stderr
    return saved


def _fbx_round_trip(tmp_path: Path, blender_helpers: object) -> bpy.types.Object:
    """Export the active metarig with Blender's FBX exporter, import it into an empty file."""
    addon_utils.enable("io_scene_fbx", default_set=True)
    path = str(tmp_path / "rig.fbx")
    run_op(bpy.ops.export_scene.fbx, filepath=path, use_selection=True,
           object_types={"ARMATURE"}, add_leaf_bones=True)  # fmt: skip
    blender_helpers.load_empty_file()
    run_op(bpy.ops.import_scene.fbx, filepath=path)
    (obj,) = [o for o in bpy.data.objects if o.type == "ARMATURE"]
    return obj


def _assert_reaches_what_it_can(obj: bpy.types.Object) -> None:
    outcomes = solve_each(obj, goal_targets(obj))
    for (status, iterations, passes), reachable in zip(outcomes, REACHABLE, strict=True):
        assert reached(status) == reachable, status
        assert passes == 0, status
        if reachable:
            assert iterations < MAX_ITERATIONS, status


def test_fbx_round_trip_at_scale_001_rotated(
    rigify_metarig: bpy.types.Object, blender_helpers: object, tmp_path: Path
) -> None:
    rigify_metarig.rotation_euler = (math.pi / 2.0, 0.0, 0.0)
    rigify_metarig.scale = (0.01, 0.01, 0.01)
    obj = _fbx_round_trip(tmp_path, blender_helpers)
    assert len(obj.data.bones) > 190  # leaf bones added
    assert np.allclose(obj.scale, 0.01) and np.allclose(obj.rotation_euler, (math.pi / 2, 0, 0))
    _assert_reaches_what_it_can(obj)


@pytest.mark.parametrize("how", ["object", "data"])
@pytest.mark.parametrize("scale", [0.01, 100.0])
def test_gltf_round_trip(
    clean_scene: bpy.types.Scene, tmp_path: Path, how: str, scale: float
) -> None:
    """The metarig scaled by its object (glTF keeps it as the node's scale) or in its armature
    data (in centimetres at 100: coordinates up to ~200 units)."""
    saved = _gltf_round_trip_in_child(tmp_path / "rig.glb", scale, how)
    run_op(bpy.ops.wm.open_mainfile, filepath=str(saved), load_ui=False)
    (obj,) = [o for o in bpy.data.objects if o.type == "ARMATURE"]
    _assert_reaches_what_it_can(obj)


# ---------------------------------------------------------------------------- BVH mocap
#: Joint -> (parent, offset from it in centimetres, Y up): a mocap-like skeleton.
SKELETON = {
    "Hips": (None, (0.0, 0.0, 0.0)),
    "Spine": ("Hips", (0.0, 10.0, 0.0)),
    "Spine1": ("Spine", (0.0, 15.0, 0.0)),
    "Neck": ("Spine1", (0.0, 22.0, 0.0)),
    "Head": ("Neck", (0.0, 10.0, 0.0)),
    "LeftShoulder": ("Spine1", (5.0, 18.0, 0.0)),
    "LeftArm": ("LeftShoulder", (14.0, 0.0, 0.0)),
    "LeftForeArm": ("LeftArm", (28.0, 0.0, 0.0)),
    "LeftHand": ("LeftForeArm", (25.0, 0.0, 0.0)),
    "RightShoulder": ("Spine1", (-5.0, 18.0, 0.0)),
    "RightArm": ("RightShoulder", (-14.0, 0.0, 0.0)),
    "RightForeArm": ("RightArm", (-28.0, 0.0, 0.0)),
    "RightHand": ("RightForeArm", (-25.0, 0.0, 0.0)),
    "LeftUpLeg": ("Hips", (9.0, -6.0, 0.0)),
    "LeftLeg": ("LeftUpLeg", (0.0, -44.0, 0.0)),
    "LeftFoot": ("LeftLeg", (0.0, -42.0, 0.0)),
    "LeftToeBase": ("LeftFoot", (0.0, -6.0, 13.0)),
    "RightUpLeg": ("Hips", (-9.0, -6.0, 0.0)),
    "RightLeg": ("RightUpLeg", (0.0, -44.0, 0.0)),
    "RightFoot": ("RightLeg", (0.0, -42.0, 0.0)),
    "RightToeBase": ("RightFoot", (0.0, -6.0, 13.0)),
}
END_SITES = {"Head": (0.0, 15.0, 0.0), "LeftHand": (17.0, 0.0, 0.0),
             "RightHand": (-17.0, 0.0, 0.0), "LeftToeBase": (0.0, 0.0, 6.0),
             "RightToeBase": (0.0, 0.0, 6.0)}  # fmt: skip
BVH_FRAMES = 24
#: Bone -> chain root of the hand and foot constraints.
LIMBS = {"LeftHand": "LeftShoulder", "RightHand": "RightShoulder", "LeftFoot": "LeftUpLeg",
         "RightFoot": "RightUpLeg"}  # fmt: skip


def _bvh_text() -> str:
    """A BVH file: the hips walk from x = 200 to 250 cm at ~100 cm up, limbs swinging."""
    lines = ["HIERARCHY"]
    order = list(SKELETON)

    def write(joint: str, depth: int) -> None:
        pad = "  " * depth
        parent, offset = SKELETON[joint]
        lines.append(f"{pad}{'ROOT' if parent is None else 'JOINT'} {joint}")
        lines.append(f"{pad}{{")
        lines.append(f"{pad}  OFFSET {offset[0]:.4f} {offset[1]:.4f} {offset[2]:.4f}")
        position = "Xposition Yposition Zposition " if parent is None else ""
        lines.append(f"{pad}  CHANNELS {6 if parent is None else 3} {position}"
                     "Zrotation Xrotation Yrotation")  # fmt: skip
        children = [j for j in order if SKELETON[j][0] == joint]
        for child in children:
            write(child, depth + 1)
        if not children:
            x, y, z = END_SITES[joint]
            site = ["End Site", "{", f"  OFFSET {x:.4f} {y:.4f} {z:.4f}", "}"]
            lines.extend(f"{pad}  {line}" for line in site)
        lines.append(f"{pad}}}")

    write("Hips", 0)
    lines += ["MOTION", f"Frames: {BVH_FRAMES}", "Frame Time: 0.0333333"]
    for f in range(BVH_FRAMES):
        t = 2.0 * math.pi * f / BVH_FRAMES
        swing = 25.0 * math.sin(t)
        values = [200.0 + 50.0 * f / (BVH_FRAMES - 1), 98.0 + 2.0 * math.cos(2 * t), 30.0]
        values += [3.0 * math.sin(t), 2.0, 5.0 * math.sin(t)]
        angles = {"LeftArm": (-70.0, swing, 0.0), "RightArm": (70.0, -swing, 0.0),
                  "LeftForeArm": (0.0, 0.0, 20.0 + 10.0 * math.sin(t)),
                  "RightForeArm": (0.0, 0.0, -20.0 - 10.0 * math.sin(t)),
                  "LeftUpLeg": (0.0, -swing, 0.0), "RightUpLeg": (0.0, swing, 0.0),
                  "LeftLeg": (0.0, 15.0 + 10.0 * math.cos(t), 0.0),
                  "RightLeg": (0.0, 15.0 - 10.0 * math.cos(t), 0.0),
                  "Spine": (2.0 * math.sin(t), 3.0, 0.0)}  # fmt: skip
        for joint in order[1:]:
            values += angles.get(joint, (0.0, 0.0, 0.0))  # Z, X, Y degrees
        lines.append(" ".join(f"{v:.4f}" for v in values))
    return "\n".join(lines) + "\n"


def _mocap(tmp_path: Path) -> tuple[bpy.types.Object, dict[str, bpy.types.Object]]:
    """Import the BVH at the importer's defaults; key an empty on each hand's and foot's tail
    at every frame (the targets follow the mocap). Returns the armature and the targets."""
    path = tmp_path / "walk.bvh"
    path.write_text(_bvh_text())
    run_op(bpy.ops.import_anim.bvh, filepath=str(path))
    obj = bpy.context.active_object
    assert obj is not None and obj.type == "ARMATURE"
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, BVH_FRAMES
    targets = {bone: add_empty(f"{bone}_target", (0.0, 0.0, 0.0)) for bone in LIMBS}
    for frame in range(1, BVH_FRAMES + 1):
        scene.frame_set(frame)
        for bone, empty in targets.items():
            empty.location = world_bone_tail(obj, bone)
            empty.keyframe_insert("location", frame=frame)
    scene.frame_set(1)
    for bone, empty in targets.items():
        add_constraint(obj, bone, empty, "POSITION", chain_mode="ROOT", chain_root=LIMBS[bone])
    activate(obj)
    return obj, targets


@pytest.mark.parametrize("automatic", [True, False])
def test_bvh_mocap_in_centimetres_is_reached_without_correction(
    clean_scene: bpy.types.Scene, tmp_path: Path, automatic: bool
) -> None:
    """Automatic tolerance, and a fixed 1e-5 units (below the float32 resolution at these
    coordinates: judged at that resolution, never a model mismatch)."""
    obj, targets = _mocap(tmp_path)
    assert max(float(np.abs(world_bone_tail(obj, b)).max()) for b in LIMBS) > 200.0
    if not automatic:
        obj.reach_ik.auto_tolerance = False
        obj.reach_ik.tolerance = 1e-5
    clean_scene.frame_set(12)
    for name, euler in (("LeftArm", (0.3, 0.0, 0.4)), ("RightForeArm", (0.0, 0.5, 0.0)),
                        ("LeftLeg", (0.4, 0.0, 0.0))):  # fmt: skip
        obj.pose.bones[name].rotation_euler = euler  # off the mocap pose: a real solve
    run_op(bpy.ops.reach.solve)
    report = last_report(obj)
    assert report.satisfied and report.passes == 0, report.text()
    assert all(not c.reason for c in report.constraints), report.text()
    run_op(bpy.ops.reach.bake)
    bake = last_report(obj)
    assert bake.measured and bake.satisfied, bake.text()
    assert "UNREACHED" not in bake.text() and not bake.reasons, bake.text()
    for frame in (1, 7, 24):
        clean_scene.frame_set(frame)
        for bone, target in targets.items():
            miss = np.linalg.norm(
                world_bone_tail(obj, bone) - np.array(target.matrix_world.translation)
            )
            assert miss < 1e-3, (frame, bone, miss)
