"""Validation helpers shared by the figure, goals and constraints."""

from collections.abc import Sequence

import numpy as np

from .errors import InvalidInputError

_AXES = {"x": (1.0, 0.0, 0.0), "y": (0.0, 1.0, 0.0), "z": (0.0, 0.0, 1.0)}


def finite_vector(value: object, what: str, size: int = 3) -> np.ndarray:
    """Return ``value`` as a float array of shape ``(size,)``; reject NaN/inf.

    ``what`` names the offending thing in the error message.
    """
    try:
        array = np.array(value, dtype=float).reshape(-1)
    except (TypeError, ValueError) as exc:
        raise InvalidInputError(f"{what} must be {size} numbers, got {value!r}") from exc
    if array.shape != (size,):
        raise InvalidInputError(f"{what} must have {size} components, got {array.shape[0]}")
    if not np.all(np.isfinite(array)):
        raise InvalidInputError(f"{what} contains NaN or infinity: {array.tolist()}")
    return array


def unit_vector(value: object, what: str) -> np.ndarray:
    """Return ``value`` normalised to unit length, shape ``(3,)``.

    Accepts ``"x"``, ``"y"``, ``"z"`` (optionally with a leading ``-``) as
    shorthands for the coordinate axes. Rejects zero-length vectors.
    """
    if isinstance(value, str):
        key = value.lower().lstrip("+-")
        if key not in _AXES:
            raise InvalidInputError(f"{what} must be 'x', 'y', 'z' or 3 numbers, got {value!r}")
        sign = -1.0 if value.startswith("-") else 1.0
        return sign * np.array(_AXES[key])
    array = finite_vector(value, what)
    norm = float(np.linalg.norm(array))
    if norm < 1e-12:
        raise InvalidInputError(f"{what} has zero length; give a direction")
    return array / norm


def rotation_matrix(value: object, what: str) -> np.ndarray:
    """Return ``value`` as a proper rotation matrix of shape ``(3, 3)``."""
    try:
        array = np.array(value, dtype=float)
    except (TypeError, ValueError) as exc:
        raise InvalidInputError(f"{what} must be a 3x3 rotation matrix") from exc
    if array.shape != (3, 3) or not np.all(np.isfinite(array)):
        raise InvalidInputError(f"{what} must be a finite 3x3 rotation matrix")
    if not np.allclose(array.T @ array, np.eye(3), atol=1e-6) or np.linalg.det(array) < 0:
        raise InvalidInputError(f"{what} is not a rotation matrix (orthonormal, det +1)")
    return array


def limit_pair(lower: float, upper: float, what: str) -> tuple[float, float]:
    """Validate a ``(lower, upper)`` limit pair; infinities mean unlimited."""
    lo, hi = float(lower), float(upper)
    if np.isnan(lo) or np.isnan(hi):
        raise InvalidInputError(f"{what}: limits must not be NaN")
    if lo > hi:
        raise InvalidInputError(f"{what}: lower limit {lo} is above upper limit {hi}")
    return lo, hi


def rigidity_value(value: float, what: str) -> float:
    """Validate a rigidity in ``[0, 1]`` (0 free, 1 locked)."""
    r = float(value)
    if not 0.0 <= r <= 1.0:
        raise InvalidInputError(f"{what}: rigidity must lie in [0, 1], got {r}")
    return r


def triple(value: float | Sequence[float], what: str) -> np.ndarray:
    """Broadcast a scalar or 3 numbers to shape ``(3,)`` (NaN rejected, inf allowed)."""
    array = np.broadcast_to(np.array(value, dtype=float), (3,)).copy()
    if np.any(np.isnan(array)):
        raise InvalidInputError(f"{what} contains NaN")
    return array
