"""Newton-Raphson (``"newton"``): seed 003's eq. 3, ``x_new = x_old - J^-1 F(x_old)``.

The equations ``F = 0`` are the goals' residuals: every iteration linearises the task at
``z`` (:func:`~.jacobian_step.task`: the stacked weighted Jacobian ``J`` (m, n) and error
``e = -F`` (m,) in the scaled variables, the analytic Jacobian of eqs. 3-4) and steps by the
solution of ``J dz = e``:

- **square** (``m == n``, as many independent equations as moved variables: an
  exactly-constrained system such as a four-bar linkage with its crank held) and no limit
  row on its bound: ``dz = J^-1 e`` by an LU solve (``numpy.linalg.solve``), eq. 3 as
  written. The weights multiply both sides of a row, so they do not change this step.
- **not square, or singular**: the least-squares step of least norm, ``dz = J^+ e``
  (singular values at or below :data:`RCOND` ``* sigma_max`` taken as zero). It is
  ``J^-1 e`` when ``J`` is square and regular; for more equations than variables
  (over-constrained) it is the Gauss-Newton step, for fewer (under-constrained) the
  smallest change that meets the linearised equations. This is ``"pinv"``'s step with a
  cut-off of 1e-12 instead of 1e-5, so it stays Newton's step much closer to a singular
  pose (where ``"pinv"`` drops the small directions). "Square" counts residual rows, not
  independent equations: a line goal's residual is its offset projected across the line,
  three rows of rank two, so a loop closed by a hinge pin (a point on a line) takes this
  branch; the step is still exactly ``J^-1 e`` on the two independent equations, the
  third row being zero in both ``J`` and ``e``.
- **a limit row on its bound** (a joint at its limit, a linear row, a coordinate pinned by
  equal limits): the same least-norm step under those rows, by the active-set step of
  ``"dls"`` with no damping (:func:`~.dls.bounded_step`).

The rest is the loop of ``"dls"`` and ``"pinv"`` (:class:`~.dls.DampedLeastSquares`): the
step is cut back to a largest change of ``step_limit`` (default
:data:`~.dls.DEFAULT_STEP_LIMIT`, 0.5 rad) in any variable, brought back within every row
by the exact projection, and halved until ``G`` decreases, so limits and linear rows hold
at every iterate and ``G`` never rises; the statuses mean what they mean for every method
(``GOAL_REACHED`` only when every goal is within tolerance). Near a regular solution the
full step is taken and the residual falls quadratically (``|F_k+1| <= C |F_k|^2``); far
from one, or at a singular pose, Newton's method makes no promise (seed 003: it suits
mechanisms "for which there are known solutions", from a start "not too far from the final
result") -- warm-start it from the previous frame.
"""

from __future__ import annotations

import numpy as np

from ..assembly.scale import ScaledProblem
from .dls import DampedLeastSquares, bounded_step, damped_step
from .options import MethodOptions

#: Singular values at or below ``RCOND * sigma_max`` count as zero in the least-norm step.
RCOND = 1e-12


def newton_step(jacobian: np.ndarray, error: np.ndarray) -> np.ndarray:
    """The Newton-Raphson step (n,) solving ``J dz = e`` (``e = -F``).

    Args:
        jacobian: (m, n) task Jacobian ``J``.
        error: (m,) task error ``e``.

    Returns:
        ``J^-1 e`` when ``J`` is square and regular (LU), else the least-squares step of
        least norm ``J^+ e`` (cut-off :data:`RCOND`).
    """
    m, n = jacobian.shape
    if m == n and n:
        try:
            step = np.linalg.solve(jacobian, error)
        except np.linalg.LinAlgError:  # exactly singular: the least-norm step below
            pass
        else:
            if np.all(np.isfinite(step)):
                return step
    return damped_step(jacobian, error, 0.0, RCOND)


class NewtonRaphson(DampedLeastSquares):
    """Newton-Raphson on the goals' residuals (see the module).

    Args:
        options: ``max_iterations`` and ``step_limit`` (None: ``"pinv"``'s default, 0.5);
            ``dls_damping`` is not read (no damping).
    """

    def __init__(self, options: MethodOptions) -> None:
        super().__init__(options, pseudoinverse=True)

    def step(
        self,
        problem: ScaledProblem,
        task_at: tuple[np.ndarray, np.ndarray],
        rows: np.ndarray,
        damping: float,
    ) -> np.ndarray:
        """The step (n,) for the task Jacobian and error ``task_at`` (m, n), (m,) at a point
        where ``rows`` of ``problem.system`` are on their bound; ``damping`` is 0 (the run
        is ``"pinv"``'s, whose :meth:`run` cuts the step to ``step_limit``)."""
        jacobian, error = task_at
        system = problem.system
        if len(rows):
            return bounded_step(
                jacobian, error, damping, system.A[rows], system.equality[rows], rcond=RCOND
            )
        return newton_step(jacobian, error)


def newton_raphson(options: MethodOptions) -> NewtonRaphson:
    """The ``"newton"`` method."""
    return NewtonRaphson(options)


__all__ = ["RCOND", "NewtonRaphson", "newton_raphson", "newton_step"]
