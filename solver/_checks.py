"""Validation helpers shared by the figure, goals, constraints and solve options.

Every helper raises :class:`~solver.errors.InvalidInputError` with ``what`` (the
offending argument, named as the user wrote it) in the message, never a raw
numpy or builtin exception.
"""

import math
import numbers
from collections.abc import Callable, Sequence

import numpy as np

from .errors import InvalidInputError

_AXES = {"x": (1.0, 0.0, 0.0), "y": (0.0, 1.0, 0.0), "z": (0.0, 0.0, 1.0)}


def real_number(value: object, what: str, allow_inf: bool = False) -> float:
    """Return ``value`` as a float; reject strings, None, arrays, bools, NaN (and inf).

    Args:
        value: a Python or numpy real scalar (a size-1 array is not accepted).
        what: name of the argument for the error message.
        allow_inf: accept +-infinity (limits); NaN is always rejected.
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InvalidInputError(f"{what} must be a real number, got {value!r}")
    number = float(value)
    if math.isnan(number) or (not allow_inf and math.isinf(number)):
        kind = "a number" if allow_inf else "a finite number"
        raise InvalidInputError(f"{what} must be {kind}, got {number}")
    return number


def positive_number(value: object, what: str) -> float:
    """A finite number > 0 (tolerances, degrees per unit)."""
    number = real_number(value, what)
    if number <= 0.0:
        raise InvalidInputError(f"{what} must be positive, got {number}")
    return number


def non_negative_number(value: object, what: str) -> float:
    """A finite number >= 0 (weights, damping)."""
    number = real_number(value, what)
    if number < 0.0:
        raise InvalidInputError(f"{what} must be >= 0, got {number}")
    return number


def optional(check: Callable[[object, str], float], value: object, what: str) -> float | None:
    """``check(value, what)``, or None for None."""
    return None if value is None else check(value, what)


def flag(value: object, what: str) -> bool:
    """``value`` if it is a bool."""
    if not isinstance(value, (bool, np.bool_)):
        raise InvalidInputError(f"{what} must be True or False, got {value!r}")
    return bool(value)


def count(value: object, what: str) -> int:
    """A non-negative integer (iteration limits, restarts, seeds)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
        raise InvalidInputError(f"{what} must be a non-negative integer, got {value!r}")
    return int(value)


def non_empty_name(value: object, what: str) -> str:
    """A non-empty string."""
    if not isinstance(value, str) or not value:
        raise InvalidInputError(f"{what} must be a non-empty string, got {value!r}")
    return value


def float_array(value: object, what: str) -> np.ndarray:
    """``value`` as a float array; strings, None and ragged input are rejected."""
    if value is None or isinstance(value, (str, bytes)):
        raise InvalidInputError(f"{what} must be numbers, got {value!r}")
    try:
        array = np.array(value, dtype=float)
    except (TypeError, ValueError) as exc:
        raise InvalidInputError(f"{what} must be numbers, got {value!r}") from exc
    return array


def finite_vector(value: object, what: str, size: int = 3) -> np.ndarray:
    """Return ``value`` as a float array of shape ``(size,)``; reject NaN/inf.

    ``what`` names the offending thing in the error message.
    """
    array = float_array(value, what)
    if array.shape != (size,):
        raise InvalidInputError(f"{what} must be {size} numbers, got shape {array.shape}")
    # On a few Python floats: cheaper than np.isfinite + np.all (runs per rest offset pushed).
    if not all(map(math.isfinite, array.tolist())):
        raise InvalidInputError(f"{what} contains NaN or infinity: {array.tolist()}")
    return array


def finite_array(value: object, what: str, shape: tuple[int, ...]) -> np.ndarray:
    """Return ``value`` as a finite float array of exactly ``shape``."""
    array = float_array(value, what)
    if array.shape != shape:
        raise InvalidInputError(f"{what} must have shape {shape}, got {array.shape}")
    if not np.isfinite(array).all():
        raise InvalidInputError(f"{what} contains NaN or infinity")
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
    norm = math.hypot(*array)  # no overflow for huge components
    if norm < 1e-12:
        raise InvalidInputError(f"{what} has zero length; give a direction")
    return array / norm


