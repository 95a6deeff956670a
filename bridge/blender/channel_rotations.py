"""Rotation conversions for pose channels, in numpy, with continuity across frames.

Conventions are Blender's: quaternions are ``(w, x, y, z)``; an Euler order ``"ABC"`` means
the rotation about ``A`` is applied first, so ``R = R_C @ R_B @ R_A`` (column vectors);
axis-angle is ``(angle, x, y, z)``. Angles are in radians, matrices are ``(3, 3)``.

This module is pure numpy (no ``bpy``, no ``mathutils``) so the bridge's maths is testable
and identical on every Blender version.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

AXIS_INDEX = {"X": 0, "Y": 1, "Z": 2}
EULER_ORDERS = ("XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX")
TWO_PI = 2.0 * np.pi
_EYE = np.eye(3)
_EYE.flags.writeable = False


def axis_rotation(axis: int, angle: float) -> np.ndarray:
    """Rotation matrix ``(3, 3)`` by ``angle`` (radians) about coordinate axis 0, 1 or 2."""
    c, s = math.cos(angle), math.sin(angle)
    if axis == 0:
        return np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])
    if axis == 1:
        return np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def orthonormalize(matrix: np.ndarray) -> np.ndarray:
    """Nearest rotation matrix ``(3, 3)`` to ``matrix`` (polar decomposition).

    Blender stores bone matrices in single precision and repeated products drift; the solver
    wants rotations orthonormal to 1e-6.
    """
    m = np.asarray(matrix, dtype=float)
    if _is_rotation(m):
        return m
    u, _s, vt = np.linalg.svd(m)
    r = u @ vt
    if np.linalg.det(r) < 0.0:
        u[:, -1] = -u[:, -1]
        r = u @ vt
    return r


def _is_rotation(m: np.ndarray) -> bool:
    """Whether ``m`` (3, 3) is a rotation to 1e-12: every entry of ``m^T m - I`` below 1e-12
    in magnitude and ``det m > 0`` (False for NaN). On Python floats: numpy's per-call
    overhead on 3x3 data is several times the arithmetic, and a solve checks every solved
    bone's rotation."""
    (a, b, c), (d, e, f), (g, h, i) = m.tolist()
    gram = (
        a * a + d * d + g * g - 1.0, b * b + e * e + h * h - 1.0, c * c + f * f + i * i - 1.0,
        a * b + d * e + g * h, a * c + d * f + g * i, b * c + e * f + h * i,
    )  # fmt: skip
    det = a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g)
    return all(abs(v) < 1e-12 for v in gram) and det > 0.0


def axes_rotation(axes: Sequence[int], angles: Sequence[float]) -> np.ndarray:
    """``axis_rotation(axes[0], angles[0]) @ axis_rotation(axes[1], angles[1]) @ ...``
    ``(3, 3)``: revolutes about coordinate axes 0, 1, 2 applied in turn (radians)."""
    r = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    for axis, angle in zip(axes, angles, strict=True):
        c, s = math.cos(angle), math.sin(angle)
        a, b = (axis + 1) % 3, (axis + 2) % 3  # the plane the revolute turns
        for row in r:  # row @ R_axis: columns a and b mix
            ra, rb = row[a], row[b]
            row[a], row[b] = ra * c + rb * s, rb * c - ra * s
    return np.array(r)


def euler_to_matrix(angles: np.ndarray, order: str) -> np.ndarray:
    """Matrix ``(3, 3)`` of Blender Euler ``angles`` ``(3,)`` (indexed by X, Y, Z) in ``order``."""
    r = np.eye(3)
    for letter in order:
        k = AXIS_INDEX[letter]
        r = axis_rotation(k, float(angles[k])) @ r
    return r


def _wrap_near(angle: float, reference: float) -> float:
    """``angle`` plus the multiple of 2*pi that brings it nearest to ``reference``."""
    return angle + TWO_PI * round((reference - angle) / TWO_PI)


