"""What every solve method is: one run from a feasible start (:class:`Method`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import numpy as np

from ..assembly.scale import ScaledEvaluation, ScaledProblem
from ..optimizer import Outcome

#: Called as ``callback(z, G)`` at the start and after every iteration.
Callback = Callable[[np.ndarray, float], None]


class Method(Protocol):
    """One local run of a solve method from a feasible start."""

    def run(
        self,
        problem: ScaledProblem,
        z0: np.ndarray,
        callback: Callback | None,
        deadline: float | None,
    ) -> Outcome[ScaledEvaluation]:
        """Minimise ``problem`` from ``z0`` (n,) until converged, out of iterations or time.

        Args:
            problem: the scaled problem (variables ``z``, rows ``problem.system``).
            z0: (n,) feasible start.
            callback: ``callback(z, G)`` at the start and after every iteration.
            deadline: absolute ``time.perf_counter()`` value to stop at, or None.
        """
        ...
