"""The rows of :class:`~solver.goals.AimGoal` in a batch: a residual that is not linear.

Every other goal the batch solves is linear in its parts (:mod:`.model`'s two products).
An aim is not: ``r = c (u - x)`` with ``u = (t - p) / |t - p|`` (eqs. 13-15), its blocks
``dr/dp = -(c / |t - p|) (I - u u^T)``, ``dr/dx = -c I`` depend on the pose. Its three rows
stay zero in the linear maps and :meth:`AimRows.fill` writes them for all B problems at once,
the same residual and derivatives :meth:`AimGoal.residual` gives one problem.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: As :data:`solver.goals.aim._MIN_DISTANCE`: the aim direction of a target closer than this
#: to the effector point is taken over this distance.
MIN_DISTANCE = 1e-9


@dataclass(frozen=True)
class AimRow:
    """One aim goal's place in the batch.

    Attributes:
        row: its first of three rows of the task.
        point: the vector-table index of the effector point.
        x: the vector-table index of the effector's aimed direction.
        slot: the target-table index of the aimed-at point.
        c: the goal's ``c_d`` (scene units per radian).
        root: the square root of the constraint's weight.
        owner: the constraint's index among the problem's constraints.
    """

    row: int
    point: int
    x: int
    slot: int
    c: float
    root: float
    owner: int


class AimRows:
    """The aims of one problem structure (possibly none).

    Args:
        rows: the aims, in the order of the task's rows.
        length: the characteristic length ``L`` (rows scaled by ``1 / L`` like the rest).
    """

    def __init__(self, rows: list[AimRow], length: float) -> None:
        self.rows = rows
        self._task = np.array([[r.row + k for k in range(3)] for r in rows], dtype=int)
        self._point = np.array([r.point for r in rows], dtype=int)
        self._x = np.array([r.x for r in rows], dtype=int)
        self._slot = np.array([r.slot for r in rows], dtype=int)
        self._c = np.array([r.c for r in rows], dtype=float)
        self._scale = np.array([r.root for r in rows], dtype=float) / length
        self.owner = np.array([r.owner for r in rows], dtype=int)

    def _directions(self, vectors: np.ndarray, targets: np.ndarray) -> tuple[np.ndarray, ...]:
        """Unit aim directions ``u`` (B, A, 3) and distances ``|t - p|`` (B, A)."""
        d = targets[:, self._slot] - vectors[:, self._point]
        length = np.maximum(np.sqrt(np.einsum("bac,bac->ba", d, d)), MIN_DISTANCE)
        return d / length[..., None], length

    def fill(
        self,
        vectors: np.ndarray,
        columns: np.ndarray,
        targets: np.ndarray,
        unit: np.ndarray,
        error: np.ndarray,
        jacobian: np.ndarray,
    ) -> None:
        """Write the aims' rows of the task error (B, m) and Jacobian (B, m, n) in place.

        Args:
            vectors: (B, V, 3) the vector table's world values.
            columns: (B, V, 3, n) their Jacobian columns by the variables.
            targets: (B, T, 3) the target table.
            unit: (n,) the variables' units ``D``.
        """
        if not self.rows:
            return
        u, length = self._directions(vectors, targets)
        c = self._c[:, None]
        residual = c * (u - vectors[:, self._x])  # (B, A, 3)
        scale = self._scale[None, :, None]
        error[:, self._task] = -scale * residual
        # dr/dp = -(c / |d|) (I - u u^T), dr/dx = -c I: J = (dr/dp C_p + dr/dx C_x) D / L
        at_point, at_x = columns[:, self._point], columns[:, self._x]  # (B, A, 3, n)
        across = at_point - u[..., None] * np.einsum("bac,bacn->ban", u, at_point)[:, :, None]
        rows = -(c / length)[..., None, None] * across - c[..., None] * at_x
        jacobian[:, self._task] = (scale[..., None] * rows) * unit

    def angles(self, vectors: np.ndarray, targets: np.ndarray) -> np.ndarray:
        """(B, A) the angle (degrees) between each aimed direction and the way to its
        target, as :meth:`AimGoal.report` measures it."""
        u, _length = self._directions(vectors, targets)
        x = vectors[:, self._x]
        x = x / np.linalg.norm(x, axis=-1, keepdims=True)
        apart, along = u - x, u + x
        return np.degrees(
            2.0
            * np.arctan2(
                np.sqrt(np.einsum("bac,bac->ba", apart, apart)),
                np.sqrt(np.einsum("bac,bac->ba", along, along)),
            )
        )


__all__ = ["MIN_DISTANCE", "AimRow", "AimRows"]
