"""The keyword options of :func:`~solver.solve`, typed (they are :class:`~solver.Solver`'s)."""

from __future__ import annotations

from typing import TypedDict

import numpy as np


class SolverOptions(TypedDict, total=False):
    """Keyword options of :class:`~solver.Solver`; see its docstring for each one."""

    tolerance: float | None
    angle_tolerance: float
    max_iterations: int
    time_limit: float | None
    restarts: int
    seed: int
    method: str
    damping: float
    dls_damping: float | None
    step_limit: float | None
    max_change: float | np.ndarray | None
    analytic_start: bool
