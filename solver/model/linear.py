"""Linear constraints on coordinates: bounds, polygons, equalities (eq. 23).

Joint limits, limits of grouped joints, user inequalities and equalities all
become rows ``a . coords <= b`` or ``a . coords == b`` (:class:`LinearSystem`; a figure's
own rows are :func:`solver.model.figure.coordinate_system`). A start outside the
feasible set is moved to the nearest feasible point (an exact Euclidean
projection, :mod:`solver.assembly.projection`); an empty feasible set raises
:class:`InfeasibleError`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..assembly.projection import least_distance
from ..errors import InfeasibleError

#: Violation (in the rows' own units) tolerated as round-off.
FEASIBILITY_TOLERANCE = 1e-9


@dataclass
class LinearSystem:
    """Rows over some variable vector: ``A[i] . v <= b[i]`` or ``== b[i]``.

    Attributes:
        A: (k, n) rows.
        b: (k,) right-hand sides.
        equality: (k,) True for equality rows.
        labels: k human-readable descriptions (for active sets and errors).
    """

    A: np.ndarray
    b: np.ndarray
    equality: np.ndarray
    labels: list[str]

    def violation(self, v: np.ndarray) -> np.ndarray:
        """Per-row violation >= 0 (k,) at ``v``."""
        slack = self.A @ v - self.b
        return np.where(self.equality, np.abs(slack), np.maximum(slack, 0.0))

    def normalised(self) -> LinearSystem:
        """Rows scaled to unit length (the Appendix assumes unit ``a_i``); zero rows dropped."""
        return UnitRows(self).system(self.b)


class UnitRows:
    """Rows ``A`` scaled to unit length once, for right-hand sides that change.

    A solve's rows in its variables keep ``A`` from solve to solve; only ``b`` moves with
    the coordinates held fixed. Normalising ``A`` once saves the row norms, the copies
    and the label list at every solve.

    Args:
        rows: the rows (``b`` unused); zero rows (length <= 1e-14) are dropped.
    """

    def __init__(self, rows: LinearSystem) -> None:
        norms = np.linalg.norm(rows.A, axis=1)
        self.keep = norms > 1e-14  # (k,) bool: the non-zero rows
        self.norms = norms[self.keep]  # (kept,) their lengths
        self.A = rows.A[self.keep] / self.norms[:, None]
        self.equality = rows.equality[self.keep]
        self.labels = [label for label, k in zip(rows.labels, self.keep, strict=True) if k]
        self.A.flags.writeable = self.equality.flags.writeable = False  # shared, see system()

    def system(self, b: np.ndarray) -> LinearSystem:
        """The unit rows with right-hand sides ``b`` (k,) of the original rows.

        The system shares ``A``, ``equality`` and ``labels`` with every other one built
        here (read-only arrays); ``b`` is its own.
        """
        return LinearSystem(self.A, b[self.keep] / self.norms, self.equality, self.labels)


def project(system: LinearSystem, v: np.ndarray, what: str = "the joint limits") -> np.ndarray:
    """Nearest point to ``v`` satisfying ``system`` (exact, see :mod:`solver.assembly.projection`).

    A bound with lower == upper is an equality row and fixes its coordinate.

    Raises:
        InfeasibleError: if no point satisfies all rows; names rows that conflict.
    """
    v = np.asarray(v, dtype=float)
    if not len(system.b) or system.violation(v).max(initial=0.0) <= 0.0:
        return v.copy()  # feasible (a test that does not depend on the rows' lengths)
    unit = system.normalised()
    result = least_distance(unit.A, unit.b, unit.equality, v)
    if not result.feasible:
        rows = ", ".join(unit.labels[i] for i in result.conflict)
        raise InfeasibleError(f"{what} admit no joint values; conflicting: {rows}")
    return result.x


def only_point(system: LinearSystem, v: np.ndarray) -> bool:
    """Whether ``v`` (n,) is the only point satisfying ``system`` (unit rows).

    The rows through ``v`` (within :data:`FEASIBILITY_TOLERANCE`) leave no feasible
    direction when every direction is a non-negative combination of their normals (the
    multipliers of a Kuhn-Tucker point exist whatever the gradient): checked for the
    ``2 n`` directions ``+-e_k``, each being its own projection's multiplier test (the
    projection of ``+-e_k`` onto the cone ``{d : A_tight d <= 0}`` is 0 exactly when it
    is such a combination). A convex feasible set with no feasible direction at ``v`` is
    ``{v}``: no other start can lead anywhere else.
    """
    n = len(v)
    if n == 0:
        return True  # no variables: the one point there is
    slack = system.A @ v - system.b
    tight = system.equality | (np.abs(slack) <= FEASIBILITY_TOLERANCE * (1.0 + np.abs(system.b)))
    rows = system.A[tight]
    if len(rows) < n or np.linalg.matrix_rank(rows) < n:
        return False  # a direction along which every tight row is constant is feasible
    zero, equality = np.zeros(len(rows)), system.equality[tight]
    for direction in np.vstack([np.eye(n), -np.eye(n)]):
        along = least_distance(rows, zero, equality, direction)
        if not along.feasible or float(np.abs(along.x).max()) > 1e-9:
            return False
    return True
