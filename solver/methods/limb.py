"""Two-bone limbs of an assembled problem and their analytic joint values.

A constraint's chain is a *limb* when its variable joints sit on exactly two segments,
an upper one ``U`` and a lower one ``L`` below it, each turned by one revolute (a hinge)
or by three whose consecutive axes are perpendicular (a ball,
:func:`~solver.methods.joint_angles.is_ball`), every joint of both a free coordinate
(no joint group), every segment from ``L`` down to the effector inheriting rotation,
and its goal a point: a :class:`~solver.goals.PositionGoal`, or the point of a
:class:`~solver.goals.PositionOrientationGoal` with a position weight, fixed in the
world (not carried by a segment). Joints outside the chain (and other constraints'
joints) keep their values.

The joint values come from the same triangle as :func:`~solver.methods.two_bone.two_bone`,
mapped through the figure's own geometry, read from a forward pass at the start:
``S``, ``E`` the origins of ``U`` and ``L`` (the joints' pivots), ``e`` the middle
joint and ``C`` the frame of ``L`` before its joints, both in ``U``'s frame, and ``p``
the effector point in ``L``'s frame. With ``f = C^T e`` the root-to-tip distance is
``c^2 = |e|^2 + |p|^2 + 2 f . M_L p``, so

- a hinge middle joint about ``h`` gives ``A cos q + B sin q = D`` with
  ``A = f . (p - h (h.p))``, ``B = f . (h x p)``, ``D = (c^2 - |e|^2 - |p|^2) / 2 -
  (f.h)(h.p)``: two solutions ``q = atan2(B, A) +/- acos(D / sqrt(A^2 + B^2))``
  (clipped: the longest or shortest reach when the target is out of it);
- a ball middle joint turns the tip about ``f x M_L p``, the least turn that sets the
  angle between ``f`` and the tip to the wanted one, on either side of ``f``.

A hinge root then turns the tip ``e + C M_L p`` (``U``'s frame) about its axis onto
the target; a ball root turns the triangle ``(e, e + C M_L p)`` onto the world
triangle ``(E* - S, T* - S)`` of :func:`~solver.methods.two_bone.two_bone`, whose pole
is the start's middle joint carried by the least turn of the root that aims the tip at
the target (the middle joint on that side, or mirrored), and that rotation is split
into its joint values (:mod:`solver.methods.joint_angles`). Each joint value is
taken a whole number of turns from its start value, nearest the start within its
limits.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from ..assembly.problem import Problem
from ..goals import PositionGoal, PositionOrientationGoal
from ..model.constraint import Constraint
from ..model.kinematics import cross
from ..model.structure import REVOLUTE
from .joint_angles import (
    axis_rotation,
    ball_angles,
    hinge_angle,
    is_ball,
    joint_rotation,
    nearest_turn,
    turn_about,
)
from .two_bone import limb_poses, perpendicular


@dataclass(frozen=True)
class Bone:
    """One bone of a limb: a segment and its revolutes.

    Attributes:
        segment: the segment's index in the figure.
        joints: (k,) its joints' indices (k = 1 or 3), in product order.
        coordinates: (k,) the coordinates that drive them.
        axes: (k, 3) their unit axes in the segment's frame.
        lower, upper: (k,) their limits, radians.
    """

    segment: int
    joints: np.ndarray
    coordinates: np.ndarray
    axes: np.ndarray
    lower: np.ndarray
    upper: np.ndarray

    def values(self, rotation: np.ndarray, start: np.ndarray) -> np.ndarray:
        """Joint values (k,) whose motion is (nearest) ``rotation`` (3, 3), near ``start``."""
        if len(self.joints) == 1:
            return self.nearest(np.array([hinge_angle(self.axes[0], rotation)]), start)
        branches = [
            self.nearest(q, start) for q in ball_angles(self.axes, rotation, float(start[0]))
        ]
        return min(branches, key=lambda q: (self._violation(q), float(np.sum((q - start) ** 2))))

    def nearest(self, values: np.ndarray, start: np.ndarray) -> np.ndarray:
        """``values`` (k,) each moved by whole turns nearest ``start`` within its limits."""
        return np.array(
            [
                nearest_turn(float(v), float(s), float(lo), float(hi))
                for v, s, lo, hi in zip(values, start, self.lower, self.upper, strict=True)
            ]
        )

    def _violation(self, values: np.ndarray) -> float:
        return float(
            np.sum(np.maximum(self.lower - values, 0.0) + np.maximum(values - self.upper, 0.0))
        )


@dataclass(frozen=True)
class Limb:
    """A constraint whose chain is two bones reaching for a point.

    Attributes:
        constraint: the constraint.
        upper, lower: the bones (root side first).
        effector: the effector segment's index (``lower``'s or a joint-less descendant's).
    """

    constraint: Constraint
    upper: Bone
    lower: Bone
    effector: int

    def target(self) -> np.ndarray:
        """The goal's point now (3,), world (read each time: goals are retargeted)."""
        return np.asarray(self.constraint.goal.point, dtype=float)  # type: ignore[attr-defined]


