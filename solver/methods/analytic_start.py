"""The analytic warm start of ``Solver(analytic_start=True)``: two-bone limbs solved first.

For every enabled constraint whose chain is a two-bone limb
(:func:`~solver.methods.limb.find_limb`), in order, the analytic candidates of
:func:`~solver.methods.limb.limb_candidates` are projected onto the limits and
evaluated. Among those that meet every goal the one nearest the current start is
chosen (continuity: the elbow stays on its side); if none does and the limb's root is
a ball, six more planes through the root and the target are tried (every 45 degrees
about that line: the limits may allow only some); failing that, the candidate with
the lowest objective ``G`` is chosen; it replaces the start only if its ``G`` is lower, so the start
handed to the solve method is never worse than the given one.
"""

from __future__ import annotations

import math

import numpy as np

from ..linear import project
from ..problem import Problem
from ..scale import ScaledEvaluation, ScaledProblem
from .limb import Limb, find_limb, limb_candidates

#: Swivels (radians) of a ball root's plane tried, with their mirror images, when neither
#: the start's plane nor its mirror image reaches within the limits.
MORE_SWIVELS = (math.pi / 4.0, math.pi / 2.0, 3.0 * math.pi / 4.0)


class AnalyticStart:
    """Chooses the start of each solve; keeps the limbs of the last assembled problem."""

    def __init__(self) -> None:
        self._limbs: tuple[Problem, list[Limb]] | None = None

    def limbs(self, problem: Problem) -> list[Limb]:
        """The two-bone limbs of ``problem``'s constraints (found once per assembly)."""
        cached = self._limbs
        if cached is None or cached[0] is not problem:  # a new problem: assembled again
            found = [find_limb(problem, c) for c in problem.constraints]
            cached = self._limbs = (problem, [limb for limb in found if limb is not None])
        return cached[1]

    def start(self, scaled: ScaledProblem, z0: np.ndarray) -> np.ndarray:
        """The start (n,) for a solve from the feasible ``z0`` (n,), in scaled variables."""
        limbs = self.limbs(scaled.problem)
        if not limbs:
            return z0
        z, here = z0, scaled.evaluate(z0)
        for limb in limbs:
            choice = _choose(scaled, limb, z)
            if choice is not None and choice[1].f < here.f:
                z, here = choice
        return z


def _choose(
    scaled: ScaledProblem, limb: Limb, z: np.ndarray
) -> tuple[np.ndarray, ScaledEvaluation] | None:
    """The best projected candidate of ``limb`` from ``z`` and its evaluation, or None."""
    options: list[tuple[np.ndarray, ScaledEvaluation]] = []
    for swivels in ((0.0,), () if len(limb.upper.joints) == 1 else MORE_SWIVELS):
        for y in limb_candidates(scaled.problem, limb, scaled.to_y(z), swivels):
            candidate = project(scaled.system, scaled.from_y(y), "the joint limits")
            options.append((candidate, scaled.evaluate(candidate)))
        reaching = [o for o in options if o[1].reached]
        if reaching:
            return min(reaching, key=lambda o: float(np.sum((o[0] - z) ** 2)))
    return min(options, key=lambda o: o[1].f) if options else None
