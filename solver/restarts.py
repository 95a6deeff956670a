"""Global search: where to start again after a run that ends at a local minimum.

TRAC-IK's remedy for local minima is to start again until a time budget runs
out. Reach IK first nudges the point where the run stopped (a tiny step, away
from the limits it sits on: a saddle or maximum of a singular, straight pose
has a zero gradient, and this leaves it), then tries starts near the original
one (small perturbations of growing size, so an animation stays on its branch
when it can), then starts drawn uniformly within the limits. Every start is
projected onto the feasible set, and the sequence depends only on the seed.

Work happens in the optimiser's scaled variables (:class:`~solver.scale.ScaledProblem`),
where a radius means radians for revolute joints and multiples of the
characteristic length for prismatic ones.
"""

from __future__ import annotations

import numpy as np

from .linear import project
from .optimizer import Outcome
from .scale import ScaledProblem

#: Size (scaled units) of the nudge off the point where a run stopped.
NUDGE = 1e-2

#: Radii (scaled units) of the starts tried near the original one, in order, to
#: find a nearby branch before jumping anywhere within the limits.
NEAR_RADII = (0.1, 0.3)

#: Weight of the squared distance (scaled units) from the original start when two
#: answers that both miss a goal are compared: an answer that jumps away must
#: lower the scaled objective by more than this times the jump squared.
CONTINUITY = 1e-3


class StartSampler:
    """Starts for the restarts of one solve: near ``z0`` first, then random.

    Args:
        problem: the scaled problem (variables, rows, bounds).
        z0: (n,) the original (feasible) start, scaled variables.
        seed: seed of the random generator; the sequence depends only on it.
    """

    def __init__(self, problem: ScaledProblem, z0: np.ndarray, seed: int) -> None:
        self.problem = problem
        self.z0 = np.asarray(z0, dtype=float)
        self.rng = np.random.default_rng(seed)
        self.count = 0
        lower, upper = problem.problem.bounds
        self.lower = lower / problem.unit
        self.upper = upper / problem.unit

    def nudge(self, z: np.ndarray) -> np.ndarray:
        """A start (n,) within :data:`NUDGE` of ``z``, stepping off the bounds ``z`` is on."""
        step = self.rng.uniform(-NUDGE, NUDGE, size=len(z))
        margin = 1e-9 * (1.0 + np.abs(z))
        step = np.where(z <= self.lower + margin, np.abs(step), step)
        step = np.where(z >= self.upper - margin, -np.abs(step), step)
        return project(self.problem.system, z + step, "the joint limits")

    def next(self) -> np.ndarray:
        """The next feasible start (n,)."""
        k = self.count
        self.count += 1
        if k < len(NEAR_RADII):
            radius = NEAR_RADII[k]
            z = self.z0 + self.rng.uniform(-radius, radius, size=len(self.z0))
        else:
            lower = np.where(np.isfinite(self.lower), self.lower, self.z0 - np.pi)
            upper = np.where(np.isfinite(self.upper), self.upper, self.z0 + np.pi)
            z = self.rng.uniform(lower, upper)
        return project(self.problem.system, z, "the joint limits")


def better(a: Outcome, b: Outcome, z0: np.ndarray) -> Outcome:
    """The better of two runs from different starts of the same problem.

    A run that meets every goal beats one that does not; between two that do,
    the one nearer the original start ``z0`` wins (continuity); between two
    that do not, the lower objective plus :data:`CONTINUITY` times the squared
    jump from ``z0`` wins.
    """
    a_ok, b_ok = a.evaluation.reached, b.evaluation.reached
    if a_ok != b_ok:
        return a if a_ok else b
    da = float(np.sum((a.y - z0) ** 2))
    db = float(np.sum((b.y - z0) ** 2))
    if a_ok:
        return a if da <= db else b
    score_a = a.evaluation.f + CONTINUITY * da
    score_b = b.evaluation.f + CONTINUITY * db
    return a if score_a <= score_b else b
