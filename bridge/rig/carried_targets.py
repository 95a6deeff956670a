"""Targets carried by a bone of the solved armature: which bone, and at what offset.

A target object that is a child of a bone the solve moves (bone-parented, or parented to an
object that is, at any depth) moves with the chain. Its goal is then *carried* by that bone's
segment (``carrier`` in ``solver.goals``): the goal's point and axes are fixed in the bone's
frame and the solver moves them with the bone.

Blender places an object bone-parented to bone ``B`` of armature ``A`` at (``ob_parbone`` in
Blender's ``object.cc``, checked by the tests on the evaluated scene)::

    world = A.matrix_world @ B.pose_matrix @ Tail(B.length) @ parent_inverse @ basis

where ``Tail(l)`` translates by ``l`` along the bone's Y axis: the child hangs at the bone's
**tail**; an object parented to an object adds ``parent_inverse @ basis`` of its own. The
segment of ``B`` in the model is the bone's frame at its head with unit axes, so the offset of
the target in that frame is::

    offset = K @ Tail(B.length) @ parent_inverse @ basis [@ parent_inverse @ basis ...]

with ``K = F^-1 @ A.matrix_world @ B.pose_matrix`` the bone's scale in its own unit frame
``F``: the armature's uniform scale times the identity when the bone has no pose scale (it is
then taken as exactly that, so the offset does not depend on the pose the bone is in and a
bake is repeatable to the bit). Nothing on this path depends on the solved channels.

The link to the bone may also be a single object constraint on an object without a parent
(Blender's ``childof_evaluate`` and ``copy_transforms`` in ``constraint.cc``), at influence 1
and reading the bone in world space:

* *Child Of* with every channel on (and no inverse still pending): ``world = W_B @ inverse @
  basis``, ``W_B`` the bone's world matrix at its head, so ``offset = K @ inverse @ basis``;
* *Copy Transforms* (mix Replace, world to world, no B-Bone shape): ``world = W_B @
  Tail(head_tail * length)``, so ``offset = K @ Tail(head_tail * length)``.

Not carried (left to the correction passes, and named by :mod:`..measure.diagnose`): any other
enabled constraint on an object on the path (constraints act after parenting, in world
space), a bone with *Relative Parenting* (Blender parents to the bone's local channel
matrix, not its frame), any other parent type between the target and the bone, and a bone
at or below a solved bone with *IK Stretch* (the stretch scales the offset during the solve).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

import numpy as np

from ...props.access import armature_data

if TYPE_CHECKING:
    import bpy

#: Parent types that place a child by the parent object's world matrix alone.
OBJECT_PARENTS = ("OBJECT", "ARMATURE")
#: Relative difference from a uniform scale still taken as uniform (float32 evaluation).
UNIFORM = 1e-5


@dataclass(frozen=True)
class Carry:
    """How a target object hangs off a bone of the solved armature.

    Attributes:
        bone: the armature's bone whose segment carries the goal.
        path: the objects from the one linked to ``bone`` down to the target.
        link: the constraint linking ``path[0]`` to the bone (see :func:`constraint_link`),
            or None when ``path[0]`` is bone-parented.
    """

    bone: str
    path: tuple[bpy.types.Object, ...]
    link: bpy.types.Constraint | None = None


def _enabled_constraints(obj: bpy.types.Object) -> list[bpy.types.Constraint]:
    return [c for c in obj.constraints if not c.mute and c.influence > 0.0]


def _rigid(con: bpy.types.Constraint) -> bool:
    """A Child Of or Copy Transforms that places its owner rigidly on its target bone."""
    if con.type == "CHILD_OF":
        child_of = cast("bpy.types.ChildOfConstraint", con)
        channels = [
            getattr(child_of, f"use_{kind}_{axis}")
            for kind in ("location", "rotation", "scale")
            for axis in "xyz"
        ]
        return all(channels) and not child_of.set_inverse_pending
    if con.type == "COPY_TRANSFORMS":
        copy = cast("bpy.types.CopyTransformsConstraint", con)
        return (
            copy.mix_mode == "REPLACE"
            and copy.target_space == "WORLD"
            and copy.owner_space == "WORLD"
            and not copy.use_bbone_shape
        )
    return False


def constraint_link(arm: bpy.types.Object, obj: bpy.types.Object) -> bpy.types.Constraint | None:
    """The constraint that fixes ``obj`` (an object without a parent) to a bone of ``arm``,
    or None: its only enabled constraint, a full Child Of or a Copy Transforms (see the
    module doc) at influence 1 whose target is a bone of ``arm``."""
    cons = _enabled_constraints(obj)
    if obj.parent is not None or len(cons) != 1:
        return None
    con = cons[0]
    subtarget = getattr(con, "subtarget", "")
    if con.influence != 1.0 or getattr(con, "target", None) != arm or not subtarget:
        return None
    if subtarget not in armature_data(arm).bones or not _rigid(con):
        return None
    return con


def find_carry(
    arm: bpy.types.Object, target: bpy.types.Object, carries: Callable[[str], bool]
) -> Carry | None:
    """The bone carrying ``target``, or None when the solve does not move it rigidly.

    Args:
        arm: the solved armature object.
        target: the constraint's target object (not ``arm`` itself).
        carries: whether a bone of ``arm`` (by name) moves rigidly with the solve, so it
            can carry a goal (the bridge: below a solved bone, no IK Stretch on the way).

    Returns:
        A :class:`Carry` when ``target`` hangs off a carrying bone of ``arm`` through
        parenting, or one Child Of / Copy Transforms (see the module doc); None otherwise
        (static, or not modelled).
    """
    path: list[bpy.types.Object] = []
    child: bpy.types.Object | None = target
    while child is not None:
        path.append(child)
        parent = child.parent
        link = constraint_link(arm, child)
        if link is not None:
            bone = cast("bpy.types.ChildOfConstraint", link).subtarget
            return Carry(bone, tuple(reversed(path)), link) if carries(bone) else None
        if parent is None or _enabled_constraints(child):
            return None
        if parent == arm:
            bone = child.parent_bone
            if child.parent_type != "BONE" or bone not in armature_data(arm).bones:
                return None
            # ``carries`` first, whatever the flag: the bridge notes the bones it is asked
            # about, and a kept session watches their settings (this flag among them).
            if not carries(bone) or armature_data(arm).bones[bone].use_relative_parent:
                return None
            return Carry(bone, tuple(reversed(path)))
        if child.parent_type not in OBJECT_PARENTS:
            return None
        child = parent
    return None


def _bone_scale(arm: bpy.types.Object, bone: str, scale: float) -> np.ndarray:
    """``K`` (3, 3) of the module doc: the posed bone's scale in its own unit frame."""
    m = (
        np.array(arm.matrix_world, dtype=float)[:3, :3]
        @ np.array(arm.pose.bones[bone].matrix, dtype=float)[:3, :3]
    )
    frame = m / np.linalg.norm(m, axis=0)
    k = np.linalg.solve(frame, m)
    uniform = scale * np.eye(3)
    return uniform if np.abs(k - uniform).max() <= UNIFORM * scale else k


