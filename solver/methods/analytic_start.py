"""The analytic warm start of ``Solver(analytic_start=True)``: two-bone limbs solved first.

For every enabled constraint whose chain is a two-bone limb
(:func:`~solver.methods.limb.find_limb`), in order, the analytic candidates of
:func:`~solver.methods.limb.limb_candidates` are projected onto the limits and
evaluated (:func:`_choose`: the nearest if it meets every goal, else the best
compromise of ``G`` and the distance from the start, the start itself included). A
candidate replaces the start only if its ``G`` is lower, so the start handed to the
solve method is never worse than the given one.
"""

from __future__ import annotations

import math

import numpy as np

from ..assembly.problem import Problem
from ..assembly.scale import ScaledEvaluation, ScaledProblem
from ..model.linear import project
from ..search.restarts import CONTINUITY
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
            z, here = _choose(scaled, limb, z, here)
        return z


def _choose(
    scaled: ScaledProblem, limb: Limb, z: np.ndarray, here: ScaledEvaluation
) -> tuple[np.ndarray, ScaledEvaluation]:
    """Where to start instead of ``z`` (evaluated as ``here``), projected, and its evaluation.

    The first candidate of :func:`limb_candidates` (the middle-joint solution nearer
    ``z``, on the start's side) is taken at once if it meets every goal and lowers
    ``G``. Otherwise every candidate is evaluated (six more planes where the limits
    moved one and none meets every goal), and among them and ``z`` itself the lowest
    ``G + CONTINUITY |z_c - z|^2`` wins (scaled units; the restarts' rule,
    :data:`~solver.search.restarts.CONTINUITY`): a start near the goal already, as when
    tracking, or a candidate near it that the limits pulled short, is not traded for
    a far pose on the other side that reaches the goal (the optimiser goes on from
    the near one).
    """
    tried: list[tuple[np.ndarray, ScaledEvaluation]] = []
    clipped = False
    for swivels in ((0.0,), MORE_SWIVELS):
        if swivels is MORE_SWIVELS and (
            not clipped or len(limb.upper.joints) == 1 or any(e.reached for _, e in tried)
        ):
            break
        seen: list[np.ndarray] = []
        for y in limb_candidates(scaled.problem, limb, scaled.to_y(z), swivels):
            candidate = scaled.from_y(y)
            if any(np.array_equal(candidate, other) for other in seen):
                continue  # a straight or folded limb gives the same pose twice
            seen.append(candidate)
            inside = project(scaled.system, candidate, "the joint limits")
            clipped = clipped or not np.array_equal(inside, candidate)
            evaluation = scaled.evaluate(inside)
            if not tried and evaluation.reached and evaluation.f < here.f:
                return inside, evaluation
            tried.append((inside, evaluation))

    def score(option: tuple[np.ndarray, ScaledEvaluation]) -> float:
        return option[1].f + CONTINUITY * float(np.sum((option[0] - z) ** 2))

    return min([(z, here), *tried], key=score)
