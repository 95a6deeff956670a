"""``"jt"``: the Jacobian transpose method, ``dz = s J^T e`` (seed 004), kept feasible.

One iteration, in the scaled variables ``z`` of :class:`~solver.assembly.scale.ScaledProblem`:

1. the stacked weighted task (:func:`~solver.methods.jacobian_step.task`): rows
   ``sqrt(w_i) J_i``, errors ``sqrt(w_i) r_i`` of every constraint, so that
   ``J^T e = -g / 2``, the steepest-descent direction of ``G``. Several
   end-effectors, on one chain or on the branches of a tree, combine by stacking:
   a joint's step is the sum of what each effector asks of it. (Seed 004 averages
   the per-effector steps; the sum is that average times the number of effectors
   moving the joint, and it is the gradient, so the step below can be chosen and
   checked on ``G`` itself.)
2. the step ``s = <e, J J^T e> / |J J^T e|^2``: the exact minimiser of the
   linearised error ``|e - s J J^T e|^2``. It shrinks the step as the effectors
   approach their targets (the linearised effector motion never overshoots), which
   is seed 004's "weight changed to an appropriately small value near the target".
   The step is then capped so that no variable moves more than ``step_limit``
   (default :data:`DEFAULT_STEP_LIMIT`: radians, or units of the characteristic
   length for prismatic variables).
3. limits: the trial point is projected onto the joint limits and linear rows
   (``problem.system``) by the exact Euclidean projection
   (:func:`~solver.methods.jacobian_step.feasible_point`), so every iterate satisfies every row (a
   projected-gradient arc, ``P(z + t dz)``); ``t`` starts at 1 and is halved
   until ``G`` decreases (at most :data:`MAX_HALVINGS` times).

Rigidity needs nothing more: the problem's variables are the coordinates divided
by ``1 - rigidity`` (:mod:`solver.assembly.problem`), so a rigid joint's Jacobian column,
and with it its step, is scaled down by ``(1 - rigidity)^2`` in joint units.

The method converges linearly (slowly on long or nearly straight chains: seed
004's "very slow rate"), so within the default 200 iterations it may stop at
``MAX_ITERATIONS`` short of the default tolerance where the projected methods
reach it (measured in the shared method tests, ``tests/test_methods.py``: one run meets
6 of 8 planar-chain targets, 1 of 8 two-hand tree targets and none of 8 full-pose
7-DOF arm targets at 1e-6 / 0.01 degrees). Stops and statuses:
:mod:`solver.methods.descent`.
"""

from __future__ import annotations

import numpy as np

from ..assembly.scale import ScaledEvaluation, ScaledProblem
from .descent import Descent, Evaluate, Step
from .jacobian_step import feasible_point, task
from .options import MethodOptions

#: Largest change of a scaled variable in one step when ``step_limit`` is None.
DEFAULT_STEP_LIMIT = 0.5
#: Halvings of a step that does not lower ``G`` before the run stops with ``NO_PROGRESS``.
MAX_HALVINGS = 40


def transpose_step(
    problem: ScaledProblem, evaluation: ScaledEvaluation, limit: float
) -> np.ndarray:
    """``s J^T e`` (n,) at ``evaluation``, with no entry larger than ``limit`` in magnitude."""
    jacobian, error = task(problem, evaluation)
    direction = jacobian.T @ error  # = -g / 2
    moved = jacobian @ direction  # J J^T e
    size = float(moved @ moved)
    largest = float(np.abs(direction).max(initial=0.0))
    if largest == 0.0:
        return direction
    s = float(direction @ direction) / size if size > 0.0 else np.inf
    return direction * min(s, limit / largest)


class JacobianTranspose(Descent):
    """The ``"jt"`` method (see the module docstring)."""

    def __init__(self, options: MethodOptions) -> None:
        self.max_iterations = options.max_iterations
        self.step_limit = DEFAULT_STEP_LIMIT if options.step_limit is None else options.step_limit

    def step(
        self, problem: ScaledProblem, evaluate: Evaluate, z: np.ndarray, e: ScaledEvaluation
    ) -> tuple[np.ndarray, ScaledEvaluation] | None:
        """One projected, halved Jacobian-transpose step from ``z`` (n,), or None."""
        dz = transpose_step(problem, e, self.step_limit)
        t = 1.0
        for _ in range(MAX_HALVINGS + 1):
            trial = feasible_point(problem, z, t * dz)
            if np.any(trial != z):
                candidate = evaluate(trial)
                if candidate.f < e.f:
                    return trial, candidate
            t *= 0.5
        return None

    def iteration(self, problem: ScaledProblem, deadline: float | None) -> Step:
        """:meth:`step` on ``problem``."""
        return lambda evaluate, z, e: self.step(problem, evaluate, z, e)
