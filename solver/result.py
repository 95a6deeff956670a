"""The result object every solve returns (modelled on scipy's ``OptimizeResult``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from .analysis.conditioning import Conditioning, PoseJacobians, measure_conditioning
from .analysis.determinacy import Determinacy, measure_determinacy
from .errors import InvalidInputError
from .optimizer import MESSAGES, Status

SUCCESS_MESSAGE = "Every constraint is satisfied within tolerance."


def stop_message(status: Status, unmet: tuple[str, ...], active: tuple[str, ...]) -> str:
    """Why a solve stopped, in words, naming what is missed and what holds the pose.

    Args:
        status: why the optimiser stopped.
        unmet: names of the constraints outside tolerance.
        active: labels of the joint limits / linear rows active at the answer.
    """
    if not unmet:
        return SUCCESS_MESSAGE
    missed = ", ".join(unmet)
    if status == Status.KUHN_TUCKER:
        held = (
            f"held by {', '.join(active)}"
            if active
            else "no limit is active: the goals are out of the chain's reach or pull "
            "against each other"
        )
        return f"Closest reachable pose: {missed} not reached; {held}."
    return f"{MESSAGES[status]} Not reached: {missed}."


@dataclass(frozen=True)
class Residual:
    """One constraint's error at the solution, in user units.

    Attributes:
        name: the constraint's name.
        distance: distance to the goal in scene units (None if the goal has no
            positional part).
        angle: angular error in degrees (None if the goal has no orientation).
        satisfied: within the solve's distance and angle tolerances.
    """

    name: str
    distance: float | None
    angle: float | None
    satisfied: bool


@dataclass(frozen=True)
class IKResult:
    """Outcome of a solve.

    Attributes:
        x: (n_coords,) coordinates (free joints, then group parameters).
        joint_values: (n_joints,) joint values (radians / scene units).
        joint_names: names matching ``joint_values``.
        status: :class:`Status` code: why the optimiser stopped.
        message: human-readable reason for stopping; when a goal is missed it
            names the unmet constraints and the limits/rows holding the pose.
        success: every enabled constraint is satisfied within the distance
            and angle tolerances (see :attr:`residuals`), whatever the status.
        converged: the optimiser stopped at the goal or at a Kuhn-Tucker point
            (no feasible descent direction left); with ``success`` False this
            is the closest reachable pose, not a failure to converge.
        fun: objective value ``G`` at ``x`` (eq. 25).
        nit: iterations; nfev: objective/gradient evaluations (both over all runs).
        restarts: runs started again after the first (see ``Solver`` restarts).
        residuals: per-constraint errors in user units.
        active_set: descriptions of the joint limits/linear constraints
            active at ``x``.
        time: wall time of the solve in seconds.
        pose_jacobians: the constraint Jacobians of the final evaluation, kept for
            :attr:`conditioning` and :attr:`determinacy` (computed from them on first
            access only).
    """

    x: np.ndarray
    joint_values: np.ndarray
    joint_names: tuple[str, ...]
    status: Status
    message: str
    success: bool
    converged: bool
    fun: float
    nit: int
    nfev: int
    restarts: int
    residuals: tuple[Residual, ...]
    active_set: tuple[str, ...]
    time: float
    pose_jacobians: PoseJacobians | None = field(default=None, repr=False, compare=False)

    @cached_property
    def conditioning(self) -> Conditioning:
        """Singular values, ``kappa`` (eq. 9), rank, redundancy and null space of the
        constraint Jacobians at :attr:`x` (:mod:`solver.analysis.conditioning`), computed on first
        access and kept.

        Raises:
            InvalidInputError: the result was built without its ``pose_jacobians``.
        """
        if self.pose_jacobians is None:
            raise InvalidInputError("this result was built without pose_jacobians")
        return measure_conditioning(self.pose_jacobians)

    @cached_property
    def determinacy(self) -> Determinacy:
        """Degrees of freedom, independent equations, under-/exactly/over-constrained, the
        redundant or conflicting constraints and the free motions at :attr:`x`
        (:mod:`solver.analysis.determinacy`), computed on first access and kept.

        Raises:
            InvalidInputError: the result was built without its ``pose_jacobians``.
        """
        if self.pose_jacobians is None:
            raise InvalidInputError("this result was built without pose_jacobians")
        return measure_determinacy(self.pose_jacobians, self.conditioning, self.unmet)

    @property
    def unmet(self) -> tuple[str, ...]:
        """Names of the constraints not satisfied within tolerance."""
        return tuple(r.name for r in self.residuals if not r.satisfied)

    def values(self) -> dict[str, float]:
        """Joint values keyed by joint name."""
        return dict(zip(self.joint_names, self.joint_values.tolist(), strict=True))

    def __str__(self) -> str:
        lines = [
            f"{self.status.name}: {self.message}",
            f"iterations {self.nit}, evaluations {self.nfev}, "
            f"objective {self.fun:.3e}, time {self.time * 1e3:.2f} ms",
        ]
        for r in self.residuals:
            parts = []
            if r.distance is not None:
                parts.append(f"distance {r.distance:.3e}")
            if r.angle is not None:
                parts.append(f"angle {r.angle:.4f} deg")
            mark = "ok" if r.satisfied else "NOT satisfied"
            lines.append(f"  {r.name}: {', '.join(parts)} [{mark}]")
        return "\n".join(lines)
