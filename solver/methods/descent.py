"""The loop shared by the descent methods that move from one feasible point to a better one.

:func:`descend` runs a method's step (``"jt"``: one projected Jacobian-transpose
step; ``"ccd"``: one sweep over the variables) until the goals are met, the
Kuhn-Tucker conditions hold, no step lowers ``G``, the iteration limit or the
deadline, and reports which with an honest :class:`~solver.optimizer.Status`:

- ``GOAL_REACHED``: every constraint within tolerance;
- ``KUHN_TUCKER``: checked, not assumed: the projected gradient
  ``d = P(z - g) - z`` (``P`` the exact projection onto the rows,
  :func:`solver.model.linear.project`) vanishes (:func:`kuhn_tucker`): ``-g`` lies in the
  normal cone of the feasible set at ``z``;
- ``NO_PROGRESS``: the step found no feasible point with a lower ``G``;
- ``MAX_ITERATIONS``, ``TIME_LIMIT`` (the deadline is read before every iteration, and a
  step that ends early at it and moves nothing stops the run with ``TIME_LIMIT``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from ..assembly.scale import ScaledEvaluation, ScaledProblem
from ..model.linear import LinearSystem, project
from ..optimizer import Outcome, Status
from .jacobian_step import on_bound

if TYPE_CHECKING:
    from .method import Callback

#: Bound on the Gauss-Newton size of the projected gradient, relative to ``1 + G``, under
#: which a point counts as a Kuhn-Tucker point (scaled units; the projected optimiser's
#: Step 2 uses the same bound on ``g^T H g``).
KT_TOLERANCE = 1e-14

Evaluate = Callable[[np.ndarray], ScaledEvaluation]

#: One iteration: ``step(evaluate, z, evaluation)`` returns a feasible point with a lower
#: ``G`` and its evaluation, or None when it finds none.
Step = Callable[
    [Evaluate, np.ndarray, ScaledEvaluation], tuple[np.ndarray, ScaledEvaluation] | None
]


def projected_gradient(system: LinearSystem, z: np.ndarray, g: np.ndarray) -> np.ndarray:
    """``P(z - g) - z`` (n,): zero exactly at a Kuhn-Tucker point of the rows ``system``."""
    return project(system, z - g, "the joint limits") - z


def kuhn_tucker(system: LinearSystem, z: np.ndarray, evaluation: ScaledEvaluation) -> bool:
    """Whether ``z`` (n,) is a Kuhn-Tucker point within :data:`KT_TOLERANCE`.

    The projected gradient ``d = P(z - g) - z`` is zero exactly at a Kuhn-Tucker point;
    it counts as zero when its Gauss-Newton size ``d^T (F^T F)^+ d`` (``F`` the
    Gauss-Newton factor, so ``F^T F`` approximates the Hessian of ``G``) is at most
    ``KT_TOLERANCE (1 + G)``: the projected optimiser's ``g^T H g`` test with ``H`` the
    Gauss-Newton inverse, in the units of ``G``, so a badly conditioned Jacobian does not
    make a point that is still far from stationary look like one.
    """
    d = projected_gradient(system, z, evaluation.g)
    if not np.any(d):
        return True
    u = np.linalg.lstsq(evaluation.gauss_newton_factor().T, d, rcond=None)[0]
    return float(u @ u) <= KT_TOLERANCE * (1.0 + evaluation.f)


def _stop(
    problem: ScaledProblem,
    z: np.ndarray,
    e: ScaledEvaluation,
    nit: int,
    max_iterations: int,
    deadline: float | None,
) -> Status | None:
    """Why the run stops at ``z`` before its next iteration, or None to go on."""
    if e.reached:
        return Status.GOAL_REACHED
    if deadline is not None and time.perf_counter() >= deadline:
        return Status.TIME_LIMIT
    if kuhn_tucker(problem.system, z, e):
        return Status.KUHN_TUCKER
    return Status.MAX_ITERATIONS if nit >= max_iterations else None


class Descent:
    """A method whose run is :func:`descend` over its own :data:`Step`."""

    max_iterations: int

    def iteration(self, problem: ScaledProblem, deadline: float | None) -> Step:
        """The step of one iteration on ``problem`` (it may end early at ``deadline``)."""
        raise NotImplementedError

    def run(
        self,
        problem: ScaledProblem,
        z0: np.ndarray,
        callback: Callback | None,
        deadline: float | None,
    ) -> Outcome[ScaledEvaluation]:
        """Iterate from ``z0`` (n,); see :class:`~solver.methods.Method`."""
        return descend(
            problem, z0, self.iteration(problem, deadline), self.max_iterations, callback, deadline
        )


def descend(
    problem: ScaledProblem,
    z0: np.ndarray,
    step: Step,
    max_iterations: int,
    callback: Callback | None,
    deadline: float | None,
) -> Outcome[ScaledEvaluation]:
    """Iterate ``step`` from the feasible ``z0`` (n,); every iterate lowers ``G``.

    Args:
        problem: the scaled problem.
        z0: (n,) feasible start.
        step: one iteration (see :data:`Step`); it must return feasible points only.
        max_iterations: limit on iterations (steps that moved the point).
        callback: ``callback(z, G)`` at the start and after every iteration.
        deadline: absolute ``time.perf_counter()`` value to stop at, or None.
    """
    nfev = 0

    def evaluate(z: np.ndarray) -> ScaledEvaluation:
        nonlocal nfev
        nfev += 1
        return problem.evaluate(z)

    z = np.array(z0, dtype=float)
    e = evaluate(z)
    if callback is not None:
        callback(z.copy(), e.f)
    nit = 0
    while (status := _stop(problem, z, e, nit, max_iterations, deadline)) is None:
        moved = step(evaluate, z, e)
        if moved is None:
            late = deadline is not None and time.perf_counter() >= deadline
            status = Status.TIME_LIMIT if late else Status.NO_PROGRESS
            break
        z, e = moved
        nit += 1
        if callback is not None:
            callback(z.copy(), e.f)
    active = [int(i) for i in on_bound(problem.system, z)]
    normals = problem.system.A[active]
    multipliers = (
        np.linalg.lstsq(normals.T, e.g, rcond=None)[0] if active else np.zeros(0)
    )  # alpha with g ~ A_q^T alpha, as the projected optimiser's Step 2 (<= 0 at a KT point)
    return Outcome(
        y=z,
        evaluation=e,
        status=status,
        nit=nit,
        nfev=nfev,
        active=active,
        multipliers=multipliers,
    )