def carried_offset(arm: bpy.types.Object, carry: Carry, scale: float) -> np.ndarray:
    """The target's world matrix (4, 4) expressed in the carrying bone's unit frame.

    Args:
        arm: the solved armature object.
        carry: from :func:`find_carry`.
        scale: the armature's uniform world scale (lengths in the frame are scene units).

    Returns:
        ``offset`` of the module doc: translation in scene units, columns 0-2 the target's
        (scaled) axes in the bone's frame.
    """
    length = armature_data(arm).bones[carry.bone].length
    m = np.eye(4)
    m[:3, :3] = _bone_scale(arm, carry.bone, scale)
    first, *rest = carry.path
    link = carry.link
    if link is None:  # bone-parented: at the tail
        m = m @ _tail(length) @ _local(first)
    elif link.type == "CHILD_OF":
        inverse = cast("bpy.types.ChildOfConstraint", link).inverse_matrix
        m = m @ np.array(inverse, dtype=float) @ np.array(first.matrix_basis, dtype=float)
    else:  # Copy Transforms
        m = m @ _tail(cast("bpy.types.CopyTransformsConstraint", link).head_tail * length)
    for obj in rest:
        m = m @ _local(obj)
    return m


def _tail(distance: float) -> np.ndarray:
    """Translation (4, 4) by ``distance`` along the bone's Y axis (armature units)."""
    m = np.eye(4)
    m[1, 3] = distance
    return m


def _local(obj: bpy.types.Object) -> np.ndarray:
    """``parent_inverse @ basis`` (4, 4) of an object: its matrix in its parent's frame."""
    return np.array(obj.matrix_parent_inverse, dtype=float) @ np.array(
        obj.matrix_basis, dtype=float
    )
