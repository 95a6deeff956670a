"""The stacked, weighted task of an evaluation: error ``e`` and Jacobian ``J`` in ``z``.

Every constraint ``i`` contributes the rows ``sqrt(w_i) J_i D / L`` and the
error ``-sqrt(w_i) r_i / L`` (``D`` the per-variable unit of
:class:`~solver.scale.ScaledProblem`, ``L`` the characteristic length), so that
the scaled objective is ``G / L^2 = |e|^2`` and its gradient is
``g = -2 J^T e``: the Jacobian methods step along ``J^T e = -g / 2``.
"""

from __future__ import annotations

import math

import numpy as np

from ..scale import ScaledEvaluation, ScaledProblem


def stacked_task(
    problem: ScaledProblem, evaluation: ScaledEvaluation
) -> tuple[np.ndarray, np.ndarray]:
    """``(J, e)``: stacked weighted Jacobian (m, n) and task error (m,) at ``evaluation``.

    ``evaluation`` is ``problem.evaluate(z)`` at some ``z`` (n,).

    ``m`` is the total residual length of the constraints with a positive weight;
    ``|e|^2`` equals ``evaluation.f`` and ``J^T e`` equals ``-evaluation.g / 2``.
    """
    rows: list[np.ndarray] = []
    errors: list[np.ndarray] = []
    for term in evaluation.raw.terms:
        if term.weight > 0.0:
            root = math.sqrt(term.weight) / problem.length
            rows.append(root * term.jacobian * problem.unit)
            errors.append(-root * term.residual)
    n = len(problem.unit)
    if not rows:
        return np.zeros((0, n)), np.zeros(0)
    return np.vstack(rows), np.concatenate(errors)
