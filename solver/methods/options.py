"""The options a solve method reads, validated once by :class:`~solver.Solver`."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class MethodOptions:
    """Options of one local run (see :class:`~solver.Solver` for each one's meaning).

    Attributes:
        max_iterations: iteration limit of one run.
        damping: Levenberg damping of the Gauss-Newton seed relative to its mean
            diagonal (``"gauss-newton-hybrid"``).
        dls_damping: ``lambda`` of ``"dls"``, or None to choose it from ``step_limit``.
        step_limit: largest change of a scaled variable in one iteration, or None.
    """

    max_iterations: int = 200
    damping: float = 1e-6
    dls_damping: float | None = None
    step_limit: float | None = None
