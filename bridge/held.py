"""Part of the bridge (:mod:`.rig`): bones above the solved chains that Blender's constraints
place, read from Blender's evaluated pose.

The figure composes every bone it carries from its rest offset and its pose channels. A bone
that no solve moves and that has no solved ancestor, but has an enabled constraint of its
own (Rigify's ``MCH-thigh_ik_swing.L`` Damped-Tracks the IK target; a Copy Rotation, a Child
Of, ...), is elsewhere in Blender's pose: the chain hanging from it started in another frame
and Blender's pose missed the goal the model reached. Such a bone is *held*: its segment's
rest transform is the one Blender evaluated, relative to its parent's evaluated pose, so the
model's frame of the bone (and of every bone below it) is Blender's.

That frame is exact while the constraint does not read what the solve moves (the usual case:
a swing bone tracking the IK target); one that does is re-read at every correction pass.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from . import rotations

if TYPE_CHECKING:
    from collections.abc import Container, Sequence

    import bpy


class HeldPose(NamedTuple):
    """Blender's evaluated pose of one held bone, armature units, scale removed.

    Attributes:
        translation: (3,) the bone's head in its parent's evaluated frame (its head in
            armature space for a root bone).
        rotation: (3, 3) the bone's axes in its parent's evaluated frame (in armature space
            for a root bone).
        armature_rotation: (3, 3) the bone's axes in armature space.
    """

    translation: np.ndarray
    rotation: np.ndarray
    armature_rotation: np.ndarray


def constrained(pose_bone: bpy.types.PoseBone) -> bool:
    """``pose_bone`` has a constraint that is on (not muted, influence above 0)."""
    return any(not con.mute and con.influence > 0.0 for con in pose_bone.constraints)


def held_bones(obj: bpy.types.Object, bones: Sequence[str], solved: Container[str]) -> list[str]:
    """The figure bones (``bones``, parents first) that are held: not in ``solved``, no
    ancestor in ``solved``, and :func:`constrained`."""
    moved: set[str] = set()  # bones the solve moves: solved ones and their descendants
    held = []
    for name in bones:
        pb = obj.pose.bones[name]
        if name in solved or (pb.parent is not None and pb.parent.name in moved):
            moved.add(name)
        elif constrained(pb):
            held.append(name)
    return held


def _frame(pose_bone: bpy.types.PoseBone) -> tuple[np.ndarray, np.ndarray]:
    """Head (3,) and unit axes (3, 3) of a pose bone's evaluated armature-space matrix."""
    m = np.array(pose_bone.matrix, dtype=float)
    return m[:3, 3], rotations.orthonormalize(m[:3, :3])


def held_pose(obj: bpy.types.Object, name: str) -> HeldPose:
    """Blender's evaluated pose of bone ``name`` relative to its parent's (see
    :class:`HeldPose`); read from the armature's pose as Blender last evaluated it."""
    pb = obj.pose.bones[name]
    head, axes = _frame(pb)
    if pb.parent is None:
        return HeldPose(head, axes, axes)
    parent_head, parent_axes = _frame(pb.parent)
    translation = parent_axes.T @ (head - parent_head)
    return HeldPose(translation, rotations.orthonormalize(parent_axes.T @ axes), axes)
