"""Bones the solve does not move but Blender's constraints place: their evaluated pose as
pose channels.

The figure composes every bone from its parent, its rest offset and its pose channels (see
:mod:`.build`). A bone constraint on a bone the solve does not move (Rigify turns the bone above
each IK chain with a Damped Track towards the foot's target) puts that bone where its channels
do not say; a chain below it then starts from the wrong place, and a bake, which runs no
correction pass, misses on playback (0.24 units on a Rigify leg). For such a bone the rotation
and location are read from the pose Blender evaluated instead, as the basis that gives it:
``basis = offset^-1 @ parent_pose^-1 @ pose`` (armature space; ``offset`` is the rest offset
from the parent, for a root bone its rest matrix). Bones that do not inherit their parent's
rotation keep their channels (their rest is composed differently).
"""

from __future__ import annotations

from collections.abc import Container, Iterable
from typing import TYPE_CHECKING

import numpy as np

from ...props.access import armature_data

if TYPE_CHECKING:
    import bpy


def constrained_still_bones(
    obj: bpy.types.Object, names: Iterable[str], solved: Container[str]
) -> list[str]:
    """The bones of ``names`` (parents first) that no bone of ``solved`` moves and that carry
    an enabled bone constraint (not muted, influence above 0), parents first."""
    return constrained(obj, still_bones(obj, names, solved))


def still_bones(obj: bpy.types.Object, names: Iterable[str], solved: Container[str]) -> list[str]:
    """The bones of ``names`` (in order) that inherit rotation (or are roots) and that no
    bone of ``solved`` moves: edit-mode facts, which a built rig keeps."""
    bones = armature_data(obj).bones
    out = []
    for name in names:
        bone = bones[name]
        if not bone.use_inherit_rotation and bone.parent is not None:
            continue
        above = bone
        while above is not None and above.name not in solved:
            above = above.parent
        if above is None:
            out.append(name)
    return out


def constrained(obj: bpy.types.Object, names: Iterable[str]) -> list[str]:
    """The bones of ``names`` (in order) with an enabled bone constraint (not muted,
    influence above 0): read at every call, as a constraint's influence may be animated."""
    pose = obj.pose.bones
    return [
        name
        for name in names
        if any(not c.mute and c.influence > 0.0 for c in pose[name].constraints)
    ]


class StillBone:
    """A bone the solve does not move that Blender's constraints place: its pose channels
    from the pose Blender evaluated (:meth:`basis`).

    Keeps what it reads of the rest (edit-mode data, fixed while the built rig is used: the
    key of a kept session holds it) and its last answer, given again while the bone's and its
    parent's evaluated matrices are bit for bit the same (a drag moves a few such bones of
    Rigify's 24; the others need no inverse and no SVD at every update).
    """

    def __init__(self, obj: bpy.types.Object, name: str) -> None:
        bone = armature_data(obj).bones[name]
        self.name = name
        self.rest = np.array(bone.matrix_local, dtype=float)  # (4, 4) armature space
        self.parent: str | None = None
        self.parent_rest_inverse: np.ndarray | None = None  # (4, 4)
        if bone.parent is not None:
            self.parent = bone.parent.name
            self.parent_rest_inverse = np.linalg.inv(
                np.array(bone.parent.matrix_local, dtype=float)
            )
        self._last: tuple[bytes, np.ndarray, np.ndarray] | None = None

    def basis(self, obj: bpy.types.Object) -> tuple[np.ndarray, np.ndarray]:
        """Rotation (3, 3) and location (3,) (armature units) that, as the bone's pose
        channels, give the pose matrix Blender last evaluated for it (scale removed)."""
        pose_bones = obj.pose.bones
        pose = np.array(pose_bones[self.name].matrix, dtype=float)
        seen = pose.tobytes()
        parent_pose = None
        if self.parent is not None:
            parent_pose = np.array(pose_bones[self.parent].matrix, dtype=float)
            seen += parent_pose.tobytes()
        if self._last is None or self._last[0] != seen:
            if parent_pose is None:
                frame = self.rest
            else:
                frame = parent_pose @ self.parent_rest_inverse @ self.rest
            basis = np.linalg.inv(frame) @ pose
            u, _s, vt = np.linalg.svd(basis[:3, :3])  # the nearest rotation: drops scale, noise
            rotation = u @ vt
            if np.linalg.det(rotation) < 0.0:
                rotation = u @ np.diag([1.0, 1.0, -1.0]) @ vt
            self._last = (seen, rotation, basis[:3, 3].copy())
        return self._last[1].copy(), self._last[2].copy()


def evaluated_basis(obj: bpy.types.Object, name: str) -> tuple[np.ndarray, np.ndarray]:
    """:meth:`StillBone.basis` of bone ``name``, read afresh."""
    return StillBone(obj, name).basis(obj)
