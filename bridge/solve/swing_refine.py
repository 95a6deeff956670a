"""Solves that refine the swing polygon where they stop on it (pure numpy, no ``bpy``).

A bone's IK limits are Blender's ellipse, which the figure holds as an inscribed polygon
(:mod:`..blender_ik.ik_limits`, within :data:`..blender_ik.ik_limits.POLYGON_TOLERANCE` of the
ellipse). Where a solve stops on a polygon row, the pose misses what Blender's IK reaches on the
ellipse by that gap. :func:`solve_refined` then replaces the polygon of each bone held by one of its
rows by one refined around the bone's swing (:data:`..blender_ik.ik_limits.FOCUS_TIERS`; near it the
ellipse is at most 2e-7 rad outside the vertices' polygon, plus the inward margin that keeps
it inside in Blender's single precision: below 1e-5 rad measured) and solves again from the
pose it stopped at, at most
:data:`PASSES` times. Every polygon stays inscribed, so every pose is still inside Blender's
limits; the figure keeps the refined rows until the next refinement.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterable
from typing import TYPE_CHECKING

import numpy as np

from ..blender_ik import ik_limits

if TYPE_CHECKING:
    from ... import solver
    from ..rig.joints import SolvedBone

#: Refinements (each a re-solve) after the first solve, at most.
PASSES = 3
#: A refinement stops once every held bone's swing stays this close (radians, ``(a, b)``)
#: to the point its polygon was refined around: the finest tier covers it.
SETTLED = 0.5 * min(radius for radius, _gap in ik_limits.FOCUS_TIERS)
#: A refined solve starts with the held swings scaled by ``1 - INWARD`` towards the rest
#: pose: strictly inside the refined polygon rather than projected onto its fine edges,
#: where the first step found no descent.
INWARD = 1e-3


def _held(result: solver.IKResult, bones: list[SolvedBone]) -> list[SolvedBone]:
    """The bones whose swing polygon has a row in ``result``'s active set."""
    labels = [label for label in result.active_set]
    held = []
    for bone in bones:
        prefix = ik_limits.polygon_label(bone.name) + " "
        if any(label.startswith(prefix) for label in labels):
            held.append(bone)
    return held


def _swing(fig: solver.Figure, bone: SolvedBone, x: np.ndarray) -> np.ndarray:
    """The bone's swing parameters ``(a, b)`` (radians) in coordinates ``x``."""
    names = fig.coordinate_names
    return np.array([x[names.index(bone.coordinates[0])], x[names.index(bone.coordinates[1])]])


def refine(fig: solver.Figure, bone: SolvedBone, focus: np.ndarray) -> int:
    """Replace ``bone``'s polygon rows in ``fig`` by the polygon refined around ``focus``.

    Args:
        fig: the rig's figure.
        bone: a solved bone whose plan has polygon rows (``segment.limits`` set).
        focus: (2,) the swing ``(a, b)`` to refine around, radians.
    Returns:
        The number of rows of the refined polygon.
    """
    plan = bone.segment
    assert plan is not None and plan.limits is not None
    rows, rhs = ik_limits.swing_polygon(plan.limits, focus=focus)
    rows = np.hstack([rows, np.zeros((len(rows), len(plan.lower) - 2))])  # the twist: free
    fig.remove_linear_constraints(ik_limits.polygon_label(bone.name))
    joints = [joint for _axis, joint in bone.rotation_joints]
    ik_limits.add_polygon_rows(fig, bone.name, plan, joints, rows, rhs)
    return len(rows)


def solve_refined(
    ik: solver.Solver,
    solved: Iterable[SolvedBone],
    start: np.ndarray,
    options: solver.Options | None = None,
) -> solver.IKResult:
    """``ik.solve(start)`` with ``options`` (None: ``ik.options``), then refinements where a
    swing polygon holds the pose.

    Runs only when a goal is missed and a polygon row is active (elsewhere the polygon's gap
    does not show). Each pass refines the held bones' polygons around their swings and solves
    again from the last pose without restarts; the pose with the lower objective is kept.
    Under a step bound (``options.max_change``, a smooth bake) a pass solves again from ``start``
    itself, so the bound stays around the frame's start rather than moving with each pass.

    Returns:
        The result kept, with ``nit`` and ``time`` counting every pass.
    """
    clock = time.perf_counter()
    bones = [b for b in solved if b.segment is not None and b.segment.limits is not None]
    options = ik.options if options is None else options
    first = np.array(start, dtype=float)
    best = ik.solve(first, options=options)
    if not bones:
        return best
    nit = best.nit
    centres: dict[str, np.ndarray] = {}
    refining = options.replace(restarts=0)
    for _ in range(PASSES):
        if best.success:
            break
        held = _held(best, bones)
        moved = [
            b for b in held
            if b.name not in centres
            or np.hypot(*(_swing(ik.figure, b, best.x) - centres[b.name])) > SETTLED
        ]  # fmt: skip
        if not moved:
            break
        again_from = best.x.copy() if options.max_change is None else first.copy()
        for bone in moved:
            centres[bone.name] = _swing(ik.figure, bone, best.x)
            refine(ik.figure, bone, centres[bone.name])
            if options.max_change is None:  # off the boundary, towards the rest pose
                for name in bone.coordinates[:2]:
                    again_from[ik.figure.coordinate_names.index(name)] *= 1.0 - INWARD
        again = ik.solve(again_from, options=refining)
        nit += again.nit
        if again.fun <= best.fun:
            best = again
    return dataclasses.replace(best, nit=nit, time=time.perf_counter() - clock)