def _point_goal(constraint: Constraint) -> bool:
    goal = constraint.goal
    if goal.carrier is not None:
        return False
    if isinstance(goal, PositionOrientationGoal):
        return goal.position_weight > 0.0
    return isinstance(goal, PositionGoal)


def _bone(problem: Problem, segment: int, chain: np.ndarray) -> Bone | None:
    figure = problem.figure
    joints = figure.segments[segment].joints
    if len(joints) not in (1, 3) or not all(chain[j] for j in joints):
        return None
    records = [figure.joints[j] for j in joints]
    if any(r.kind != REVOLUTE or r.group >= 0 for r in records):
        return None
    axes = np.array([r.axis for r in records], dtype=float)
    if len(joints) == 3 and not is_ball(axes):
        return None
    names = figure.coordinate_names
    return Bone(
        segment,
        np.array(joints),
        np.array([names.index(r.name) for r in records]),
        axes,
        np.array([r.lower for r in records]),
        np.array([r.upper for r in records]),
    )


def find_limb(problem: Problem, constraint: Constraint) -> Limb | None:
    """The limb that ``constraint`` moves in ``problem``, or None if its chain is not one."""
    if not _point_goal(constraint):
        return None
    figure = problem.figure
    moving = np.zeros(len(figure.joints), dtype=bool)
    moving[problem.active_joints] = True
    chain = problem.chain(constraint) & moving
    segments = sorted({figure.joints[j].segment for j in np.flatnonzero(chain)})
    if len(segments) != 2:
        return None
    effector = figure.segment_index(constraint.effector.segment)
    top, below = segments
    s = effector
    while s != below:  # L's frame to the effector: rotation inherited all the way
        if s < 0 or not figure.segments[s].inherit_rotation:
            return None
        s = figure.segments[s].parent
    while s != top:
        if s < 0 or not figure.segments[s].inherit_rotation:
            return None
        s = figure.segments[s].parent
    upper, lower = _bone(problem, top, chain), _bone(problem, below, chain)
    if upper is None or lower is None:
        return None
    return Limb(constraint, upper, lower, effector)


def _frame(x: np.ndarray, y: np.ndarray) -> np.ndarray | None:
    """Orthonormal columns from ``x`` and the part of ``y`` across it; None if parallel."""
    u = x / np.linalg.norm(x)
    across = y - u * float(u @ y)
    size = float(np.linalg.norm(across))
    if size <= 1e-9 * float(np.linalg.norm(y)):
        return None
    v = across / size
    return np.column_stack((u, v, cross(u, v)))


def _least_turn(source: np.ndarray, destination: np.ndarray) -> np.ndarray:
    """The smallest rotation (3, 3) taking direction ``source`` to ``destination``."""
    u = source / np.linalg.norm(source)
    w = destination / np.linalg.norm(destination)
    axis = cross(u, w)
    size = float(np.linalg.norm(axis))
    angle = math.atan2(size, float(u @ w))
    axis = axis / size if size > 1e-15 else perpendicular(u)
    return axis_rotation(axis, angle)


def _middle_values(
    bone: Bone, start: np.ndarray, f: np.ndarray, p: np.ndarray, wanted: float
) -> list[np.ndarray]:
    """The middle joint's values (k,) for ``f . (M p) = wanted`` (see the module docstring)."""
    if len(bone.joints) == 1:
        h = bone.axes[0]
        a = float(f @ (p - h * float(h @ p)))
        b = float(f @ cross(h, p))
        amplitude = math.hypot(a, b)
        if amplitude <= 1e-12 * float(np.linalg.norm(f) * np.linalg.norm(p)):
            return [start.copy()]  # the hinge does not change the reach
        d = wanted - float(f @ h) * float(h @ p)
        phase = math.atan2(b, a)
        spread = math.acos(min(1.0, max(-1.0, d / amplitude)))
        values = [bone.nearest(np.array([phase + s * spread]), start) for s in (1.0, -1.0)]
        return sorted(values, key=lambda q: float(abs(q[0] - start[0])))
    m0 = joint_rotation(bone.axes, start)
    tip = m0 @ p
    scale = float(np.linalg.norm(f) * np.linalg.norm(p))
    angle = math.acos(min(1.0, max(-1.0, wanted / scale))) if scale > 0.0 else 0.0
    now = math.atan2(float(np.linalg.norm(cross(f, tip))), float(f @ tip))
    axis = cross(f, tip)
    size = float(np.linalg.norm(axis))
    axis = axis / size if size > 1e-12 * scale else perpendicular(f / np.linalg.norm(f))
    # The turn on the start's side of f first (the smaller one), then through f.
    return [bone.values(axis_rotation(axis, turn - now) @ m0, start) for turn in (angle, -angle)]