# The conversions below work on Python floats (``matrix.tolist()``): a solve converts every
# solved bone at every pass, and numpy's per-call overhead on 3x3 data costs several times
# the arithmetic.


def matrix_to_euler(
    matrix: np.ndarray, order: str, compatible: np.ndarray | None = None
) -> np.ndarray:
    """Blender Euler angles ``(3,)`` (indexed X, Y, Z) of a rotation ``matrix`` in ``order``.

    Without ``compatible`` the result is the decomposition Blender itself uses (and its
    Limit Rotation constraint with it): of the two solutions with angles in (-pi, pi], the
    one with the smaller sum of absolute angles. With ``compatible`` (previous angles
    ``(3,)``), of the two equivalent solutions shifted by multiples of 2*pi the one nearest
    to it is returned, which keeps
    F-curves free of 360-degree jumps and branch flips.
    """
    i, j, k = (AXIS_INDEX[c] for c in order)
    parity = 1.0 if (i, j, k) in ((0, 1, 2), (1, 2, 0), (2, 0, 1)) else -1.0
    m = np.asarray(matrix, dtype=float).tolist()
    cy = math.hypot(m[i][i], m[j][i])
    if cy > 1e-9:
        a = math.atan2(parity * m[k][j], m[k][k])
        b = math.atan2(-parity * m[k][i], cy)
        c = math.atan2(parity * m[j][i], m[i][i])
    else:  # gimbal: only a + c (or a - c) is defined; keep c at 0
        a = math.atan2(-parity * m[j][k], m[j][j])
        b = math.atan2(-parity * m[k][i], cy)
        c = 0.0
    first = [0.0, 0.0, 0.0]
    first[i], first[j], first[k] = a, b, c
    second = [0.0, 0.0, 0.0]
    second[i], second[j], second[k] = a + math.pi, math.pi - b, c + math.pi
    if compatible is None:
        second = [_wrap_near(v, 0.0) for v in second]
        # Blender's mat3_normalized_to_eulO keeps the branch with the smaller sum of |angle|.
        smaller = sum(map(abs, first)) > sum(map(abs, second))
        return np.array(second if smaller else first)
    return np.array(nearest_euler((first, second), np.asarray(compatible, dtype=float).tolist()))


def nearest_euler(candidates: Sequence[list[float]], ref: list[float]) -> list[float]:
    """Of equivalent Euler angle triples ``candidates`` (radians, indexed X, Y, Z), each
    shifted by the multiples of 2*pi that bring its angles nearest to ``ref``, the one
    nearest to ``ref`` (squared distance; the first on a tie). Python floats: it runs once
    per bone and frame."""
    best, best_distance = candidates[0], math.inf
    for candidate in candidates:
        wrapped = [_wrap_near(v, r) for v, r in zip(candidate, ref, strict=True)]
        distance = sum((v - r) ** 2 for v, r in zip(wrapped, ref, strict=True))
        if distance < best_distance:
            best, best_distance = wrapped, distance
    return best


