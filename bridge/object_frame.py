"""Part of the bridge (:mod:`.rig`): the armature object's world transform as the model sees it.

The figure is built in world space from rotations and one uniform scale (reflected for a
mirrored armature, see :func:`.rig_goals.model_mirror`). An armature whose world matrix is not
a rotation (or a reflection) times one scale cannot be modelled that way: a non-uniform scale
on the armature, or on a parent above a rotated child, shears the bones' frames. Such an
armature is refused before anything is touched, naming the object whose transform causes it.

The figure is built once per solve or bake with the scale of that moment; an armature whose
scale changes later (an animated scale during a bake, a parent scaled non-uniformly from some
frame on) stops the bake with a clear error instead of solving a model of the wrong size.

Column lengths alone miss a shear (``R diag(2, 1, 1) R^T`` with ``R`` turning X onto
``(1, 1, 1)`` has three columns of equal length), so the test is on the Gram matrix
``M^T M`` of the 3x3 part, which equals ``s^2 I`` exactly for a rotation or reflection times
the scale ``s``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from . import rotations
from .rig_goals import model_mirror
from .rig_joints import RigError

if TYPE_CHECKING:
    import bpy

#: Smallest armature scale (scene units per armature unit) that is not "zero scale".
EPS_SCALE = 1e-9
#: Relative departure of ``M^T M`` from ``s^2 I`` (Frobenius norm over ``s^2``) tolerated as
#: round-off of Blender's single-precision matrices.
SHEAR_TOLERANCE = 1e-5


def similarity_scale(matrix: np.ndarray) -> float | None:
    """The scale ``s`` when the (3, 3) ``matrix`` is a rotation or reflection times ``s``
    (``M^T M = s^2 I`` within :data:`SHEAR_TOLERANCE`), else None."""
    m = np.asarray(matrix, dtype=float)[:3, :3]
    gram = m.T @ m
    s2 = float(np.trace(gram)) / 3.0
    if s2 <= 0.0 or np.linalg.norm(gram - s2 * np.eye(3)) > SHEAR_TOLERANCE * s2:
        return None
    return float(np.sqrt(s2))


def shear_source(obj: bpy.types.Object) -> bpy.types.Object:
    """The object whose transform first makes ``obj``'s world matrix non-similar: the
    topmost object in ``obj``'s parent chain (``obj`` included) whose own world matrix is
    not a rotation times one scale; ``obj`` itself when none is (a parent inverse matrix or
    an object constraint shears it)."""
    chain = []
    current: bpy.types.Object | None = obj
    while current is not None:
        chain.append(current)
        current = current.parent
    for candidate in reversed(chain):
        if similarity_scale(np.array(candidate.matrix_world, dtype=float)) is None:
            return candidate
    return obj


def _scale_text(obj: bpy.types.Object) -> str:
    return ", ".join(f"{v:.4g}" for v in obj.scale)


def object_scale(obj: bpy.types.Object) -> float:
    """Uniform world scale (> 0) of an armature object, for a rotated, uniformly scaled or
    mirrored armature.

    Raises:
        RigError: a non-finite or zero-scale world matrix, or one that is not a rotation
            (or reflection) times one scale; the message names the object that shears it.
    """
    m = np.array(obj.matrix_world, dtype=float)
    if not np.all(np.isfinite(m)):
        raise RigError(f"Armature '{obj.name}' has a non-finite transform")
    if np.linalg.norm(m[:3, :3], axis=0).min() <= EPS_SCALE:
        raise RigError(f"Armature '{obj.name}' has zero scale")
    scale = similarity_scale(m)
    if scale is not None:
        return scale
    source = shear_source(obj)
    singular = ", ".join(f"{v:.4g}" for v in np.linalg.svd(m[:3, :3], compute_uv=False))
    whose = "its own transform" if source == obj else "the transform of its parent object"
    raise RigError(
        f"Armature '{obj.name}' is scaled non-uniformly or sheared (world scales {singular}) "
        f"by {whose} '{source.name}' (scale {_scale_text(source)}); Reach models rotated, "
        "uniformly scaled and mirrored armatures only: make that scale uniform or apply it"
    )


def object_frame(obj: bpy.types.Object, scale: float) -> tuple[np.ndarray, np.ndarray]:
    """Translation (3,) and rotation (3, 3) of the armature object (scale removed) in the
    model's world (reflected for a mirrored armature, see :func:`.rig_goals.model_mirror`).

    Args:
        obj: the armature object.
        scale: its uniform world scale when the figure was built (:func:`object_scale`).

    Raises:
        RigError: the armature is sheared now, or its scale is no longer ``scale``.
    """
    current = object_scale(obj)
    if abs(current - scale) > SHEAR_TOLERANCE * scale:
        raise RigError(
            f"Armature '{obj.name}' changed its scale from {scale:.4g} to {current:.4g} since "
            "the solve began; Reach bakes an armature whose scale stays the same: keep its "
            "scale constant over the range or apply it"
        )
    m = np.array(obj.matrix_world, dtype=float)
    mirror = model_mirror(obj)
    if mirror is not None:
        m[:3] = mirror @ m[:3]
    return m[:3, 3], rotations.orthonormalize(m[:3, :3] / scale)