def limb_candidates(
    problem: Problem, limb: Limb, y: np.ndarray, swivels: Sequence[float] = (0.0,)
) -> Iterator[np.ndarray]:
    """Analytic variables (n,) for ``limb`` from variables ``y`` (n,), computed as needed.

    Each middle-joint solution (two), the one nearer the start first (with a hinge
    root, the one whose tip height along the hinge matches the target's), and with a ball
    root each swivel: the plane through the root and the target containing the start's
    middle joint once the least turn of the root has aimed the tip at the target,
    turned about the root-target line by each of ``swivels`` (radians), then its mirror
    image (the swivel plus ``pi``). Other variables keep ``y``'s values.
    """
    frames = problem.frames(y)
    coords = problem.to_coordinates(y)
    up, low = limb.upper, limb.lower
    q_up, q_low = coords[up.coordinates], coords[low.coordinates]
    root, middle = frames.origins[up.segment], frames.origins[low.segment]
    r_up, r_low = frames.rotations[up.segment], frames.rotations[low.segment]
    point = limb.constraint.effector.point
    tip = frames.origins[limb.effector] + frames.rotations[limb.effector] @ point
    e = r_up.T @ (middle - root)
    c_low = r_up.T @ r_low @ joint_rotation(low.axes, q_low).T  # L before its joints, in U
    p = r_low.T @ (tip - middle)
    f = c_low.T @ e
    if float(np.linalg.norm(e)) <= 0.0 or float(np.linalg.norm(p)) <= 0.0:
        return
    target = limb.target()
    toward = target - root
    if float(np.linalg.norm(toward)) <= 1e-12 * float(np.linalg.norm(e)):
        toward = tip - root
    toward = toward / np.linalg.norm(toward)
    wanted = (float(np.sum((target - root) ** 2)) - float(e @ e) - float(p @ p)) / 2.0
    before = r_up @ joint_rotation(up.axes, q_up).T  # U before its joints, world
    middles = _middle_values(low, q_low, f, p, wanted)
    if len(up.joints) == 1:  # a hinge root keeps the tip's height along its axis: match it
        height = float(up.axes[0] @ before.T @ (target - root))
        middles.sort(key=lambda q: abs(_height(up, c_low, low, e, p, q) - height))
    for q_mid in middles:
        reach = e + c_low @ joint_rotation(low.axes, q_mid) @ p  # the tip, U's frame
        for q_root in _root_values(up, q_up, before, root, swivels, target, e, reach, toward):
            candidate = coords.copy()
            candidate[up.coordinates] = q_root
            candidate[low.coordinates] = q_mid
            yield problem.from_coordinates(candidate)


def _height(
    up: Bone, c_low: np.ndarray, low: Bone, e: np.ndarray, p: np.ndarray, q: np.ndarray
) -> float:
    """The tip's height along a hinge root's axis with the middle joint at ``q``."""
    return float(up.axes[0] @ (e + c_low @ joint_rotation(low.axes, q) @ p))


def _root_values(
    bone: Bone,
    start: np.ndarray,
    before: np.ndarray,
    root: np.ndarray,
    swivels: Sequence[float],
    target: np.ndarray,
    e: np.ndarray,
    reach: np.ndarray,
    toward: np.ndarray,
) -> Iterator[np.ndarray]:
    """The root's joint values (k,) that turn the tip ``reach`` (U's frame) onto the target.

    A hinge turns it about its axis; a ball turns the triangle ``(e, reach)`` onto
    :func:`~solver.methods.two_bone.two_bone`'s, the middle joint on each pole's side
    and mirrored.
    """
    if len(bone.joints) == 1:
        angle = turn_about(bone.axes[0], reach, before.T @ (target - root))
        yield bone.nearest(np.array([angle]), start)
        return
    upper, lower = float(np.linalg.norm(e)), float(np.linalg.norm(reach - e))
    aim = root + float(np.linalg.norm(reach)) * toward
    local = _frame(e, reach)
    now = before @ joint_rotation(bone.axes, start)  # U's world rotation at the start
    # The pole: the start's middle joint carried by the least turn that aims the tip at
    # the target. The plane of the start's middle joint itself keeps the elbow nearer
    # but not the joint values: tracking the figure-eight of `python -m
    # bench.two_bone_start --quick` (60 frames) with it, the largest joint step per
    # frame was 0.64 rad (0.06 with this pole, as without the analytic start).
    tip = now @ reach
    if float(np.linalg.norm(tip)) > 1e-12 * upper:
        aimed = _least_turn(tip, toward) @ now
    else:
        aimed = now  # the tip sits on the root: no turn aims it
    poles = [axis_rotation(toward, float(turn)) @ aimed @ e for turn in swivels]
    for pole in poles:
        for pose in limb_poses(root, aim, upper, lower, pole):
            world = _frame(pose.middle - root, pose.tip - root)
            if local is None or world is None:  # straight or folded: the least turn
                turn = _least_turn(now @ e, pose.middle - root) @ now
            else:
                turn = world @ local.T
            yield bone.values(before.T @ turn, start)
