"""The solve methods behind ``Solver(method=...)``: one run from a start, same result.

Every method minimises the same weighted objective ``G`` (eq. 25) of the same
:class:`~solver.assembly.scale.ScaledProblem` from a feasible start and hands back an
:class:`~solver.optimizer.Outcome`, so restarts, the status, the residuals and
the result object are shared by all of them:

- ``"gauss-newton-hybrid"`` and ``"bfgs"``: the projected quasi-Newton optimiser
  of the Appendix (:mod:`solver.optimizer`), with the two Hessian strategies.
- ``"dls"`` and ``"pinv"``: damped least squares (eq. 16, seed 001) and the
  pseudoinverse, with an active-set treatment of the limits (:mod:`.dls`).
- ``"jt"``: the Jacobian transpose, projected onto the limits (:mod:`.transpose`).
- ``"ccd"``: cyclic coordinate descent, distal to proximal (:mod:`.ccd`).
- ``"newton"``: Newton-Raphson on the goals' residuals (seed 003, eq. 3), ``J^-1`` for
  an exactly-constrained system, the least-norm least-squares step otherwise (:mod:`.newton`).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..assembly.scale import ScaledEvaluation, ScaledProblem
from ..optimizer import Outcome, make_strategy, minimize
from .ccd import CyclicCoordinateDescent
from .dls import damped_least_squares, pseudoinverse
from .method import Callback, Method
from .newton import newton_raphson
from .options import MethodOptions
from .transpose import JacobianTranspose


class Projected:
    """The Appendix's gradient projection with a quasi-Newton ``H`` (:func:`minimize`)."""

    def __init__(self, hessian: str, options: MethodOptions) -> None:
        self.strategy = make_strategy(hessian, options.damping)
        self.max_iterations = options.max_iterations

    def run(
        self,
        problem: ScaledProblem,
        z0: np.ndarray,
        callback: Callback | None,
        deadline: float | None,
    ) -> Outcome[ScaledEvaluation]:
        return minimize(
            problem.evaluate,
            z0,
            problem.system,
            self.strategy,
            self.max_iterations,
            callback,
            deadline=deadline,
        )


def _projected(hessian: str) -> Callable[[MethodOptions], Method]:
    return lambda options: Projected(hessian, options)


#: Every method by its ``method=`` name (scripts rely on these exact names).
FACTORIES: dict[str, Callable[[MethodOptions], Method]] = {
    "gauss-newton-hybrid": _projected("gauss-newton-hybrid"),
    "bfgs": _projected("bfgs"),
    "dls": damped_least_squares,
    "pinv": pseudoinverse,
    "jt": JacobianTranspose,
    "ccd": CyclicCoordinateDescent,
    "newton": newton_raphson,
}

#: Names accepted by ``method=``, the default first.
METHODS = tuple(FACTORIES)


def make_method(name: str, options: MethodOptions) -> Method:
    """The method called ``name`` (one of :data:`METHODS`) with ``options``."""
    return FACTORIES[name](options)


__all__ = ["METHODS", "Callback", "Method", "MethodOptions", "Projected", "make_method"]
