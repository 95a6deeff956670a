"""Start a solve where Blender's IK starts a chain with a pole target.

Blender's standard IK does not iterate from the chain's pose: it first turns the whole chain
rigidly about the root head so that the root-tip line points at the IK target and the root's
up vector lies in the pole's half-plane (:mod:`..blender_ik.pole`), and iterates from there.
Reach's pole goals (a plane and a side, made by :mod:`..edit.convert`) have a mirrored
near-solution that a solve from the rest pose falls into when the pole asks for more than a quarter
turn; starting from Blender's own start pose it lands on Blender's branch. :func:`start_at_poles`
sets that start for every converted pole chain of a rig before each solve (and each baked frame):
the chain's channels at rest, the root turned by Blender's rotation.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, cast

import numpy as np

from ...props.access import armature_data
from ...solver.errors import InvalidInputError
from ..blender.channel_rotations import orthonormalize
from ..blender_ik import pole
from ..blender_ik.ik_trees import ik_chain
from ..edit.convert import FRAME_POLE, FRAME_ROOT, FRAME_TARGET

if TYPE_CHECKING:
    import bpy

    from ..rig.build import Rig


def _unit_columns(m: np.ndarray) -> np.ndarray:
    return m / np.linalg.norm(m, axis=0)


def _pole_ik(
    obj: bpy.types.Object, frame: bpy.types.Object
) -> tuple[bpy.types.PoseBone, bpy.types.KinematicConstraint] | None:
    """The (muted) IK constraint whose pole ``frame`` follows, with its bone; None if gone."""
    root = frame.constraints.get(FRAME_ROOT)
    aim = cast("bpy.types.DampedTrackConstraint | None", frame.constraints.get(FRAME_TARGET))
    up = cast("bpy.types.LockedTrackConstraint | None", frame.constraints.get(FRAME_POLE))
    if root is None or aim is None or up is None:
        return None
    for pb in cast("bpy.types.Pose", obj.pose).bones:
        for con in pb.constraints:
            if con.type != "IK":
                continue
            ik = cast("bpy.types.KinematicConstraint", con)
            if (ik.target, ik.subtarget, ik.pole_target, ik.pole_subtarget) == (
                aim.target, aim.subtarget, up.target, up.subtarget
            ):  # fmt: skip
                return pb, ik
    return None


def _root_at_rest(obj: bpy.types.Object, name: str) -> np.ndarray:
    """(4, 4) armature-space matrix of bone ``name`` with its own channels at rest (its
    parent as currently posed)."""
    bones = armature_data(obj).bones
    rest = np.array(bones[name].matrix_local, dtype=float)
    parent = bones[name].parent
    if parent is None:
        return rest
    parent_pose = np.array(obj.pose.bones[parent.name].matrix, dtype=float)
    return parent_pose @ np.linalg.inv(np.array(parent.matrix_local, dtype=float)) @ rest


def blender_start(
    obj: bpy.types.Object, chain: list[str], pole_angle: float, goals: np.ndarray
) -> np.ndarray:
    """Basis rotation (3, 3) of the chain's root (``chain[-1]``) at Blender's IK start.

    Args:
        obj: the armature object.
        chain: the IK chain, tip first.
        pole_angle: the IK constraint's pole angle, radians.
        goals: (3, 3) world look-at frame of the goals (columns: side, up, direction: the
            pole frame empty's X, Z, Y axes).
    """
    bones = armature_data(obj).bones
    root = _root_at_rest(obj, chain[-1])
    tip_rest = np.array([*bones[chain[0]].tail_local, 1.0])
    tip = root @ np.linalg.inv(np.array(bones[chain[-1]].matrix_local, dtype=float)) @ tip_rest
    world = np.array(obj.matrix_world, dtype=float)
    axes = _unit_columns(world[:3, :3])  # orthogonal (a reflection when mirrored)
    r_root = _unit_columns(root[:3, :3])
    r_world = axes @ r_root
    up = r_world[:, 0] * math.cos(pole_angle) + r_world[:, 2] * math.sin(pole_angle)
    chain_frame = pole.look_at(axes @ (tip[:3] - root[:3, 3]), up)
    turn = goals @ chain_frame.T  # Blender's rotation of the chain about the root head
    return orthonormalize(r_root.T @ axes.T @ turn @ axes @ r_root)


def start_at_poles(rig: Rig) -> None:
    """Put every converted pole chain of ``rig`` at Blender's IK start (see the module).

    Chains whose IK constraint is gone, whose bones the rig does not solve, or whose goals
    give no direction (target or pole at the root) keep the start they have.
    """
    obj = rig.obj
    touched = False
    for binding in rig.bindings:
        frame = binding.target.parent
        if binding.item_kind != "PLANE" or frame is None:
            continue
        found = _pole_ik(obj, frame)
        if found is None:
            continue
        chain = [pb.name for pb in ik_chain(*found)]
        if not all(name in rig.solved for name in chain):
            continue
        m = np.array(frame.matrix_world, dtype=float)[:3, :3]
        goals = _unit_columns(m[:, [0, 2, 1]])
        try:
            basis = blender_start(obj, chain, found[1].pole_angle, goals)
        except InvalidInputError:
            continue
        for name in chain:
            rig.pose.turn(name, basis if name == chain[-1] else np.eye(3))
        touched = True
    if touched:
        rig.push_rest()
