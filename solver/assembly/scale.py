"""The figure's size, and the solve carried out in units of it (scale-free defaults).

A rig in centimetres, a robot in metres and a figure scaled by 1e-6 are the
same problem in different units. :func:`characteristic_length` measures the
size ``L`` of what the constraints move; the solver then

- weighs one radian of orientation error like ``L`` (goals built with
  ``degrees=None``),
- takes its default distance tolerance as a fraction of ``L``,
- and runs the optimiser on :class:`ScaledProblem`: objective divided by
  ``L^2`` and prismatic variables measured in units of ``L``, so the
  Kuhn-Tucker test, the step cap and the Levenberg damping see the same
  numbers at every scale.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ..model.constraint import Constraint
from ..model.figure import Figure
from ..model.linear import LinearSystem
from ..model.structure import PRISMATIC
from .problem import Evaluation, Problem


def _chain_length(figure: Figure, constraint: Constraint) -> float:
    """Sum of segment offsets from the chain's root to the effector point (scene units)."""
    segments = figure.segments
    s = figure.segment_index(constraint.effector.segment)
    root = None if constraint.chain_root is None else figure.segment_index(constraint.chain_root)
    total = float(np.linalg.norm(constraint.effector.point))
    while s >= 0 and s != root and segments[s].parent >= 0:
        total += float(np.linalg.norm(segments[s].translation))
        s = segments[s].parent
    return total


def _prismatic_range(figure: Figure) -> float:
    """Largest finite travel of a prismatic joint (scene units), 0 if none."""
    ranges = [
        j.upper - j.lower
        for j in figure.joints
        if j.kind == PRISMATIC and math.isfinite(j.upper - j.lower)
    ]
    return max(ranges, default=0.0)


def characteristic_length(figure: Figure, constraints: Sequence[Constraint]) -> float:
    """The reach ``L`` (scene units, > 0) of the chains that ``constraints`` move.

    ``L`` is the longest chain among the enabled constraints, measured as the
    sum of the segment offsets from the chain's root (its ``chain_root`` or
    the figure's root) down to the effector point. A figure whose offsets are
    all zero (e.g. only prismatic joints) falls back to its largest finite
    prismatic travel, and then to one scene unit.
    """
    lengths = [_chain_length(figure, c) for c in constraints if c.enabled]
    length = max(lengths, default=0.0)
    if length > 0.0 and math.isfinite(length):
        return length
    travel = _prismatic_range(figure)
    return travel if travel > 0.0 else 1.0


def sliding(figure: Figure, coupling: np.ndarray) -> np.ndarray:
    """Which columns of ``coupling`` (n_joints, k) move prismatic joints only (k,) bool:
    the coordinates measured in scene units rather than radians."""
    prismatic = np.array([j.kind == PRISMATIC for j in figure.joints], dtype=bool)
    moves = np.abs(coupling) > 0.0
    return np.asarray(moves.any(axis=0) & ~(moves & ~prismatic[:, None]).any(axis=0))


class ScaledEvaluation:
    """An evaluation seen in scaled units: ``f / L^2``, ``D g / L^2``, ``D GN D / L^2``.

    Attributes:
        raw: the evaluation in scene units (reports, objective for the user).
        f: scaled objective.
        g: (n,) scaled gradient.
    """

    __slots__ = ("_factor", "_gn", "_scaled", "f", "g", "raw")

    def __init__(self, raw: Evaluation, scaled: ScaledProblem) -> None:
        self.raw = raw
        self._scaled = scaled
        self.f = raw.f * scaled.inverse_square
        self.g = raw.g * scaled.gradient_scale
        self._gn: np.ndarray | None = None
        self._factor: np.ndarray | None = None

    @property
    def reached(self) -> bool:
        """Every constraint within tolerance (unchanged by scaling)."""
        return self.raw.reached

    def gauss_newton_factor(self) -> np.ndarray:
        """Scaled factor ``F D / L`` (m, n): its ``F^T F`` is :meth:`gauss_newton`.

        Cached (read-only): the hybrid optimiser asks for it twice per point, to seed ``H``
        there and to judge the step from there (:meth:`GaussNewtonHybrid.reseed_after`).
        """
        if self._factor is None:
            factor = self.raw.gauss_newton_factor()  # type: ignore[attr-defined]
            self._factor = factor * self._scaled.factor_scale
            self._factor.flags.writeable = False
        return self._factor

    def gauss_newton(self) -> np.ndarray:
        """Scaled Gauss-Newton matrix (n, n)."""
        if self._gn is None:
            d = self._scaled.unit
            gn = self.raw.gauss_newton()
            self._gn = gn * np.outer(d, d) * self._scaled.inverse_square
        return self._gn


class ScaledProblem:
    """``problem`` in units of ``length``: variables ``z = y / D``, objective ``G / L^2``.

    ``D`` is ``L`` for variables that move only prismatic joints and 1 for the
    others (radians need no scale). The rows become ``(A D) z <= b``, renormalised.

    Args:
        problem: the assembled problem in scene units.
        length: characteristic length ``L`` (scene units, > 0).
    """

    def __init__(self, problem: Problem, length: float) -> None:
        self.problem = problem
        self.length = float(length)
        self.inverse_square = 1.0 / (self.length * self.length)
        self.unit = self._units(problem, self.length)
        self.gradient_scale = self.unit * self.inverse_square  # (n,) D / L^2
        self.factor_scale = self.unit / self.length  # (n,) D / L, of the Gauss-Newton factor
        rows = problem.system
        norms = np.linalg.norm(rows.A * self.unit, axis=1)
        self._keep = norms > 1e-14
        self._norms = norms[self._keep]
        self.system = LinearSystem(
            rows.A[self._keep] * self.unit / self._norms[:, None],
            rows.b[self._keep] / self._norms,
            rows.equality[self._keep],
            [label for label, k in zip(rows.labels, self._keep, strict=True) if k],
        )

    def rebase(self) -> None:
        """Follow :meth:`Problem.rebase`: same rows ``A``, new right-hand sides ``b``."""
        self.system.b = self.problem.system.b[self._keep] / self._norms

    @staticmethod
    def _units(problem: Problem, length: float) -> np.ndarray:
        return np.where(sliding(problem.figure, problem.coupling), length, 1.0)

    def evaluate(self, z: np.ndarray) -> ScaledEvaluation:
        """Scaled evaluation at ``z`` (n,)."""
        return ScaledEvaluation(self.problem.evaluate(self.unit * z), self)

    def to_y(self, z: np.ndarray) -> np.ndarray:
        """Problem variables ``y`` (n,) of scaled variables ``z``."""
        return self.unit * z

    def from_y(self, y: np.ndarray) -> np.ndarray:
        """Scaled variables ``z`` (n,) of problem variables ``y``."""
        return np.asarray(y, dtype=float) / self.unit