def rotation_matrix(value: object, what: str) -> np.ndarray:
    """Return ``value`` as a proper rotation matrix of shape ``(3, 3)``.

    Accepts what ``np.abs(m).max() <= 1 + 1e-6``, ``np.allclose(m.T @ m, I, atol=1e-6)``
    (rtol 1e-5) and ``det(m) >= 0`` accept, checked on the nine entries as Python floats:
    this check runs for every rest rotation a bridge pushes before each solve, and numpy's
    per-call overhead on a 3x3 is many times the arithmetic. A NaN or infinite entry fails
    the comparisons, so the accepting path needs no separate finiteness test.
    """
    array = float_array(value, what)
    if array.shape == (3, 3):
        if _is_rotation(array.tolist()):
            return array
    if array.shape != (3, 3) or not np.all(np.isfinite(array)):
        raise InvalidInputError(f"{what} must be a finite 3x3 rotation matrix")
    if np.abs(array).max() > 1.0 + 1e-6:  # entries of a rotation lie in [-1, 1]
        raise InvalidInputError(f"{what} is not a rotation matrix (entries beyond 1)")
    raise InvalidInputError(f"{what} is not a rotation matrix (orthonormal, det +1)")


#: allclose's atol + rtol * |I| on the diagonal of ``m^T m``, and its atol off it.
_DIAGONAL_TOLERANCE = 1e-6 + 1e-5
_OFF_DIAGONAL_TOLERANCE = 1e-6


def _is_rotation(rows: list[list[float]]) -> bool:
    """Whether the 3x3 ``rows`` (Python floats) pass :func:`rotation_matrix`."""
    (a, b, c), (d, e, f), (g, h, i) = rows
    if not max(map(abs, (a, b, c, d, e, f, g, h, i))) <= 1.0 + 1e-6:
        return False
    # The Gram matrix of the columns (a, d, g), (b, e, h), (c, f, i) against I.
    if not (
        abs(a * a + d * d + g * g - 1.0) <= _DIAGONAL_TOLERANCE
        and abs(b * b + e * e + h * h - 1.0) <= _DIAGONAL_TOLERANCE
        and abs(c * c + f * f + i * i - 1.0) <= _DIAGONAL_TOLERANCE
        and abs(a * b + d * e + g * h) <= _OFF_DIAGONAL_TOLERANCE
        and abs(a * c + d * f + g * i) <= _OFF_DIAGONAL_TOLERANCE
        and abs(b * c + e * f + h * i) <= _OFF_DIAGONAL_TOLERANCE
    ):
        return False
    return _determinant(rows) >= 0.0


def det3(m: np.ndarray) -> float:
    """Determinant of a 3x3 matrix (the triple product of its columns)."""
    return _determinant(m.tolist())


def _determinant(rows: list[list[float]]) -> float:
    """Determinant of 3x3 ``rows`` of Python floats."""
    (a, b, c), (d, e, f), (g, h, i) = rows
    return a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g)


def limit_pair(lower: object, upper: object, what: str) -> tuple[float, float]:
    """Validate a ``(lower, upper)`` limit pair; -inf / +inf mean unlimited.

    A lower limit of +inf or an upper limit of -inf admits no value and is rejected.
    """
    lo = real_number(lower, f"{what}: lower limit", allow_inf=True)
    hi = real_number(upper, f"{what}: upper limit", allow_inf=True)
    if lo == math.inf or hi == -math.inf:
        raise InvalidInputError(f"{what}: limits ({lo}, {hi}) admit no value")
    if lo > hi:
        raise InvalidInputError(f"{what}: lower limit {lo} is above upper limit {hi}")
    return lo, hi


def rigidity_value(value: object, what: str) -> float:
    """Validate a rigidity in ``[0, 1]`` (0 free, 1 locked)."""
    r = real_number(value, f"{what}: rigidity")
    if not 0.0 <= r <= 1.0:
        raise InvalidInputError(f"{what}: rigidity must lie in [0, 1], got {r}")
    return r


def per_item(value: float | Sequence[float], size: int, what: str) -> np.ndarray:
    """Broadcast a scalar or ``size`` numbers to shape ``(size,)`` (NaN rejected, inf allowed)."""
    array = float_array(value, what)
    if array.shape not in ((), (size,)):
        raise InvalidInputError(f"{what} must be one number or {size}, got shape {array.shape}")
    array = np.broadcast_to(array, (size,)).copy()
    if np.any(np.isnan(array)):
        raise InvalidInputError(f"{what} contains NaN")
    return array


def triple(value: float | Sequence[float], what: str) -> np.ndarray:
    """Broadcast a scalar or 3 numbers to shape ``(3,)`` (NaN rejected, inf allowed)."""
    return per_item(value, 3, what)
