"""How far a chain's end-effector can be from the chain's top pivot, its hinges' limits counted.

The chain's span (the sum of its links) bounds that distance, but a hinge that cannot
straighten (the metarig's elbow: its rest is bent about 21 degrees and its limit only bends it
further) keeps the effector well inside it: a shell of samples a solve can never reach, which
the envelope would otherwise solve one by one to learn so (456 of the metarig arm's 10,144
samples at resolution 28, each about 40 ms). :func:`farthest` is a proof, not an estimate:
no joint values within the limits put the point farther than it says.

How: the set of places the point can take is followed up the chain from its segment to the
top one, in each segment's frame (``T_s = T_parent @ Rest_s @ M_1(q_1) @ ... @ M_k(q_k)``,
:mod:`solver.model.figure`), as an :class:`_Arc` (the points within a radius of an arc of a circle)
together with a bound on its distance from the frame's origin:

* a joint the solves do not move, and a segment's rest, move the set rigidly;
* a turn by a moving revolute joint within finite limits sweeps a point of the set along an
  arc (exact for a point; a set that already is an arc is first enclosed in a ball);
* a free turn (no limits, a joint group, a range of a full turn) does the same over the whole
  circle; no turn changes the distance from the origin it turns about;
* a segment that does not inherit its parent's rotation, and anything not covered, fall back
  to the triangle inequality (the span's own rule).

For a chain of free ball joints and limited hinges (the metarig arm) the bound is the true
farthest distance: the elbow's arc is kept exact up to the shoulder, whose free turn points it
anywhere. Sliding joints that move are not bounded here (the envelope does not call it then).

A goal that holds an orientation (*Require Orientation*) fixes the effector segment's
rotation, so its point sits at a known offset from the segment's origin (:func:`held_offset`,
within a slack the angle tolerance leaves): the origin's own farthest distance, from the
sample less that offset, then decides (the wrist's reach, not the hand's).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ... import solver
from ...solver.model.figure import Figure
from ...solver.model.structure import PRISMATIC, Joint

#: A spoke shorter than this (scene units) makes an arc a point.
_POINT = 1e-12


@dataclass(frozen=True)
class _Arc:
    """The points within ``radius`` of ``centre + Rot(axis, t) @ spoke`` for ``t`` in
    [``low``, ``high``] (radians); ``spoke`` (3,) is perpendicular to the unit ``axis`` (3,),
    ``centre`` (3,) in scene units. A zero spoke is a ball around ``centre``."""

    centre: np.ndarray
    axis: np.ndarray
    spoke: np.ndarray
    low: float
    high: float
    radius: float

    @staticmethod
    def ball(centre: np.ndarray, radius: float) -> _Arc:
        """The ball of ``radius`` around ``centre`` (3,)."""
        return _Arc(centre, np.array([0.0, 0.0, 1.0]), np.zeros(3), 0.0, 0.0, radius)

    @property
    def is_ball(self) -> bool:
        """Whether the arc is a single point (the set a ball)."""
        return float(np.linalg.norm(self.spoke)) <= _POINT

    def moved(self, rotation: np.ndarray, translation: np.ndarray) -> _Arc:
        """The set after ``p -> rotation @ p + translation``."""
        return _Arc(
            rotation @ self.centre + translation, rotation @ self.axis, rotation @ self.spoke,
            self.low, self.high, self.radius,
        )  # fmt: skip

    def farthest(self) -> float:
        """The largest distance of the set from the origin."""
        if self.is_ball:
            return float(np.linalg.norm(self.centre)) + self.radius
        # |c + Rot(t) u|^2 = |c|^2 + |u|^2 + 2 (a cos t + b sin t), u and n x u orthogonal.
        a = float(self.centre @ self.spoke)
        b = float(self.centre @ np.cross(self.axis, self.spoke))
        if self.high - self.low >= 2.0 * math.pi:
            wave = math.hypot(a, b)
        else:
            turns = [self.low, self.high]
            peak = math.atan2(b, a)
            turns += [
                peak + 2.0 * math.pi * k
                for k in range(-2, 3)
                if self.low <= peak + 2.0 * math.pi * k <= self.high
            ]
            wave = max(a * math.cos(t) + b * math.sin(t) for t in turns)
        square = float(self.centre @ self.centre + self.spoke @ self.spoke) + 2.0 * wave
        return math.sqrt(max(square, 0.0)) + self.radius

    def enclosed(self) -> _Arc:
        """A ball holding the set: around the middle of a short arc's chord, else around the
        circle's centre."""
        if self.is_ball:
            return self
        half = 0.5 * (self.high - self.low)
        middle = _rotation(self.axis, 0.5 * (self.low + self.high)) @ self.spoke
        length = float(np.linalg.norm(self.spoke))
        if half <= 0.5 * math.pi:
            centre = self.centre + math.cos(half) * middle
            return _Arc.ball(centre, self.radius + length * math.sin(half))
        return _Arc.ball(self.centre, self.radius + length)

    def turned(self, axis: np.ndarray, low: float, high: float, bound: float) -> _Arc:
        """The set swept by turns about the unit ``axis`` (3,) through the origin by every
        angle in [``low``, ``high``]; ``bound`` is the set's largest distance from the origin
        (a ball of that radius around the origin holds it, and no turn moves that ball)."""
        held = self.enclosed()
        if bound <= held.radius:
            return _Arc.ball(np.zeros(3), bound)
        along = float(held.centre @ axis) * axis
        return _Arc(along, axis, held.centre - along, low, high, held.radius)


