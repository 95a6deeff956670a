"""Part of the bridge (:mod:`.build`): the armature object's world transform as the model sees it.

The model's world is described in :mod:`..blender.model_space`: the world itself (reflected for a
mirrored armature) for a rotated, uniformly scaled or mirrored armature, the armature's own
space for one whose world matrix is not a rotation times one scale (a non-uniform scale on the
armature, or on a parent above a rotated child, shears the bones' frames). On such a sheared
armature position, aim, line, plane and half-space goals are exact; a constraint with an
orientation goal, or with a target hanging off one of the armature's bones, is refused before
anything is touched, naming the object whose transform causes the shear.

The figure is built once per solve or bake with the scale of that moment; an armature whose
scale changes later (an animated scale during a bake) stops the bake with a clear error
instead of solving a model of the wrong size.

Column lengths alone miss a shear (``R diag(2, 1, 1) R^T`` with ``R`` turning X onto
``(1, 1, 1)`` has three columns of equal length), so the test is on the Gram matrix
``M^T M`` of the 3x3 part (:func:`..blender.model_space.similarity_scale`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

import numpy as np

from ..blender import channel_rotations
from ..blender.model_space import SHEAR_TOLERANCE, ModelSpace, model_space, similarity_scale
from ..errors import RigError
from ..loops.attach import keeps_orientation, solver_kind

if TYPE_CHECKING:
    import bpy

    from ...props.groups import ReachConstraint
    from .goals import GoalBinding

#: Smallest armature scale (scene units per armature unit) that is not "zero scale".
EPS_SCALE = 1e-9
#: Goal types with an orientation part: not exact on a sheared armature.
ORIENTATION_GOALS = ("ORIENTATION", "POSITION_ORIENTATION")
#: Object frames kept by :func:`object_frame` (all dropped when it is full).
KEPT_FRAMES = 64
_FRAMES: dict[tuple[bytes, float], tuple[np.ndarray, np.ndarray]] = {}


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


def _checked_matrix(obj: bpy.types.Object) -> np.ndarray:
    """``obj.matrix_world`` (4, 4); RigError if not finite or of zero scale."""
    m = np.array(obj.matrix_world, dtype=float)
    if not np.all(np.isfinite(m)):
        raise RigError(f"Armature '{obj.name}' has a non-finite transform")
    if np.linalg.norm(m[:3, :3], axis=0).min() <= EPS_SCALE:
        raise RigError(f"Armature '{obj.name}' has zero scale")
    return m


def _sheared(obj: bpy.types.Object) -> str:
    """The sentence naming how ``obj`` is sheared and by which object."""
    m = np.array(obj.matrix_world, dtype=float)
    source = shear_source(obj)
    singular = ", ".join(f"{v:.4g}" for v in np.linalg.svd(m[:3, :3], compute_uv=False))
    whose = "its own transform" if source == obj else "the transform of its parent object"
    scale = ", ".join(f"{v:.4g}" for v in source.scale)
    return (
        f"Armature '{obj.name}' is scaled non-uniformly or sheared (world scales {singular}) "
        f"by {whose} '{source.name}' (scale {scale})"
    )


def armature_space(obj: bpy.types.Object, items: Iterable[ReachConstraint]) -> ModelSpace:
    """The model's world of armature ``obj`` for the constraint ``items`` to solve.

    Raises:
        RigError: a non-finite or zero-scale world matrix; a sheared armature with an
            orientation goal among ``items`` (naming the constraint and the object that
            shears the armature).
    """
    space = model_space(_checked_matrix(obj))
    if space.sheared:
        for item in items:
            if solver_kind(item) in ORIENTATION_GOALS or keeps_orientation(item):  # welds too
                raise RigError(
                    f"Constraint '{item.name}': {_sheared(obj)}; orientation goals cannot be "
                    "met on it (position, aim, line, plane and half-space goals can): make "
                    "that scale uniform or apply it"
                )
    return space


def check_carried(
    obj: bpy.types.Object, space: ModelSpace, bindings: Iterable[GoalBinding]
) -> None:
    """Refuse a target hanging off a bone of a sheared armature (RigError naming it)."""
    if not space.sheared:
        return
    for binding in bindings:
        if binding.carry is not None:
            raise RigError(
                f"Constraint '{binding.name}': {_sheared(obj)}; its target hangs off bone "
                f"'{binding.carry.bone}', which Reach cannot follow on it: make that scale "
                "uniform or apply it"
            )


def object_frame(obj: bpy.types.Object, scale: float) -> tuple[np.ndarray, np.ndarray]:
    """Translation (3,) and rotation (3, 3) of the armature object (scale removed) in the
    model's world (:mod:`..blender.model_space`; the origin and identity on a sheared armature).

    Every solve and every baked frame asks for it, mostly with the same world matrix, so
    frames are kept by the exact matrix and ``scale`` (:data:`KEPT_FRAMES` at most); their
    arrays are read-only.

    Args:
        obj: the armature object.
        scale: its scale in the model when the figure was built (``ModelSpace.scale``).

    Raises:
        RigError: the armature's scale is no longer ``scale`` (or its matrix is not finite or
            of zero scale).
    """
    m = np.array(obj.matrix_world, dtype=float)
    key = (m.tobytes(), scale)
    kept = _FRAMES.get(key)
    if kept is None:
        if len(_FRAMES) >= KEPT_FRAMES:
            _FRAMES.clear()
        kept = _FRAMES[key] = _object_frame(obj, scale)
    return kept


def _object_frame(obj: bpy.types.Object, scale: float) -> tuple[np.ndarray, np.ndarray]:
    """:func:`object_frame`, computed (read-only arrays)."""
    m = _checked_matrix(obj)
    space = model_space(m)
    if abs(space.scale - scale) > SHEAR_TOLERANCE * scale:
        raise RigError(
            f"Armature '{obj.name}' changed its scale from {scale:.4g} to {space.scale:.4g} "
            "since the solve began; Reach bakes an armature whose scale stays the same: keep "
            "its scale constant over the range or apply it"
        )
    if space.sheared:
        translation, rotation = np.zeros(3), np.eye(3)
    else:
        frame = space.linear @ m[:3]
        translation, rotation = frame[:, 3], channel_rotations.orthonormalize(frame[:, :3] / scale)
    translation.flags.writeable = rotation.flags.writeable = False
    return translation, rotation
