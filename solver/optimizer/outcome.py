"""What :func:`~solver.optimizer.minimize` returns: final point, status, counters."""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import Generic, Protocol, TypeVar

import numpy as np


class Status(IntEnum):
    """Why the optimiser stopped."""

    GOAL_REACHED = 0
    KUHN_TUCKER = 1
    MAX_ITERATIONS = 2
    NO_PROGRESS = 3
    TIME_LIMIT = 4
    STALLED = 5


MESSAGES = {
    Status.GOAL_REACHED: "Every constraint is satisfied within tolerance.",
    Status.KUHN_TUCKER: "Stopped at a Kuhn-Tucker point: no feasible descent direction "
    "remains (the best compromise the limits and weights allow).",
    Status.MAX_ITERATIONS: "Stopped at the iteration limit before converging.",
    Status.NO_PROGRESS: "Stopped because no step along the search direction decreased "
    "the objective (round-off level or a degenerate vertex of the limits).",
    Status.TIME_LIMIT: "Stopped at the time limit before converging.",
    Status.STALLED: "Stopped because the objective had almost stopped falling short of "
    'the goals ("dls": a slow approach to a point that misses them, left for a restart).',
}


class Evaluation(Protocol):
    """What the optimiser needs of an objective evaluation."""

    f: float
    g: np.ndarray

    @property
    def reached(self) -> bool: ...


E = TypeVar("E", bound=Evaluation)  # the caller's evaluation type, handed back in Outcome


@dataclass
class Outcome(Generic[E]):
    """Result of :func:`~solver.optimizer.minimize`.

    Attributes:
        y: (n,) final point.
        evaluation: objective state at ``y``.
        status: why it stopped.
        nit: iterations that moved the point (zero-length steps do not count).
        nfev: objective + gradient evaluations made by this run.
        active: indices of the rows of the system active at ``y``.
        multipliers: (len(active),) Lagrange multipliers ``alpha`` of Step 2
            (<= 0 for inequalities at a Kuhn-Tucker point).
        skipped_updates: Step 6 updates skipped because ``sigma^T y <= 0``
            (the curvature safeguard; Powell's line search makes it rare).
        reseeds: times ``H`` was rebuilt from the strategy's seed after the
            start (always 0 for ``"bfgs"``).
    """

    y: np.ndarray
    evaluation: E
    status: Status
    nit: int
    nfev: int
    active: list[int]
    multipliers: np.ndarray
    skipped_updates: int = 0
    reseeds: int = 0

    @property
    def converged(self) -> bool:
        """The optimiser stopped at a Kuhn-Tucker point or with every goal reached."""
        return self.status in (Status.GOAL_REACHED, Status.KUHN_TUCKER)