def _rotation(axis: np.ndarray, angle: float) -> np.ndarray:
    """The rotation (3, 3) by ``angle`` (radians) about the unit ``axis`` (3,)."""
    k = np.array([[0.0, -axis[2], axis[1]], [axis[2], 0.0, -axis[0]], [-axis[1], axis[0], 0.0]])
    return np.eye(3) + math.sin(angle) * k + (1.0 - math.cos(angle)) * (k @ k)


def _range(joint: Joint) -> tuple[float, float]:
    """The angles (radians) a moving revolute joint may take: its limits, or a full turn when
    they are not finite or the joint is in a group (its limits then bind its parameters)."""
    low, high = joint.lower, joint.upper
    if joint.group >= 0 or not (math.isfinite(low) and math.isfinite(high)):
        return -math.pi, math.pi
    return low, high


def farthest(
    figure: Figure,
    joint_values: np.ndarray,
    moving: np.ndarray,
    top: int,
    segment: int,
    point: np.ndarray,
) -> float:
    """The farthest (scene units) ``point`` (3,), fixed to ``segment``, can be from the
    origin of segment ``top`` (``segment`` itself or an ancestor) when the joints ``moving``
    (joint indices) take any values within their limits and every other joint keeps its value
    in ``joint_values`` (n_joints,) (see the module doc). Inf when a moving joint slides.
    """
    movable = np.zeros(len(figure.joints), dtype=bool)
    movable[np.asarray(moving, dtype=int)] = True
    point = np.asarray(point, dtype=float)
    place = _Arc.ball(point, 0.0)  # the point's places, in the current segment's frame
    bound = float(np.linalg.norm(point))  # their largest distance from its origin
    s = segment
    while s != top:
        seg = figure.segments[s]
        for j in reversed(seg.joints):  # T = Rest @ M_1 @ ... @ M_k: M_k acts first
            joint = figure.joints[j]
            if joint.kind == PRISMATIC:
                if movable[j]:
                    return math.inf
                place = place.moved(np.eye(3), joint_values[j] * joint.axis)
                bound = min(bound + abs(joint_values[j]), place.farthest())
            elif movable[j]:
                place = place.turned(joint.axis, *_range(joint), bound)
            else:
                place = place.moved(_rotation(joint.axis, joint_values[j]), np.zeros(3))
        if seg.inherit_rotation:
            place = place.moved(seg.rotation, seg.translation)
        else:  # turned by the world, not the parent: anywhere within reach of its origin
            place = _Arc.ball(seg.translation, bound)
        bound = min(bound + float(np.linalg.norm(seg.translation)), place.farthest())
        s = seg.parent
        if s < 0:
            raise ValueError(f"segment {top} is not above segment {segment}")
    return bound


