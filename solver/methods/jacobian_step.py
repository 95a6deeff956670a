"""What the Jacobian methods share: the linearised task and a step kept feasible.

The weighted objective of a :class:`~solver.assembly.scale.ScaledProblem` is a sum of
squares, ``G / L^2 = sum_i w_i |r_i|^2 / L^2``, so it is ``|e|^2`` for the
stacked task error ``e`` with blocks ``-sqrt(w_i) r_i / L`` (m,). Its Jacobian in
the scaled variables ``z`` (``y = D z``) stacks the blocks ``sqrt(w_i) J_i D / L``
(m, n), so ``J^T e = -g / 2`` and a step ``dz`` with ``J dz = e`` cancels every
residual to first order: the ``x`` and ``J`` of Maciejewski's ``J theta' = x'``
(seed 001, eq. 1). Rows and columns are dimensionless (the residuals are in
units of ``L``, the angles in radians, prismatic variables in units of ``L``).
"""

from __future__ import annotations

import math

import numpy as np

from ..assembly.scale import ScaledEvaluation, ScaledProblem
from ..model.linear import FEASIBILITY_TOLERANCE, LinearSystem, project


def task(problem: ScaledProblem, evaluation: ScaledEvaluation) -> tuple[np.ndarray, np.ndarray]:
    """The stacked weighted task Jacobian ``J`` (m, n) and error ``e`` (m,) at ``evaluation``.

    Constraints of weight 0 contribute no rows (they are not in ``G``).

    Args:
        problem: the scaled problem ``evaluation`` belongs to (its ``unit`` ``D``
            and length ``L``).
        evaluation: an evaluation of ``problem``.
    """
    n = len(evaluation.g)
    jacobians: list[np.ndarray] = []
    errors: list[np.ndarray] = []
    column = problem.factor_scale  # (n,) D / L
    for term in evaluation.raw.terms:
        if term.weight > 0.0:
            root = math.sqrt(term.weight)
            jacobians.append((root * term.jacobian) * column)
            errors.append((-root / problem.length) * term.residual)
    if not jacobians:
        return np.zeros((0, n)), np.zeros(0)
    return np.vstack(jacobians), np.concatenate(errors)


def on_bound(system: LinearSystem, z: np.ndarray) -> np.ndarray:
    """Indices of the rows of ``system`` that hold with equality at ``z`` (n,).

    Equality rows always; inequality rows whose slack is within
    :data:`~solver.model.linear.FEASIBILITY_TOLERANCE` (the rows are unit).
    """
    slack = system.b - system.A @ z
    return np.flatnonzero(system.equality | (slack <= FEASIBILITY_TOLERANCE))


def feasible_point(problem: ScaledProblem, z: np.ndarray, step: np.ndarray) -> np.ndarray:
    """``z + step`` (n,) moved to the nearest point satisfying every row of ``problem``.

    The exact Euclidean projection (:func:`solver.model.linear.project`); a point that
    satisfies every row is returned unchanged.
    """
    return project(problem.system, z + step, "the joint limits")


__all__ = ["feasible_point", "on_bound", "task"]
