"""The analytic solution of a two-segment limb reaching a point (Korein & Badler, eqs. 13-18).

A limb is an upper bone of length ``a`` from the root ``S`` to the middle joint ``E``
and a lower bone of length ``b`` from ``E`` to the tip. Reaching a target ``T`` at
distance ``c = |T - S|`` fixes the triangle ``S E T`` (the two-link case of the seed's
eqs. 15-16, which has "one or two" solutions): by the law of cosines the root angle
``alpha`` between ``S -> T`` and ``S -> E`` and the middle joint's bend
``beta = pi - angle(S E T)`` are

    cos alpha = (a^2 + c^2 - b^2) / (2 a c),   cos(pi - beta) = (a^2 + b^2 - c^2) / (2 a b).

In 3D the triangle may turn about the line ``S T``; a pole (bend) direction picks the
plane through ``S`` and ``T`` that contains it, and the two solutions are the middle
joint on the pole's side (bend ``+beta``) and its mirror image across ``S T`` (bend
``-beta``). A target out of reach is met as nearly as the limb allows: beyond
``a + b`` the limb lies straight along ``S -> T``; nearer than ``|a - b|`` it folds
(``beta = pi``) with its tip on the ray ``S -> T``.

Joint values are given in the *limb frame*: both bones along ``+Y`` when the limb is
straight (Blender's bone axis) and the middle joint a hinge about the upper bone's
``+X``. The root's world rotation ``R`` and the bend ``beta`` then place

    E = S + a R Y,    tip = E + b R Rx(beta) Y        (:func:`limb_points`).

The adapter to a solver figure, whose bones and joint axes lie anywhere, is
:mod:`solver.methods.limb`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._checks import finite_vector, positive_number
from ..model.kinematics import cross
from .joint_angles import axis_rotation

#: Bone direction of the limb frame (both bones, limb straight).
BONE = np.array([0.0, 1.0, 0.0])
#: The middle joint's hinge axis in the limb frame (the upper bone's X).
HINGE = np.array([1.0, 0.0, 0.0])


@dataclass(frozen=True)
class TwoBonePose:
    """One solution of :func:`two_bone`.

    Attributes:
        rotation: (3, 3) world rotation of the upper bone (limb frame to world).
        bend: the middle joint's angle about the limb frame's ``X``, radians in
            ``[-pi, pi]``: 0 straight, ``+beta`` pole side, ``-beta`` mirrored.
        middle: (3,) the middle joint ``E``, scene units.
        tip: (3,) the tip (on the target when it is within reach), scene units.
    """

    rotation: np.ndarray
    bend: float
    middle: np.ndarray
    tip: np.ndarray


def limb_points(
    root: np.ndarray, rotation: np.ndarray, bend: float, upper: float, lower: float
) -> tuple[np.ndarray, np.ndarray]:
    """Forward kinematics of the limb frame: the middle joint and the tip (3,) each.

    Args:
        root: (3,) the root ``S``.
        rotation: (3, 3) world rotation of the upper bone.
        bend: the middle hinge's angle (radians) about the upper bone's ``X``.
        upper, lower: bone lengths ``a``, ``b`` (scene units).
    """
    middle = root + upper * (rotation @ BONE)
    tip = middle + lower * (rotation @ axis_rotation(HINGE, bend) @ BONE)
    return middle, tip


def perpendicular(direction: np.ndarray) -> np.ndarray:
    """A unit vector (3,) perpendicular to the unit ``direction`` (deterministic)."""
    helper = np.eye(3)[int(np.argmin(np.abs(direction)))]
    side = cross(direction, helper)
    return side / np.linalg.norm(side)


def _unit_or(vector: np.ndarray, fallback: np.ndarray) -> np.ndarray:
    norm = float(np.linalg.norm(vector))
    return vector / norm if norm > 1e-12 else fallback


def _angle_facing(side: float, left: float, right: float) -> float:
    """The angle (radians) of a triangle facing ``side``, between ``left`` and ``right``.

    The law of cosines in its half-angle form, accurate to round-off even for a flat
    triangle (where ``acos`` loses half the digits): ``tan^2(g / 2) =
    (side^2 - (left - right)^2) / ((left + right)^2 - side^2)``.
    """
    gap = left - right
    opening = max(0.0, (side - gap) * (side + gap))
    closing = max(0.0, (left + right + side) * (left + right - side))
    return 2.0 * math.atan2(math.sqrt(opening), math.sqrt(closing))


def two_bone(
    root: object, target: object, upper: float, lower: float, pole: object
) -> tuple[TwoBonePose, TwoBonePose]:
    """Both solutions of a two-bone limb reaching ``target``: pole side first, then mirrored.

    Args:
        root: (3,) the root joint ``S`` (scene units).
        target: (3,) the point the tip should reach.
        upper: length ``a > 0`` of the upper bone (root to middle joint).
        lower: length ``b > 0`` of the lower bone (middle joint to tip).
        pole: (3,) direction the middle joint bends towards; only its part perpendicular
            to ``S -> T`` counts (if it has none, a fixed perpendicular is used).
    Returns:
        ``(pole side, mirrored)``; the same pose twice when the limb is straight or
        folded (target at or beyond its reach).

    Raises:
        InvalidInputError: a non-finite point or direction, or a length that is not
            positive, naming the argument.
    """
    s = finite_vector(root, "two_bone root")
    t = finite_vector(target, "two_bone target")
    a = positive_number(upper, "two_bone upper")
    b = positive_number(lower, "two_bone lower")
    p = finite_vector(pole, "two_bone pole")
    return limb_poses(s, t, a, b, p)


def limb_poses(
    root: np.ndarray, target: np.ndarray, upper: float, lower: float, pole: np.ndarray
) -> tuple[TwoBonePose, TwoBonePose]:
    """:func:`two_bone` on arguments already checked: (3,) finite arrays, positive lengths."""
    s, a, b = root, upper, lower
    offset = target - s
    distance = float(np.linalg.norm(offset))
    along = _unit_or(offset, perpendicular(_unit_or(pole, np.array([0.0, 0.0, 1.0]))))
    side = _unit_or(pole - along * float(along @ pole), perpendicular(along))
    c = min(a + b, max(abs(a - b), distance))
    root_angle = _angle_facing(b, a, c)
    bend = math.pi - _angle_facing(c, a, b)
    hinge = cross(side, along)  # turning the upper bone by +bend about it reaches T
    poses = []
    for sign in (1.0, -1.0):
        bone = math.cos(root_angle) * along + sign * math.sin(root_angle) * side
        rotation = np.column_stack((hinge, bone, cross(hinge, bone)))
        middle, tip = limb_points(s, rotation, sign * bend, a, b)
        poses.append(TwoBonePose(rotation, sign * bend, middle, tip))
    return poses[0], poses[1]
