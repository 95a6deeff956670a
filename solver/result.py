"""The result object every solve returns (modelled on scipy's ``OptimizeResult``)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .optimizer import Status


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
        status: :class:`Status` code; ``message`` says it in words.
        message: human-readable reason for stopping.
        success: goal reached or a Kuhn-Tucker point (a valid optimum).
        satisfied: every constraint within tolerance.
        fun: objective value ``G`` at ``x`` (eq. 25).
        nit: iterations; nfev: objective/gradient evaluations.
        residuals: per-constraint errors in user units.
        active_set: descriptions of the joint limits/linear constraints
            active at ``x``.
        time: wall time of the solve in seconds.
    """

    x: np.ndarray
    joint_values: np.ndarray
    joint_names: tuple[str, ...]
    status: Status
    message: str
    success: bool
    satisfied: bool
    fun: float
    nit: int
    nfev: int
    residuals: tuple[Residual, ...]
    active_set: tuple[str, ...]
    time: float

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
