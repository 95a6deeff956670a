"""Residuals measured on Blender's own evaluated pose, not on the solver's model.

The solver reports how far its *model* of the rig is from each goal. Blender then evaluates
the written pose with everything the model leaves out (bone constraints, drivers, bones that
do not inherit rotation, pose scale, a target parented to a moving bone ...). A report is
only true when it is measured on that evaluation: :func:`measure` reads the
depsgraph-evaluated bone matrices of the armature and the evaluated world matrix of every
target, and scores them with the solver's own goal reports (same distance and angle
definitions, same tolerances), so "satisfied" means the same thing as in the solver.

Use (a solve, or one frame of a bake)::

    rig.write_pose(channels)            # the solution into the pose bones
    view_layer.update()                 # (or scene.frame_set(frame)) Blender evaluates it
    measured = measure(rig, context.evaluated_depsgraph_get(), tolerance, angle_tolerance)

``bpy`` is used only through the objects passed in.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ...solver.goals import Part
from ..rig.goals import ConstraintSpec
from ..rig.size import float32_resolution

if TYPE_CHECKING:  # annotations only: bpy objects are passed in
    from bpy.types import Depsgraph, Object

    from ..rig.build import Rig


@dataclass(frozen=True)
class Effector:
    """An end-effector as Blender evaluates it, in world space.

    Attributes:
        point: (3,) world position, scene units.
        x, y: (3,) world unit directions of the effector's x / y, or None if unused.
    """

    point: np.ndarray
    x: np.ndarray | None
    y: np.ndarray | None

    def parts(self) -> dict[Part, np.ndarray]:
        """The parts a goal report takes (``Part.POINT``, ``X``, ``Y``), absent ones left out."""
        values = {Part.POINT: self.point, Part.X: self.x, Part.Y: self.y}
        return {k: v for k, v in values.items() if v is not None}


@dataclass(frozen=True)
class MeasuredResidual:
    """One constraint's error on Blender's evaluated pose.

    Attributes:
        name: the constraint's name (a disjunction group's name for a group).
        bone: the bone carrying the end-effector.
        distance: distance to the goal, scene units (None when the goal has no position part).
        angle: angle to the goal, degrees (None when the goal has no direction part).
        satisfied: distance <= tolerance (or <= ``resolution``, when that is larger) and
            angle <= angle tolerance (for a disjunction: some member is).
        effector: the evaluated end-effector, world space.
        goal: index of the disjunction member reported (0 for a single goal).
        resolution: the float32 resolution (scene units) of the positions compared: a
            distance below it is Blender's round-off (:func:`..rig.size.float32_resolution`).
    """

    name: str
    bone: str
    distance: float | None
    angle: float | None
    satisfied: bool
    effector: Effector
    goal: int = 0
    resolution: float = 0.0


def evaluated_bone_matrix(obj: Object, bone: str, depsgraph: Depsgraph) -> np.ndarray:
    """World matrix (4, 4) of a pose bone on the depsgraph-evaluated armature.

    Not normalised: it carries the object's and the pose's scale (a mirrored armature's
    negative scale included), so ``matrix @ (x, y, z, 1)`` with bone-local coordinates in the
    armature's own units is the world position Blender draws.
    """
    evaluated = obj.evaluated_get(depsgraph)
    return np.array(evaluated.matrix_world, dtype=float) @ np.array(
        evaluated.pose.bones[bone].matrix, dtype=float
    )


def effector_at(matrix: np.ndarray, spec: ConstraintSpec, scale: float) -> Effector:
    """The end-effector of ``spec`` on a bone whose evaluated world matrix (4, 4) is
    ``matrix`` (:func:`evaluated_bone_matrix`).

    ``spec.point`` is in scene units (object scale applied), so it is divided by the
    armature's uniform ``scale`` before the (scaled) evaluated bone matrix maps it.
    """
    local = np.ones(4)
    local[:3] = spec.point / scale
    point = (matrix @ local)[:3]

    def direction(axis: np.ndarray | None) -> np.ndarray | None:
        if axis is None:
            return None
        d = matrix[:3, :3] @ axis
        return d / np.linalg.norm(d)

    return Effector(point, direction(spec.x), direction(spec.y))


def measure(
    rig: Rig,
    depsgraph: Depsgraph,
    tolerance: float,
    angle_tolerance: float,
    specs: Sequence[ConstraintSpec] | None = None,
) -> list[MeasuredResidual]:
    """Measure every constraint of ``rig`` on Blender's evaluated pose.

    Call it after the pose is written and Blender has evaluated it (``view_layer.update()``
    or ``scene.frame_set``). Targets are read from their evaluated world matrices, so a
    target parented to a bone the solve moved is measured where it now is. Blender computes
    these positions in single precision: a distance within the float32 resolution of the
    coordinates involved (effector, target, armature origin) counts as within tolerance,
    whatever the tolerance (:func:`..rig.size.float32_resolution`).

    Args:
        rig: a :class:`..rig.build.Rig` (its ``obj``, ``scale``, ``specs`` and goals are used; the
            goals are only read, never retargeted).
        depsgraph: the evaluated depsgraph (``context.evaluated_depsgraph_get()``).
        tolerance: distance tolerance, scene units.
        angle_tolerance: angle tolerance, degrees.
        specs: the constraints to measure; default every one of ``rig.specs``.

    Returns:
        One :class:`MeasuredResidual` per constraint, in ``specs`` order.

    Raises:
        RigError: a target was deleted or has a non-finite / zero-scale transform.
    """
    out = []
    # The evaluated armature and its world matrix once (as evaluated_bone_matrix reads them).
    evaluated = rig.obj.evaluated_get(depsgraph)
    placement = np.array(evaluated.matrix_world, dtype=float)
    bones = evaluated.pose.bones
    for spec in rig.specs if specs is None else specs:
        matrix = placement @ np.array(bones[spec.bone].matrix, dtype=float)
        effector = effector_at(matrix, spec, rig.scale)
        e = effector.parts()
        best = None
        for index, binding in enumerate(spec.bindings):
            goal = binding.solver_goal()
            world = binding.world_values(depsgraph)
            # A goal's geometry parts are the ones its target gives (a suppressed axis is
            # neither), so no part is None here.
            g = {p: v for p in goal.geometry_parts if (v := world[p.attribute]) is not None}
            report = goal.report(e, g)
            target = g.get(Part.GOAL_POINT)
            points = [effector.point, placement[:3, 3]] + ([] if target is None else [target])
            resolution = float32_resolution(*points)  # positions only: directions are unit
            ok = (report.distance is None or report.distance <= max(tolerance, resolution)) and (
                report.angle is None or report.angle <= angle_tolerance
            )
            # A disjunction is met when any member is; else report the closest member
            # (smallest potential, the member the solver minimises). A single goal has
            # nothing to rank.
            potential = goal.potential(e, g) if len(spec.bindings) > 1 else 0.0
            rank = (not ok, potential)
            if best is None or rank < best[0]:
                best = (rank, index, report, ok, resolution)
        assert best is not None, "a constraint spec has at least one binding"
        _rank, index, report, ok, resolution = best
        out.append(
            MeasuredResidual(
                spec.name, spec.bone, report.distance, report.angle, ok, effector, index, resolution
            )
        )
    return out
