"""What a batch solve returns: per-problem arrays, and each problem's own :class:`IKResult`."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..optimizer import Status
from ..result import IKResult, Residual, stop_message


@dataclass(frozen=True)
class BatchResult:
    """Outcome of B solves of one structure: row ``b`` of every array is problem ``b``'s.

    ``status``, ``success`` and ``converged`` mean what they mean for a single solve
    (:class:`~solver.result.IKResult`): ``success`` is every enabled constraint within the
    distance and angle tolerances, whatever the status. ``result(b)`` (or ``batch[b]``)
    builds problem ``b``'s :class:`IKResult`; its ``time`` is the batch's wall time divided
    by B (the problems share every operation), and it carries no ``pose_jacobians``.

    Attributes:
        x: (B, n_coords) coordinates.
        joint_values: (B, n_joints) joint values (radians / scene units).
        joint_names: names matching ``joint_values``' columns.
        status: (B,) :class:`~solver.optimizer.Status` values (ints).
        success: (B,) every constraint satisfied.
        converged: (B,) stopped with the goal reached or at a Kuhn-Tucker point.
        fun: (B,) objective ``G`` (eq. 25).
        nit: (B,) iterations over all runs; nfev: (B,) evaluations over all runs.
        restarts: (B,) runs started again after the first.
        distance: (B, C) each enabled constraint's distance (scene units), NaN where the
            goal has no position part.
        angle: (B, C) each enabled constraint's angle (degrees), NaN where it has none.
        satisfied: (B, C) each constraint within tolerance.
        names: (C,) the enabled constraints' names.
        active: (B, k) the rows of the solve's limits active at ``x``; labels: (k,) their
            descriptions.
        time: wall time of the whole batch, seconds.
        iterations: passes over the batch's working set (every run in it advances one
            iteration a pass): what the batch's wall time grows with besides its size.
        run_iterations: the runs advanced over all passes (restarts dropped unused
            included): the batch's work.
    """

    x: np.ndarray
    joint_values: np.ndarray
    joint_names: tuple[str, ...]
    status: np.ndarray
    success: np.ndarray
    converged: np.ndarray
    fun: np.ndarray
    nit: np.ndarray
    nfev: np.ndarray
    restarts: np.ndarray
    distance: np.ndarray
    angle: np.ndarray
    satisfied: np.ndarray
    names: tuple[str, ...]
    active: np.ndarray
    labels: tuple[str, ...]
    time: float
    iterations: int = 0
    run_iterations: int = 0

    def __len__(self) -> int:
        return len(self.x)

    def __getitem__(self, index: int) -> IKResult:
        return self.result(index)

    def result(self, index: int) -> IKResult:
        """Problem ``index``'s result, as a single solve would return it."""
        b = int(index)
        residuals = tuple(
            Residual(
                name,
                None if np.isnan(d) else float(d),
                None if np.isnan(a) else float(a),
                bool(ok),
            )
            for name, d, a, ok in zip(
                self.names, self.distance[b], self.angle[b], self.satisfied[b], strict=True
            )
        )
        status = Status(int(self.status[b]))
        active = tuple(label for label, on in zip(self.labels, self.active[b], strict=True) if on)
        unmet = tuple(r.name for r in residuals if not r.satisfied)
        return IKResult(
            x=self.x[b].copy(),
            joint_values=self.joint_values[b].copy(),
            joint_names=self.joint_names,
            status=status,
            message=stop_message(status, unmet, active),
            success=bool(self.success[b]),
            converged=bool(self.converged[b]),
            fun=float(self.fun[b]),
            nit=int(self.nit[b]),
            nfev=int(self.nfev[b]),
            restarts=int(self.restarts[b]),
            residuals=residuals,
            active_set=active,
            time=self.time / len(self),
        )

    def results(self) -> list[IKResult]:
        """Every problem's :class:`IKResult`, in order."""
        return [self.result(b) for b in range(len(self))]


__all__ = ["BatchResult"]