def matrix_to_quaternion(matrix: np.ndarray, compatible: np.ndarray | None = None) -> np.ndarray:
    """Unit quaternion ``(4,)`` ``(w, x, y, z)`` of a rotation matrix ``(3, 3)``.

    With ``compatible`` (previous quaternion) the sign is chosen so that the dot product with
    it is non-negative: no sign flips between consecutive keys.
    """
    m = np.asarray(matrix, dtype=float).tolist()
    trace = m[0][0] + m[1][1] + m[2][2]
    if trace > 0.0:
        s = 2.0 * math.sqrt(trace + 1.0)
        q = [0.25 * s, (m[2][1] - m[1][2]) / s, (m[0][2] - m[2][0]) / s, (m[1][0] - m[0][1]) / s]
    else:
        n = max(range(3), key=lambda d: m[d][d])  # the first largest diagonal entry
        a, b = (n + 1) % 3, (n + 2) % 3
        s = 2.0 * math.sqrt(1.0 + m[n][n] - m[a][a] - m[b][b])
        q = [0.0, 0.0, 0.0, 0.0]
        q[0] = (m[b][a] - m[a][b]) / s
        q[1 + n] = 0.25 * s
        q[1 + a] = (m[a][n] + m[n][a]) / s
        q[1 + b] = (m[b][n] + m[n][b]) / s
    w, x, y, z = q
    norm = math.sqrt(w * w + x * x + y * y + z * z)
    q = [w / norm, x / norm, y / norm, z / norm]
    if compatible is not None:
        r = np.asarray(compatible, dtype=float).tolist()
        if len(r) != 4:
            raise ValueError(f"compatible: a quaternion (4,) is needed, got {len(r)} values")
        if q[0] * r[0] + q[1] * r[1] + q[2] * r[2] + q[3] * r[3] < 0.0:
            q = [-v for v in q]
    return np.array(q)


def quaternion_to_matrix(quaternion: np.ndarray) -> np.ndarray:
    """Rotation matrix ``(3, 3)`` of a quaternion ``(4,)`` ``(w, x, y, z)`` (normalised here)."""
    w, x, y, z = (float(v) for v in quaternion)  # scalars: a pose read converts one per bone
    norm = math.sqrt(w * w + x * x + y * y + z * z)
    if norm > 0.0:
        w, x, y, z = w / norm, x / norm, y / norm, z / norm
    else:
        w, x, y, z = 1.0, 0.0, 0.0, 0.0
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
    ])  # fmt: skip


def quaternions_to_matrices(quaternions: np.ndarray) -> np.ndarray:
    """Rotation matrices ``(n, 3, 3)`` of quaternions ``(n, 4)`` ``(w, x, y, z)``: each row's
    :func:`quaternion_to_matrix`, with the same operations in the same order (the same
    numbers), in one pass for the bones of a pose read.

    A row that cannot be normalised (zero or NaN) is the identity, as there.
    """
    q = np.asarray(quaternions, dtype=float).reshape(-1, 4)
    w, x, y, z = q.T
    norm = np.sqrt(w * w + x * x + y * y + z * z)
    ok = (norm > 0.0)[:, None]
    w, x, y, z = np.where(ok, q / np.where(ok, norm[:, None], 1.0), (1.0, 0.0, 0.0, 0.0)).T
    out = np.empty((len(q), 3, 3))
    out[:, 0, 0] = 1 - 2 * (y * y + z * z)
    out[:, 0, 1] = 2 * (x * y - z * w)
    out[:, 0, 2] = 2 * (x * z + y * w)
    out[:, 1, 0] = 2 * (x * y + z * w)
    out[:, 1, 1] = 1 - 2 * (x * x + z * z)
    out[:, 1, 2] = 2 * (y * z - x * w)
    out[:, 2, 0] = 2 * (x * z - y * w)
    out[:, 2, 1] = 2 * (y * z + x * w)
    out[:, 2, 2] = 1 - 2 * (x * x + y * y)
    return out


def axis_angle_to_matrix(axis_angle: np.ndarray) -> np.ndarray:
    """Rotation matrix ``(3, 3)`` of Blender's axis-angle ``(angle, x, y, z)``."""
    angle = float(axis_angle[0])
    axis = np.asarray(axis_angle[1:], dtype=float)
    norm = np.linalg.norm(axis)
    if norm < 1e-12:
        return np.eye(3)
    half = 0.5 * angle
    return quaternion_to_matrix(np.concatenate(([np.cos(half)], np.sin(half) * axis / norm)))


