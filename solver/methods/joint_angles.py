"""Revolute joint values from a wanted rotation: one hinge, or three revolutes (a ball).

A segment's revolutes turn it by ``M(q) = R(a_1, q_1) R(a_2, q_2) ... R(a_k, q_k)``
(:mod:`solver.model.figure`; ``R(a, q)`` is the rotation by ``q`` radians about the unit
axis ``a``). Given a wanted ``M`` these functions return the joint values in closed form:

- one axis: the angle whose rotation is nearest ``M`` (Frobenius norm); exact when
  ``M`` is a rotation about that axis;
- three axes with ``a_1 _|_ a_2`` and ``a_2 _|_ a_3`` (every Euler and Tait-Bryan
  order, e.g. a ball ``x, y, z``): Davenport's decomposition, both branches. The
  middle angle comes from ``a_1^T M a_3 = (a_1.a_3) cos q_2 + (a_1.(a_2 x a_3)) sin q_2``,
  then ``q_1`` turns ``R(a_2, q_2) a_3`` onto ``M a_3`` about ``a_1`` and ``q_3`` turns
  ``M^T a_1`` onto ``R(a_2, q_2)^T a_1`` about ``a_3``.
"""

from __future__ import annotations

import math

import numpy as np

from ..model.kinematics import cross

#: Cosine beyond which two of a ball's axes count as aligned (gimbal lock).
GIMBAL = 1.0 - 1e-12


def axis_rotation(axis: np.ndarray, angle: float) -> np.ndarray:
    """(3, 3) rotation by ``angle`` radians about the unit ``axis`` (3,) (Rodrigues)."""
    x, y, z = (float(v) for v in axis)
    c, s = math.cos(angle), math.sin(angle)
    t = 1.0 - c
    return np.array(
        [
            [c + t * x * x, t * x * y - s * z, t * x * z + s * y],
            [t * x * y + s * z, c + t * y * y, t * y * z - s * x],
            [t * x * z - s * y, t * y * z + s * x, c + t * z * z],
        ]
    )


def joint_rotation(axes: np.ndarray, values: np.ndarray) -> np.ndarray:
    """``M(q)`` (3, 3) of revolutes with unit ``axes`` (k, 3) at ``values`` (k,) radians."""
    m = np.eye(3)
    for axis, value in zip(axes, values, strict=True):
        m = m @ axis_rotation(axis, float(value))
    return m


def turn_about(axis: np.ndarray, source: np.ndarray, destination: np.ndarray) -> float:
    """Angle (radians) about unit ``axis`` that best turns ``source`` (3,) onto ``destination``.

    Exact when both have the same component along ``axis`` and length; 0 when either
    is parallel to ``axis`` (any angle serves).
    """
    s = source - axis * float(axis @ source)
    d = destination - axis * float(axis @ destination)
    return math.atan2(float(axis @ cross(s, d)), float(s @ d))


def hinge_angle(axis: np.ndarray, rotation: np.ndarray) -> float:
    """Angle ``q`` (radians) minimising ``|R(axis, q) - rotation|_F`` for a unit ``axis`` (3,).

    ``trace(R(a, q)^T M) = cos q (tr M - a^T M a) + sin q a.w + a^T M a`` with ``w`` the
    axial vector of ``M - M^T``, maximised by ``q = atan2(a.w, tr M - a^T M a)``.
    """
    m = rotation
    w = np.array([m[2, 1] - m[1, 2], m[0, 2] - m[2, 0], m[1, 0] - m[0, 1]])
    return math.atan2(float(axis @ w), float(np.trace(m) - axis @ m @ axis))


def is_ball(axes: np.ndarray) -> bool:
    """Whether unit ``axes`` (3, 3) make every rotation: consecutive ones perpendicular."""
    if axes.shape != (3, 3):
        return False
    a1, a2, a3 = axes
    return abs(float(a1 @ a2)) < 1e-9 and abs(float(a2 @ a3)) < 1e-9


def ball_angles(axes: np.ndarray, rotation: np.ndarray, hold: float) -> list[np.ndarray]:
    """Both ``(q_1, q_2, q_3)`` (radians) with ``M(q) = rotation`` for ball ``axes`` (3, 3).

    Args:
        axes: three unit axes in product order, ``a_1 _|_ a_2 _|_ a_3`` (:func:`is_ball`).
        rotation: (3, 3) the wanted ``M``.
        hold: ``q_1`` to keep at gimbal lock (``a_1`` and ``R(a_2, q_2) a_3`` aligned),
            where only ``q_1 + q_3`` (or their difference) is determined.
    Returns:
        Two (3,) solutions (the same one twice at gimbal lock), angles in (-pi, pi].
    """
    a1, a2, a3 = axes
    target = float(a1 @ rotation @ a3)
    cos_part, sin_part = float(a1 @ a3), float(a1 @ cross(a2, a3))
    # cos_part cos q2 + sin_part sin q2 = target, with cos_part^2 + sin_part^2 = 1.
    phase = math.atan2(sin_part, cos_part)
    spread = math.acos(min(1.0, max(-1.0, target / math.hypot(cos_part, sin_part))))
    out = []
    for q2 in (phase + spread, phase - spread):
        inner = axis_rotation(a2, q2)
        carried = inner @ a3
        if abs(float(a1 @ carried)) >= GIMBAL:
            q1 = hold
            q3 = hinge_angle(a3, (axis_rotation(a1, q1) @ inner).T @ rotation)
        else:
            q1 = turn_about(a1, carried, rotation @ a3)
            q3 = turn_about(a3, rotation.T @ a1, inner.T @ a1)
        out.append(np.array([q1, q2, q3]))
    return out


def nearest_turn(value: float, start: float, lower: float, upper: float) -> float:
    """``value`` (radians) moved by whole turns to the copy nearest ``start`` within the limits.

    The copy nearest ``start`` if it lies within ``[lower, upper]``, else the nearest
    copy that does, else the copy nearest ``start`` (projection moves it in later).
    """
    near = start + math.remainder(value - start, 2.0 * math.pi)
    if lower <= near <= upper:
        return near
    copies = [near + k * 2.0 * math.pi for k in (-1, 1)]
    inside = [c for c in copies if lower <= c <= upper]
    return min(inside, key=lambda c: abs(c - start)) if inside else near
