"""Goals no pose can meet: a target farther from the figure's root than its chain stretches.

Restarts look for a pose that meets every goal. When a goal is out of reach whatever the
joint values, no restart can find one, and the search only refines a compromise; there it
may stop once the restarts agree (:class:`solver.search.restarts.Agreement`). Anywhere else the
full search stays, since a goal that a run misses may be reachable from another start.

The bound (see :mod:`solver.model.figure`): a segment's joints act after its rest offset, a
revolute turns about the segment's origin and a prismatic joint moves it by at most
``max(|lower|, |upper|)`` along its axis. A point on segment ``s`` is therefore at most

    |point| + sum of |rest translation| over the path's segments below the root
            + sum of the prismatic extents over the path's segments

from the root segment's origin, which no joint moves (a root's rest is world-relative).
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
    """The root origin (3,) above ``segment`` and the farthest distance (scene units) from it
    that ``point`` (3,), local to ``segment``, can be at (inf with an unbounded slide)."""
    segments, joints = figure.segments, figure.joints
    distance = float(np.linalg.norm(point))
    s = segment
    while True:
        for j in segments[s].joints:
            if joints[j].kind == PRISMATIC:
                distance += max(abs(joints[j].lower), abs(joints[j].upper))
        if segments[s].parent < 0:
            return segments[s].translation, distance
        distance += float(np.linalg.norm(segments[s].translation))
        s = segments[s].parent


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