def euler_matrices(angles: np.ndarray, order: str) -> np.ndarray:
    """Rotations (F, 3, 3) of Euler ``angles`` (F, 3) (indexed X, Y, Z) in ``order``, as
    :func:`euler_to_matrix` gives each (the same products; numpy's and ``math``'s sines may
    differ in the last bit)."""
    out = np.broadcast_to(np.eye(3), (len(angles), 3, 3))
    for letter in order:
        k = AXIS_INDEX[letter]
        c, s = np.cos(angles[:, k]), np.sin(angles[:, k])
        a, b = (k + 1) % 3, (k + 2) % 3  # the plane the axis turns
        turn = np.zeros((len(angles), 3, 3))
        turn[:, k, k] = 1.0
        turn[:, a, a], turn[:, a, b], turn[:, b, a], turn[:, b, b] = c, -s, s, c
        out = turn @ out
    return out


def axis_angle_matrices(values: np.ndarray) -> np.ndarray:
    """Rotations (F, 3, 3) of Blender axis-angles (F, 4) ``(angle, x, y, z)``; a zero axis
    is no turn; :func:`axis_angle_to_matrix` of each, to round-off."""
    axis = values[:, 1:]
    norm = np.linalg.norm(axis, axis=1)
    ok = norm >= 1e-12
    half = 0.5 * values[:, 0]
    unit = axis / np.where(ok, norm, 1.0)[:, None]
    q = np.column_stack([np.cos(half), np.sin(half)[:, None] * unit])
    return np.where(ok[:, None, None], quaternions_to_matrices(q), np.eye(3))


def matrix_to_axis_angle(matrix: np.ndarray, compatible: np.ndarray | None = None) -> np.ndarray:
    """Blender axis-angle ``(4,)`` ``(angle, x, y, z)`` of a rotation matrix.

    With ``compatible`` (previous axis-angle) the quaternion's sign is kept continuous, so
    the angle moves continuously through [0, 2*pi] instead of jumping, and a near-zero
    rotation keeps the previous axis.
    """
    previous_q = None
    if compatible is not None:
        half = 0.5 * float(compatible[0])
        axis = np.asarray(compatible[1:], dtype=float)
        norm = np.linalg.norm(axis)
        axis = axis / norm if norm > 1e-12 else np.array([0.0, 1.0, 0.0])
        previous_q = np.concatenate(([np.cos(half)], np.sin(half) * axis))
    q = matrix_to_quaternion(matrix, previous_q)
    sin_half = float(np.linalg.norm(q[1:]))
    angle = 2.0 * np.arctan2(sin_half, q[0])
    if sin_half < 1e-12:
        axis = np.asarray(compatible[1:], dtype=float) if compatible is not None else None
        if axis is None or np.linalg.norm(axis) < 1e-12:
            axis = np.array([0.0, 1.0, 0.0])
        return np.concatenate(([angle], axis / np.linalg.norm(axis)))
    return np.concatenate(([angle], q[1:] / sin_half))


def rotation_to_channels(
    matrix: np.ndarray, rotation_mode: str, previous: np.ndarray | None = None
) -> np.ndarray:
    """Channel values for a pose bone's ``rotation_mode`` from a matrix ``(3, 3)``.

    Returns ``(4,)`` for ``"QUATERNION"`` and ``"AXIS_ANGLE"``, ``(3,)`` for Euler orders,
    continuous with ``previous`` channel values when given.
    """
    if rotation_mode == "QUATERNION":
        return matrix_to_quaternion(matrix, previous)
    if rotation_mode == "AXIS_ANGLE":
        return matrix_to_axis_angle(matrix, previous)
    return matrix_to_euler(matrix, rotation_mode, previous)


def channels_to_rotation(values: np.ndarray, rotation_mode: str) -> np.ndarray:
    """Rotation matrix ``(3, 3)`` from a pose bone's rotation channel values."""
    if rotation_mode == "QUATERNION":
        return quaternion_to_matrix(values)
    if rotation_mode == "AXIS_ANGLE":
        return axis_angle_to_matrix(values)
    return euler_to_matrix(values, rotation_mode)