def held_offset(
    goal: solver.Goal, effector: solver.EndEffector, angle_tolerance: float
) -> tuple[np.ndarray, float] | None:
    """Where a goal that holds an orientation puts the effector's point from its segment's
    origin: the offset (3,) ``R p`` of the point ``p`` under the rotation ``R`` that turns the
    effector's x/y onto the goal's, and how far (scene units) the point may be from there
    while each axis is within ``angle_tolerance`` (radians) of the goal's (the goal still
    met). None when the goal does not fix the segment's rotation: no orientation part, or
    measured with Position Weight 1, or an axis missing.

    Each axis off by at most ``a`` moves ``p = u x + v y + w (x cross y)`` by at most
    ``2 sin(a / 2) (|u| + |v| + 2 |w|)`` (the third axis, a cross product, by twice one). Axes
    a little off right angles (single-precision matrices) are squared up, y turned onto the
    plane at right angles to x, and ``a`` widened by the turns.
    """
    if not isinstance(goal, solver.PositionOrientationGoal) or goal.position_weight >= 1.0:
        return None
    axes = (goal.x, goal.y, effector.x, effector.y)
    if any(axis is None for axis in axes):
        return None
    gx, gy, ex, ey = (np.asarray(axis, dtype=float) for axis in axes)
    (gy, turn_g), (ey, turn_e) = _square(gx, gy), _square(ex, ey)
    local = np.stack([ex, ey, np.cross(ex, ey)])  # rows: the effector's frame, local
    rotation = np.stack([gx, gy, np.cross(gx, gy)], axis=1) @ local
    point = np.asarray(effector.point, dtype=float)
    u, v, w = np.abs(local @ point)
    angle = angle_tolerance + turn_g + turn_e
    return rotation @ point, 2.0 * math.sin(0.5 * min(angle, math.pi)) * (u + v + 2.0 * w)


def _square(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, float]:
    """Unit ``y`` (3,) turned onto the plane at right angles to unit ``x`` (3,), and the turn
    (radians); ``x`` and ``y`` are not parallel (:class:`solver.EndEffector` and the goals
    refuse that)."""
    along = float(x @ y)
    square = y - along * x
    return square / np.linalg.norm(square), math.asin(min(abs(along), 1.0))


def out_of_reach(
    ik: solver.Solver,
    held: np.ndarray,
    top: str,
    effector: solver.EndEffector,
    goal: solver.Goal,
    points: np.ndarray,
) -> np.ndarray:
    """(N,) whether no pose brings ``effector`` to each goal point ``points`` (N, 3) (the
    model's world) within the solver's distance tolerance, ``ik``'s joints moving from the
    coordinates ``held`` (n_coords,): farther from segment ``top``'s pivot than the point can
    be (:func:`farthest`), or, when ``goal`` holds an orientation, farther than the segment's
    origin can be from where that orientation puts it (:func:`held_offset`).

    None is out of reach when ``goal`` does not measure its point (a *Position &
    Orientation* goal with Position Weight 0 is met by the orientation alone), or when a
    moving joint slides or turns anything above ``top``'s pivot (the pivot would move).
    """
    figure, options = ik.figure, ik.options
    moving = ik.problem.active_joints
    out = np.zeros(len(points), dtype=bool)
    if not _measures_position(goal) or not _pivot_fixed(figure, moving, top):
        return out
    joint_values = figure.coupling @ held
    offsets = points - figure.forward(held)[top][:3, 3]
    above, segment = figure.segment_index(top), figure.segment_index(effector.segment)
    point = np.asarray(effector.point, dtype=float)
    gap = np.linalg.norm(offsets, axis=1) - farthest(
        figure, joint_values, moving, above, segment, point
    )
    kept = held_offset(goal, effector, math.radians(options.angle_tolerance))
    if kept is not None:
        offset, slack = kept
        origin = farthest(figure, joint_values, moving, above, segment, np.zeros(3))
        gap = np.fmax(gap, np.linalg.norm(offsets - offset, axis=1) - origin - slack)
    return gap > (options.tolerance or 0.0)


def _measures_position(goal: solver.Goal) -> bool:
    """Whether meeting ``goal`` needs its point."""
    return not isinstance(goal, solver.PositionOrientationGoal) or goal.position_weight > 0.0


def _pivot_fixed(figure: Figure, moving: np.ndarray, top: str) -> bool:
    """Whether none of the joints ``moving`` turns anything above segment ``top``'s pivot, or
    slides."""
    if any(figure.joints[j].kind == PRISMATIC for j in moving):
        return False
    parent = figure.segments[figure.segment_index(top)].parent
    return parent < 0 or not figure.kinematics.ancestors[parent][moving].any()
