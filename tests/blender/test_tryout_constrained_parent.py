"""Tried on rigs nobody here built: an IK chain below a bone that a constraint places.

Rigify turns the bone above each IK chain (``MCH-thigh_ik_swing.L``) with a Damped Track
towards the foot's target. The solve does not move that bone, but the chain hangs off it, so
the model must start the chain where Blender puts the bone, on every frame of a bake too.
"""

from __future__ import annotations

import bpy
import numpy as np
from mathutils import Matrix

from tests.blender.conftest import run_op, world_bone_head, world_bone_tail
from tests.blender.reach_scenes import activate, add_empty, last_report, make_chain

TOLERANCE = 1e-5


def _tracked_chain() -> tuple[bpy.types.Object, bpy.types.Object]:
    """b0 (a Damped Track towards the empty 'look') <- b1 <- b2, disconnected; a Reach
    position goal on b2 with a chain of two bones (b1, b2). Returns the armature and 'look'."""
    obj = make_chain(n=3, connected=False)
    look = add_empty("look", (1.0, 0.5, 0.2))
    track = obj.pose.bones["b0"].constraints.new("DAMPED_TRACK")
    track.target = look
    add_empty("T", (0.5, 0.3, 1.5))
    activate(obj)
    run_op(bpy.ops.reach.constraint_add, bone="b2", target="T", goal_type="POSITION")
    item = obj.reach_ik.constraints[0]
    item.chain_mode, item.chain_length = "LENGTH", 2
    return obj, look


def test_a_chain_below_a_constrained_bone_is_solved_without_correction(
    clean_scene: bpy.types.Scene,
) -> None:
    obj, _look = _tracked_chain()
    run_op(bpy.ops.reach.solve)
    report = last_report(obj)
    assert report.satisfied and report.passes == 0, report.text()
    miss = np.linalg.norm(world_bone_tail(obj, "b2") - np.array(bpy.data.objects["T"].location))
    assert miss < TOLERANCE


def test_a_bake_below_an_animated_constrained_bone_plays_back_on_target(
    clean_scene: bpy.types.Scene,
) -> None:
    """The Damped Track's target moves during the shot: every baked frame is on target."""
    obj, look = _tracked_chain()
    clean_scene.frame_start, clean_scene.frame_end = 1, 6
    for frame in range(1, 7):
        look.location = (1.0 - 0.3 * frame, 0.5, 0.2 + 0.1 * frame)
        look.keyframe_insert("location", frame=frame)
    activate(obj)
    run_op(bpy.ops.reach.bake)
    target = np.array(bpy.data.objects["T"].location)
    misses = []
    for frame in range(1, 7):
        clean_scene.frame_set(frame)
        misses.append(float(np.linalg.norm(world_bone_tail(obj, "b2") - target)))
    assert max(misses) < TOLERANCE, misses


def test_rigify_generated_limbs_bake_on_their_targets(rigify_metarig: bpy.types.Object) -> None:
    """Generate the rig, animate the left foot and right hand IK controls, Convert Built-in IK,
    Bake to a new action: on playback each converted chain's tip is on its IK target bone."""
    run_op(bpy.ops.pose.rigify_generate)
    rig = bpy.data.objects["rig"]
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, 6
    activate(rig)
    bpy.ops.object.mode_set(mode="POSE")
    for frame in range(1, 7):
        foot, hand = rig.pose.bones["foot_ik.L"], rig.pose.bones["hand_ik.R"]
        foot.matrix_basis = Matrix.Translation((0.0, -0.04 * frame, 0.03 * frame))
        hand.matrix_basis = Matrix.Translation((0.02 * frame, -0.03 * frame, 0.02 * frame))
        foot.keyframe_insert("location", frame=frame)
        hand.keyframe_insert("location", frame=frame)
    run_op(bpy.ops.reach.convert_ik)
    run_op(bpy.ops.reach.bake, target="NEW_ACTION")
    limbs = {
        "MCH-shin_ik.L": "MCH-thigh_ik_target.L",
        "MCH-forearm_ik.R": "MCH-upper_arm_ik_target.R",
    }
    misses = {bone: [] for bone in limbs}
    for frame in range(1, 7):
        scene.frame_set(frame)
        for bone, goal in limbs.items():
            misses[bone].append(
                float(np.linalg.norm(world_bone_tail(rig, bone) - world_bone_head(rig, goal)))
            )
    assert max(max(m) for m in misses.values()) < TOLERANCE, misses
