"""Rotation conveniences: matrices from quaternions, roll-pitch-yaw and 4x4 poses.

Conventions (stated once, used everywhere):

- quaternions are ``(w, x, y, z)``, scalar first (Blender's and Eigen's
  constructor order; ROS and scipy put ``w`` last). Any non-zero length is
  accepted and normalised; ``q`` and ``-q`` give the same rotation.
- roll-pitch-yaw ``(roll, pitch, yaw)`` in radians are URDF's ``rpy``: fixed-axis
  rotations about X by roll, then Y by pitch, then Z by yaw, so
  ``R = Rz(yaw) @ Ry(pitch) @ Rx(roll)``.
"""

import math

import numpy as np

from .._checks import finite_vector, float_array, rotation_matrix
from ..errors import InvalidInputError


def quaternion_matrix(quaternion: object, what: str = "quaternion") -> np.ndarray:
    """(3, 3) rotation of a ``(w, x, y, z)`` quaternion (normalised first)."""
    q = finite_vector(quaternion, f"{what} (w, x, y, z)", size=4)
    norm = math.hypot(*q)  # no overflow for huge components
    if norm < 1e-12:
        raise InvalidInputError(f"{what} has zero length; give a rotation")
    w, x, y, z = q / norm
    return np.array(
        [
            [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
            [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
            [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
        ]
    )


def rpy_matrix(rpy: object, what: str = "rpy") -> np.ndarray:
    """(3, 3) rotation ``Rz(yaw) @ Ry(pitch) @ Rx(roll)`` of URDF ``(roll, pitch, yaw)`` (rad)."""
    roll, pitch, yaw = finite_vector(rpy, f"{what} (roll, pitch, yaw)")
    cr, sr = math.cos(roll), math.sin(roll)
    cp, sp = math.cos(pitch), math.sin(pitch)
    cy, sy = math.cos(yaw), math.sin(yaw)
    return np.array(
        [
            [cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
            [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
            [-sp, cp * sr, cp * cr],
        ]
    )


def rest_rotation(
    rotation: object, quaternion: object, rpy: object, what: str
) -> np.ndarray | None:
    """The one rotation given as a (3, 3) matrix, a quaternion or rpy; None if none is."""
    given = [
        k
        for k, v in (("rotation", rotation), ("quaternion", quaternion), ("rpy", rpy))
        if v is not None
    ]
    if len(given) > 1:
        raise InvalidInputError(f"{what}: give only one of rotation, quaternion, rpy (got {given})")
    if rotation is not None:
        return rotation_matrix(rotation, f"{what} rotation")
    if quaternion is not None:
        return quaternion_matrix(quaternion, f"{what} quaternion")
    if rpy is not None:
        return rpy_matrix(rpy, f"{what} rpy")
    return None


def pose_parts(matrix: object, what: str) -> tuple[np.ndarray, np.ndarray | None]:
    """Rotation (3, 3) and translation (3,) of a 4x4 pose; translation None for a 3x3.

    The bottom row of a 4x4 must be ``(0, 0, 0, 1)``.
    """
    array = float_array(matrix, what)
    if not np.all(np.isfinite(array)):
        raise InvalidInputError(f"{what} contains NaN or infinity")
    if array.shape == (3, 3):
        return rotation_matrix(array, what), None
    if array.shape != (4, 4):
        raise InvalidInputError(f"{what} must be a 3x3 rotation or a 4x4 pose, got {array.shape}")
    if not np.allclose(array[3], (0.0, 0.0, 0.0, 1.0)):
        raise InvalidInputError(f"{what}: a 4x4 pose must end with the row (0, 0, 0, 1)")
    return rotation_matrix(array[:3, :3], f"{what} rotation part"), array[:3, 3].copy()
