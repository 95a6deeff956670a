"""A bake's residuals on Blender's pose, read frame by frame and scored at once.

The measuring steps of a bake (:class:`..bake.baking.BakeJob`) play each frame back and score
every constraint on Blender's evaluated pose (:func:`.residuals.measure`): a few dozen
small computations per constraint and frame. For a rig whose constraints each have one
position or aim goal (the demo's kind), :class:`BulkMeasure` only *reads* at each frame what
that scoring reads (the evaluated armature's world matrix, each effector bone's evaluated
matrix, each target object's evaluated matrix, a Target Bone's point as
:meth:`..rig.goals.GoalBinding.world_values` gives it), then scores all frames at once
with the same definitions: the distance of a position goal, the angle of an aim, a distance
within the float32 resolution of the positions compared counting as met
(:func:`..rig.size.float32_resolution`). Other goals are measured by
:func:`.residuals.measure` frame by frame (:func:`covers` says which).

``bpy`` is used only through the objects passed in.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from ... import solver
from ..rig.size import FLOAT32_EPSILON, FLOAT32_ROUNDINGS

if TYPE_CHECKING:
    from bpy.types import Depsgraph
    from mathutils import Matrix

    from ..rig.build import Rig
    from ..rig.goals import GoalBinding


def covers(rig: Rig) -> bool:
    """Whether every constraint of ``rig`` has one goal, a position or an aim, in the world."""
    return all(
        len(spec.bindings) == 1
        and isinstance(spec.bindings[0].goal, solver.PositionGoal | solver.AimGoal)
        and spec.bindings[0].carrier is None
        for spec in rig.specs
    )


def _matrix(binding: GoalBinding, depsgraph: Depsgraph) -> np.ndarray | Matrix:
    """The evaluated world matrix (4, 4) of ``binding``'s target object, or for a Target Bone
    the translation to its point (:meth:`..rig.goals.GoalBinding.world_values`, its errors);
    a deleted target raises what that reading raises."""
    if not binding.target_bone:
        try:
            return binding.target.evaluated_get(depsgraph).matrix_world
        except ReferenceError:  # deleted: the reading below names it
            pass
    out = np.eye(4)
    point = binding.world_values(depsgraph)["point"]
    assert point is not None, "a position or aim goal has a point"
    out[:3, 3] = point
    return out


def check_matrices(bindings: Sequence[GoalBinding], matrices: np.ndarray) -> None:
    """RigError naming the first binding whose target matrix (of ``matrices`` (F, K, 4, 4),
    one column per binding) is not finite or of zero scale at some frame, as the reading of
    the target refuses it (:meth:`..rig.goals.GoalBinding.target_frame`)."""
    m = matrices[:, :, :3, :3]
    with np.errstate(invalid="ignore", over="ignore"):
        norms = np.sqrt(m[:, :, 0] ** 2 + m[:, :, 1] ** 2 + m[:, :, 2] ** 2).min(axis=2)
    bad = ~np.isfinite(matrices).all(axis=(2, 3)) | ~(norms > 1e-12)  # (F, K)
    if bad.any():
        frame, k = (int(v) for v in np.argwhere(bad)[0])
        binding = bindings[k]
        raise binding.error(
            f"Constraint '{binding.name}': target '{binding.target.name}' has a non-finite "
            f"(NaN) transform or zero scale at the {frame + 1}-th measured frame"
        )


class BulkMeasure:
    """The readings of a bake's measuring steps, scored when all are read.

    Args:
        rig: the rig baked (:func:`covers` it).
        count: the number of frames to read.
    """

    def __init__(self, rig: Rig, count: int) -> None:
        self.rig = rig
        specs = rig.specs
        self.placement = np.zeros((count, 4, 4))
        self.bones = np.zeros((count, len(specs), 4, 4))
        self.targets = np.zeros((count, len(specs), 4, 4))  # world matrices (or points)
        self.reads = [(spec.bone, spec.bindings[0]) for spec in specs]  # what read reads

    def read(self, index: int, depsgraph: Depsgraph) -> None:
        """Read frame ``index`` (the ``index``-th measured) as Blender evaluated it.

        Raises:
            RigError: a target was deleted (a non-finite / zero-scale one: :meth:`worst`).
        """
        evaluated = self.rig.obj.evaluated_get(depsgraph)
        # numpy reads a Matrix as rows (its float32 values exactly), without a copy between
        self.placement[index] = evaluated.matrix_world  # pyright: ignore[reportCallIssue, reportArgumentType]
        bones = evaluated.pose.bones
        for k, (bone, binding) in enumerate(self.reads):
            self.bones[index, k] = bones[bone].matrix  # pyright: ignore[reportCallIssue, reportArgumentType]
            self.targets[index, k] = _matrix(binding, depsgraph)  # pyright: ignore[reportCallIssue, reportArgumentType]

    def worst(
        self, tolerance: float, angle_tolerance: float
    ) -> dict[str, tuple[float | None, float | None, bool]]:
        """Score every frame read: per constraint, the worst distance (None for an aim), the
        worst angle (None for a position) and whether every frame met it (as
        :func:`..bake.worst.fold` folds :func:`.residuals.measure`'s residuals).

        Raises:
            RigError: a target's matrix was not finite or of zero scale at a frame read.
        """
        rig = self.rig
        check_matrices([spec.bindings[0] for spec in rig.specs], self.targets)
        worst: dict[str, tuple[float | None, float | None, bool]] = {}
        origin = np.abs(self.placement[:, :3, 3]).max(axis=1)
        for k, spec in enumerate(rig.specs):
            matrix = self.placement @ self.bones[:, k]  # (F, 4, 4)
            local = np.append(spec.point / rig.scale, 1.0)
            point = (matrix @ local)[:, :3]
            target = self.targets[:, k, :3, 3]
            goal = spec.bindings[0].goal
            if isinstance(goal, solver.AimGoal):
                assert spec.x is not None, "an aim has an aimed axis"
                x = matrix[:, :3, :3] @ spec.x
                x /= np.linalg.norm(x, axis=1, keepdims=True)
                d = target - point
                u = d / np.maximum(np.linalg.norm(d, axis=1, keepdims=True), 1e-9)
                apart, along = np.linalg.norm(u - x, axis=1), np.linalg.norm(u + x, axis=1)
                angle = np.degrees(2.0 * np.arctan2(apart, along))
                distance = None
                ok = angle <= angle_tolerance
            else:
                distance = np.linalg.norm(point - target, axis=1)
                magnitude = np.maximum(
                    np.maximum(np.abs(point).max(axis=1), origin), np.abs(target).max(axis=1)
                )
                resolution = FLOAT32_ROUNDINGS * FLOAT32_EPSILON * magnitude
                angle = None
                ok = distance <= np.maximum(tolerance, resolution)
            worst[spec.name] = (
                None if distance is None else float(distance.max()),
                None if angle is None else float(angle.max()),
                bool(ok.all()),
            )
        return worst


__all__ = ["BulkMeasure", "covers"]
