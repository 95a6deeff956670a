"""Pose scale and the *Inherit Scale* modes, folded into the rigid figure where that is exact.

The figure is rigid: a segment has a rotation and an origin, no scale. Blender's pose matrix
of a bone (``BKE_bone_parent_transform_calc_from_matrices`` composed with the bone's own
``matrix_basis``) is modelled as the segment's rigid frame times a constant diagonal scale,

    pose_matrix[:3, :3] = frame_rotation @ diag(scale),

with ``scale`` (3,) along the bone's own X, Y, Z axes. Scale is never solved, so it is folded
into lengths: a child's rest offset (in the parent's bone space) is multiplied by the parent's
``scale`` (Blender places a child's head with the parent's full pose matrix, whatever the
mode), and an end-effector point on the bone by the bone's own ``scale``. Directions along the
bone's axes are unchanged by a diagonal scale.

With ``s`` the bone's pose scale and ``a`` its parent's ``scale`` (a bone's ``scale`` is ``s``
times what it inherits), Blender 4.2 and 5.0 give, checked on the evaluated pose matrices:

=============  ==========================  ==========================================
mode           inherits rotation           does not inherit rotation
=============  ==========================  ==========================================
FULL           ``a`` if uniform            ``a`` if uniform (parent's column lengths)
FIX_SHEAR      ``a`` if uniform            ``a`` if uniform
ALIGNED        ``a`` per axis (exact)      ``a`` per axis (exact)
AVERAGE        ``cbrt(|a_x a_y a_z|)``     ``cbrt(|a_x a_y a_z|)``
NONE           1                           1
NONE_LEGACY    1                           1
=============  ==========================  ==========================================

ALIGNED applies the parent's scale along the child's own final axes (Blender's
``post_scale``), so it is diagonal whatever the child's rotation. What cannot be expressed:
FULL or FIX_SHEAR under a parent with non-uniform scale (the parent's scale is applied before
the child's rotation, so the child shears as it turns; the bone then takes none of its
parent's scale, its head is still placed exactly), a negative or zero pose scale (its size is
used), and a bone that slides (root translation) or stretches (IK Stretch) under a scaled
parent. The bone, and everything below it, is named so the correction passes and the report
can say why the model and Blender's pose disagree. The scale an IK Stretch writes is solved
by :mod:`.stretch` and taken as 1 here.
"""

from __future__ import annotations

from collections.abc import Container, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ...props.access import armature_data

if TYPE_CHECKING:
    import bpy

#: Relative spread of three scale factors still taken as one scale: float32 noise. Pose
#: scales come from float32 matrices an importer decomposed (glTF's (1, 0.99999988,
#: 0.9999971) is 24 float32 epsilons wide); 64 epsilons (7.6e-6) take such noise as uniform,
#: and a real non-uniform scale (1e-4 and up) is still named. Taking the noise as uniform
#: moves a child by at most that fraction of its distance from the parent, which the report,
#: measured on Blender's pose, still sees.
UNIFORM = 64 * float(np.finfo(np.float32).eps)


@dataclass(frozen=True)
class BoneScale:
    """A bone's pose matrix as its segment's rigid frame times ``diag(scale)``.

    Attributes:
        scale: (3,) factors along the bone's own X, Y, Z axes (unitless).
        reason: empty when the split is exact; otherwise what the model cannot express,
            naming the bone at fault (said in notes and by :mod:`..measure.diagnose`).
    """

    scale: np.ndarray
    reason: str = ""


def _uniform(a: np.ndarray) -> bool:
    return float(a.max() - a.min()) <= UNIFORM * float(np.abs(a).max())


def _inherited(mode: str, a: np.ndarray) -> np.ndarray | None:
    """The factor (3,) a bone takes from its parent's ``scale`` ``a``; None if not diagonal."""
    if mode in ("NONE", "NONE_LEGACY"):
        return np.ones(3)
    if mode == "AVERAGE":
        return np.full(3, float(np.cbrt(abs(np.prod(a)))))
    if mode == "ALIGNED":
        return a.copy()
    return np.full(3, float(a[0])) if _uniform(a) else None  # FULL, FIX_SHEAR


def bone_scales(
    obj: bpy.types.Object,
    names: Sequence[str],
    sliding: Container[str] = (),
    written: Container[str] = (),
) -> dict[str, BoneScale]:
    """:class:`BoneScale` of every bone in ``names`` (parents before children, each bone's
    parent included), from the current pose scale and the bones' inherit settings.

    Args:
        obj: the armature object.
        names: bone names, parents first (the figure's bones).
        sliding: bones with location DOFs in the solve.
        written: bones whose scale the solve writes (IK Stretch, :mod:`.stretch`, which
            models it with its own DOFs): taken as unscaled here.
    """
    bones = armature_data(obj).bones
    out: dict[str, BoneScale] = {}
    for name in names:
        bone = bones[name]
        own = np.array(obj.pose.bones[name].scale, dtype=float)
        if name in written:
            own = np.ones(3)
        reason = ""
        if own.min() <= 0.0:
            reason = f"bone '{name}' has a negative or zero pose scale (not modelled)"
            own = np.maximum(np.abs(own), 1e-9)
        if bone.parent is None:
            out[name] = BoneScale(own, reason)
            continue
        parent = out[bone.parent.name]
        factor = _inherited(bone.inherit_scale, parent.scale)
        if factor is None:
            factor = np.ones(3)
            reason = reason or (
                f"bone '{name}' inherits the non-uniform scale of '{bone.parent.name}' "
                f"({bone.inherit_scale}): it shears as the bone turns (not modelled)"
            )
        if (name in sliding or name in written) and np.abs(parent.scale - 1.0).max() > UNIFORM:
            reason = reason or (
                f"bone '{name}' slides or stretches under the scaled bone '{bone.parent.name}' "
                "(not modelled)"
            )
        out[name] = BoneScale(own * factor, parent.reason or reason)
    return out


def scale_reason(obj: bpy.types.Object, name: str) -> str:
    """Why the model's scale of bone ``name`` is not Blender's ("" when it is exact)."""
    chain = []
    bone = armature_data(obj).bones[name]
    while bone is not None:
        chain.append(bone.name)
        bone = bone.parent
    return bone_scales(obj, chain[::-1])[name].reason
