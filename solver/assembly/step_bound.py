"""The step bound of one solve (``max_change``): box rows around the start (smooth tracking).

A target passing near a singularity (seed 001, Fig. 1: a hand crossing just under, then
just over the shoulder) asks for a large joint motion for a tiny target motion; tracked
frame by frame, the unbounded solve follows it and the pose flips within a frame. With
``max_change`` every coordinate of the answer stays within that distance of the solve's
start:

    |coords_i - start_i| <= max_change        (radians, or scene units for a coordinate
                                               that moves only prismatic joints)

These are linear rows, so they are added to the scaled problem's rows for that solve
(:func:`bounded`): every method that respects ``problem.system`` honours them, the
restarts' starts are projected onto them, and an answer they hold names them in its
active set (labels ending in :data:`LABEL`), like a joint limit.

In the scaled variables ``z`` (:class:`~solver.assembly.scale.ScaledProblem`) a coordinate is
``coords_i = scale_i * unit_i * z_i`` (``scale = 1 - rigidity``, ``unit = L`` for a
prismatic-only variable), so the bound on ``z_i`` is ``max_change / (scale_i * unit_i)``:
the bound is on the coordinates' change, whatever their rigidity.
"""

from __future__ import annotations

import copy

import numpy as np

from .._checks import float_array, positive_number
from ..errors import InvalidInputError
from ..model.figure import Figure
from ..model.linear import LinearSystem
from .scale import ScaledProblem, sliding

#: A bound for every coordinate, or (n_coords,) one per coordinate.
MaxChange = float | np.ndarray

#: The end of every step-bound row's label (``"elbow change <= 0.1 (max_change)"``).
LABEL = "(max_change)"

#: Relative slack within which a coordinate's change counts as at the bound
#: (:func:`held`): the rows are met to round-off, not exactly.
AT_BOUND = 1e-7


def checked(value: object) -> MaxChange | None:
    """``value`` as a ``max_change``: None, a number > 0, or a 1-D array of numbers > 0.

    Raises:
        InvalidInputError: naming ``max_change``.
    """
    if value is None:
        return None
    if isinstance(value, (int, float, np.integer, np.floating, bool, str)):
        return positive_number(value, "max_change")
    array = float_array(value, "max_change")
    if array.ndim != 1 or not np.all(np.isfinite(array)) or not np.all(array > 0.0):
        raise InvalidInputError(
            f"max_change must be a positive number or one positive number per coordinate, "
            f"got {value!r}"
        )
    return array


def per_coordinate(figure: Figure, max_change: MaxChange) -> np.ndarray:
    """``max_change`` as one bound per coordinate of ``figure`` (n_coords,).

    Raises:
        InvalidInputError: an array ``max_change`` whose length is not the figure's
            number of coordinates.
    """
    n = len(figure.coordinate_names)
    if np.ndim(max_change) == 0:
        return np.full(n, float(max_change))
    if np.shape(max_change) != (n,):
        raise InvalidInputError(
            f"max_change must have one bound per coordinate ({n}), got {np.shape(max_change)}"
        )
    return np.asarray(max_change, dtype=float)


def per_kind(figure: Figure, angle: float, distance: float) -> np.ndarray:
    """Bounds (n_coords,): ``distance`` (scene units) for a coordinate that moves only
    prismatic joints, ``angle`` (radians) for every other one."""
    return np.where(sliding(figure, figure.coupling), distance, angle)


def change_limits(scaled: ScaledProblem, max_change: MaxChange) -> np.ndarray:
    """Largest change (n,) of each scaled variable ``z`` for coordinates within ``max_change``.

    Args:
        scaled: the scaled problem.
        max_change: largest change of a coordinate (radians; scene units for a
            coordinate that moves only prismatic joints), > 0: one number, or one per
            coordinate of the figure.
    """
    problem = scaled.problem
    bound = per_coordinate(problem.figure, max_change)[problem.variables]
    return bound / (problem.scale * scaled.unit)


def bounded(scaled: ScaledProblem, z0: np.ndarray, max_change: MaxChange) -> ScaledProblem:
    """``scaled`` with rows ``|z - z0| <= change_limits(...)`` added (a copy; ``scaled`` is
    unchanged).

    A side whose joint limit is already at least as tight (a bound row would be redundant
    or coincide with the limit's row) gets no row.

    Args:
        scaled: the scaled problem of this solve.
        z0: (n,) the solve's feasible start, scaled variables.
        max_change: largest change of a coordinate (see :func:`change_limits`).
    """
    z0 = np.asarray(z0, dtype=float)
    bound = per_coordinate(scaled.problem.figure, max_change)
    limit = change_limits(scaled, bound)
    lower, upper = scaled.problem.bounds
    names = scaled.problem.figure.coordinate_names
    rows, rhs, labels = [], [], []
    for i, variable in enumerate(scaled.problem.variables):
        text = f"{names[variable]} change <= {bound[variable]:.6g} {LABEL}"
        unit = np.zeros(len(z0))
        unit[i] = 1.0
        if z0[i] + limit[i] < upper[i] / scaled.unit[i]:
            rows.append(unit)
            rhs.append(z0[i] + limit[i])
            labels.append(text)
        if z0[i] - limit[i] > lower[i] / scaled.unit[i]:
            rows.append(-unit)
            rhs.append(limit[i] - z0[i])
            labels.append(text)
    system = scaled.system
    out = copy.copy(scaled)
    out.system = LinearSystem(
        np.vstack([system.A, np.array(rows).reshape(-1, len(z0))]),
        np.concatenate([system.b, rhs]),
        np.concatenate([system.equality, np.zeros(len(rows), dtype=bool)]),
        [*system.labels, *labels],
    )
    return out


def held(start: np.ndarray, coords: np.ndarray, max_change: MaxChange | None) -> bool:
    """Whether some coordinate of ``coords`` (n_coords,) moved from ``start`` (n_coords,) by
    its bound in ``max_change`` (to :data:`AT_BOUND`): the bound, not only the goals, shaped
    the answer. Always False without a bound."""
    if max_change is None:
        return False
    change = np.abs(np.asarray(coords, dtype=float) - np.asarray(start, dtype=float))
    return bool(np.any(change >= np.asarray(max_change) * (1.0 - AT_BOUND)))


def binds(system: LinearSystem, active: list[int]) -> bool:
    """Whether a step-bound row of ``system`` is among the ``active`` row indices."""
    return any(system.labels[i].endswith(LABEL) for i in active)
