"""Where Blender's standard IK puts the bend of a chain with a pole target (pure numpy).

Blender's solver (``IK_QJacobianSolver::ConstrainPoleVector``) turns the whole chain about its
root before it iterates. It builds two "look-at" frames at the root head ``O``:

* from the chain as it is: direction ``dir`` from ``O`` to the chain's tip, up vector
  ``x cos(a) + z sin(a)`` from the root bone's X and Z axes (``a`` the pole angle);
* from the goals: direction from ``O`` to the IK target, up vector from ``O`` to the pole.

and rotates the chain rigidly so that the first frame lands on the second. The iterations then
only move the tip along the root-tip line: a minimum-norm step of a chain that is symmetric
about its bend plane stays in that plane (checked against Blender in the tests). So every joint
keeps the angle about the root-tip axis it had before the solve, measured from the up vector:
the bend plane is the plane through ``O`` and the target that makes the angle ``phi`` of
:func:`bend_angle` with the pole's half-plane. Reach turns it into a plane goal (the joint on the
plane) and a half-space goal (on the side the bend points to).
"""

from __future__ import annotations

import math

import numpy as np

from ...solver.errors import InvalidInputError

#: A joint closer to the root-tip line than this share of the chain's reach is "straight".
STRAIGHT = 1e-6


def _unit(v: np.ndarray, name: str) -> np.ndarray:
    n = float(np.linalg.norm(v))
    if not math.isfinite(n) or n <= 1e-12:
        raise InvalidInputError(f"{name} has zero length (points coincide)")
    return v / n


def look_at(direction: np.ndarray, up: np.ndarray) -> np.ndarray:
    """Orthonormal frame (3, 3), columns ``side, up', direction``: ``side = dir x up``
    normalised, ``up' = side x dir`` (``up`` made perpendicular to ``dir``).

    Raises:
        InvalidInputError: ``direction`` is zero or ``up`` is parallel to it.
    """
    d = _unit(np.asarray(direction, dtype=float), "direction")
    side = _unit(np.cross(d, np.asarray(up, dtype=float)), "up (parallel to the direction)")
    return np.column_stack([side, np.cross(side, d), d])


def bend_angle(root: np.ndarray, joint: np.ndarray, tip: np.ndarray, pole_angle: float) -> float:
    """Angle (radians) of a joint about the root-tip axis, from the pole's up vector.

    Args:
        root: (4, 4) the root bone's transform (columns X, Y, Z axes, then head), any frame.
        joint: (3,) the joint (e.g. the knee), same frame and pose as ``root``.
        tip: (3,) the chain's tip, same frame and pose.
        pole_angle: the IK constraint's pole angle, radians.

    Returns:
        ``phi`` in (-pi, pi]: 0 when the joint lies towards the up vector ``x cos(a) + z
        sin(a)``, positive towards ``dir x up``.

    Raises:
        InvalidInputError: the joint lies on the root-tip line (a straight chain has no bend
            plane), or the tip is at the root, or the up vector is along the chain.
    """
    root = np.asarray(root, dtype=float)
    origin = root[:3, 3]
    up = root[:3, 0] * math.cos(pole_angle) + root[:3, 2] * math.sin(pole_angle)
    frame = look_at(np.asarray(tip, dtype=float) - origin, up)
    k = np.asarray(joint, dtype=float) - origin
    c_side, c_up = float(k @ frame[:, 0]), float(k @ frame[:, 1])
    reach = float(np.linalg.norm(np.asarray(tip, dtype=float) - origin))
    if math.hypot(c_side, c_up) <= STRAIGHT * reach:
        raise InvalidInputError("the joint lies on the root-tip line (the chain is straight)")
    return math.atan2(c_side, c_up)


def bend_plane(
    origin: np.ndarray, target: np.ndarray, pole: np.ndarray, phi: float
) -> tuple[np.ndarray, np.ndarray]:
    """The bend plane Blender's pole gives: unit normal (3,) and unit side (3,).

    The plane passes through ``origin`` (the root head) and ``target``; the joint lies in it
    on the side ``side`` points to (perpendicular to the root-target line).

    Args:
        origin, target, pole: (3,) root head, IK target and pole target, one frame.
        phi: :func:`bend_angle` of the joint.

    Raises:
        InvalidInputError: target or pole at the root, or the pole on the root-target line.
    """
    o = np.asarray(origin, dtype=float)
    frame = look_at(np.asarray(target, dtype=float) - o, np.asarray(pole, dtype=float) - o)
    side = math.sin(phi) * frame[:, 0] + math.cos(phi) * frame[:, 1]
    return np.cross(frame[:, 2], side), side
