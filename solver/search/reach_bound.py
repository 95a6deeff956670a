"""Goals no pose can meet: a target farther from the figure's root than its chain stretches.

Restarts look for a pose that meets every goal. When a goal is out of reach whatever the
joint values, no restart can find one, and the search only refines a compromise; there it
may stop once the restarts agree (:class:`solver.search.restarts.Agreement`). Anywhere else the
full search stays, since a goal that a run misses may be reachable from another start.

The bound (see :mod:`solver.model.figure`): a segment's joints act after its rest offset, a
revolute turns about the segment's origin and a prismatic joint moves it by at most
``max(|lower|, |upper|)`` along its axis. A point on segment ``s`` is therefore at most

    |point| + sum of |rest translation| over the path's segments below the top one
            + sum of the prismatic extents over the path's segments up to the top one

from the origin of the path's top moving segment: the highest segment on the path from
``s`` to the root that has a joint (``s`` when none has). No joint moves that origin: it
sits at its rest offset from a parent whose every ancestor is jointless, so their rest
transforms place it (a root's rest is world-relative). Measured from the root instead, a
limb of a character (a Blender armature's arm under its spine, whose bones the solve does
not move) stretched by the whole torso: a hand target 1.3 times the arm's length from the
shoulder was not provably out of reach.
Only position parts of goals fixed in the world are bounded (a position goal, the point of
a position/orientation goal with a position weight, a disjunction of such goals).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..goals import Disjunction, PositionGoal, PositionOrientationGoal
from ..model.constraint import Constraint
from ..model.figure import Figure
from ..model.structure import PRISMATIC


def reach(figure: Figure, segment: int, point: np.ndarray) -> tuple[np.ndarray, float]:
    """The origin (3,) of the top moving segment on the path from ``segment`` to the root
    (see the module docstring) and the farthest distance (scene units) from it that
    ``point`` (3,), local to ``segment``, can be at (inf with an unbounded slide)."""
    segments, joints = figure.segments, figure.joints
    path = [segment]
    while segments[path[-1]].parent >= 0:
        path.append(segments[path[-1]].parent)
    top = max((k for k, s in enumerate(path) if segments[s].joints), default=0)
    distance = float(np.linalg.norm(point))
    for s in path[: top + 1]:
        for j in segments[s].joints:
            if joints[j].kind == PRISMATIC:
                distance += max(abs(joints[j].lower), abs(joints[j].upper))
    for s in path[:top]:
        distance += float(np.linalg.norm(segments[s].translation))
    return _rest_origin(figure, path[top:]), distance


def _rest_origin(figure: Figure, path: list[int]) -> np.ndarray:
    """The world origin (3,) of ``path[0]``, whose ancestors are ``path[1:]`` (up to the
    root) and jointless: their rest transforms composed (a segment that does not inherit
    rotation takes its rest rotation as its world rotation)."""
    rotation, origin = np.eye(3), np.zeros(3)
    for s in reversed(path):
        seg = figure.segments[s]
        origin = origin + rotation @ seg.translation
        rotation = rotation @ seg.rotation if seg.inherit_rotation else seg.rotation
    return origin


def _unmeetable(figure: Figure, constraint: Constraint, tolerance: float) -> bool:
    """Whether no pose brings ``constraint``'s effector within ``tolerance`` of its goal."""
    members = constraint.goal.members() if isinstance(constraint.goal, Disjunction) else ()
    goals = members or (constraint.goal,)
    origin, farthest = reach(
        figure, figure.segment_index(constraint.effector.segment), constraint.effector.point
    )
    for goal in goals:
        bounded = isinstance(goal, PositionGoal) or (
            isinstance(goal, PositionOrientationGoal) and goal.position_weight > 0.0
        )
        if not bounded or goal.carrier is not None:
            return False
        target = np.asarray(goal.point, dtype=float)
        if not float(np.linalg.norm(target - origin)) - farthest > tolerance:
            return False
    return True


def out_of_reach(figure: Figure, constraints: Sequence[Constraint], tolerance: float) -> bool:
    """Whether some enabled, weighted constraint is provably out of reach (no pose meets
    every goal); ``tolerance`` is the distance (scene units) a goal counts as met within."""
    return any(
        c.enabled and c.weight > 0.0 and _unmeetable(figure, c, tolerance) for c in constraints
    )
