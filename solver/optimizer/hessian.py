"""The Appendix's updates of ``H`` and the two strategies that seed it.

All updates are rank-one or rank-two corrections built from matrix-vector
products: O(n^2) each, no inverse.

Strategies (``hessian=`` of :class:`~solver.Solver`):

- ``"bfgs"`` — the Appendix as written: ``H_0 = I`` projected by (32), then
  only (30), (32) and (33)/(34); ``H`` is never rebuilt. The one safeguard:
  when ``sigma^T y <= 0`` the Step 6 update is skipped (and counted).
- ``"gauss-newton-hybrid"`` — ``H_0`` is the inverse of the damped
  Gauss-Newton matrix, and ``H`` is re-seeded from it (projected by (32))
  after every iteration whose decrease matches the Gauss-Newton model; in
  effect a projected Levenberg-Marquardt method with BFGS/DFP updates in
  between. Re-seeding costs O(m n^2) for m residuals (Woodbury, below), plus
  O(q n^2) to project the seed onto q active rows.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import numpy as np

#: Step 6 uses BFGS (33) when ``sigma^T y >= y^T H y`` (Fletcher 1970), else DFP (34).
BFGS_FORMULA = "bfgs"
DFP_FORMULA = "dfp"


def add_row(h: np.ndarray, a: np.ndarray) -> np.ndarray | None:
    """Eq. (32): ``H - (H a)(H a)^T / (a^T H a)`` (n, n); None if ``a^T H a`` ~ 0.

    Afterwards ``H a = 0``, so ``s = -H g`` keeps ``a . y`` constant.
    """
    ha = h @ a
    denom = float(a @ ha)
    if denom <= 1e-12 * float(h.trace()) / max(len(a), 1) or denom <= 1e-300:
        return None
    return _minus_outer(h, ha, denom)


def _minus_outer(h: np.ndarray, v: np.ndarray, denom: float) -> np.ndarray:
    """``h - v v^T / denom`` (n, n), a new array, with one temporary instead of three."""
    out = v[:, None] * v  # the outer product, as np.outer computes it
    out /= denom
    np.subtract(h, out, out=out)
    return out


def drop_row(h: np.ndarray, pa: np.ndarray) -> np.ndarray:
    """Eq. (30): ``H + (P a)(P a)^T / (a^T P a)`` (n, n), ``P`` without the row.

    Args:
        h: (n, n) ``H_q``.
        pa: (n,) ``P_{q-1} a`` for the unit row ``a`` leaving the active set
            (``a^T P a = |P a|^2`` since ``P`` is an orthogonal projection).
    """
    return h + np.outer(pa, pa) / float(pa @ pa)


def bfgs_update(h: np.ndarray, sigma: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Eq. (33), the BFGS update of the inverse Hessian (n, n); needs ``sigma^T y > 0``."""
    hy = h @ y
    sy = float(sigma @ y)
    yhy = float(y @ hy)
    # The correction ((1 + yHy/sy) s s^T - s (Hy)^T - Hy s^T) / sy is s w^T + w s^T
    # with w = ((1 + yHy/sy) s / 2 - Hy) / sy: one outer product and its transpose.
    w = (0.5 * (1.0 + yhy / sy) * sigma - hy) / sy
    half = np.outer(sigma, w)
    out = h + half
    out += half.T
    return out


def dfp_update(h: np.ndarray, sigma: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Eq. (34), the DFP update of the inverse Hessian (n, n); needs ``sigma^T y > 0``."""
    hy = h @ y
    return h + np.outer(sigma, sigma) / float(sigma @ y) - np.outer(hy, hy) / float(y @ hy)


def quasi_newton_formula(h: np.ndarray, sigma: np.ndarray, y: np.ndarray) -> str:
    """Step 6's switch: BFGS if ``sigma^T y >= y^T H y``, else DFP."""
    return BFGS_FORMULA if float(sigma @ y) >= float(y @ (h @ y)) else DFP_FORMULA


def quasi_newton_update(h: np.ndarray, sigma: np.ndarray, y: np.ndarray) -> np.ndarray | None:
    """Step 6: (33) or (34) by :func:`quasi_newton_formula`; None if ``sigma^T y <= 0``.

    Both keep ``H`` symmetric and satisfy the secant condition ``H' y = sigma``;
    with ``sigma`` and ``H`` in the null space of the active rows, so is ``H'``.
    """
    if float(sigma @ y) <= 1e-300 or float(y @ (h @ y)) <= 0.0:
        return None
    if quasi_newton_formula(h, sigma, y) == BFGS_FORMULA:
        return bfgs_update(h, sigma, y)
    return dfp_update(h, sigma, y)


class GaussNewtonEvaluation(Protocol):
    """An evaluation that also offers the Gauss-Newton matrix."""

    f: float
    g: np.ndarray

    def gauss_newton(self) -> np.ndarray: ...


def inverse_spd(a: np.ndarray) -> np.ndarray:
    """Inverse (n, n) of a symmetric positive definite matrix by Cholesky.

    ``A = L L^T`` so ``A^{-1} = L^{-T} L^{-1}``; ``L^{-1}`` comes from one
    solve against the identity (numpy has no triangular solver; the solve is
    O(n^3) like the factorisation). Raises ``numpy.linalg.LinAlgError`` if
    ``a`` is not positive definite.
    """
    lower = np.linalg.cholesky(a)
    lower_inv = np.linalg.solve(lower, np.eye(len(a)))
    return lower_inv.T @ lower_inv


def damped_inverse(
    factor: np.ndarray, mu_of: Callable[[float, float], float], f: float
) -> np.ndarray:
    """``(F^T F + mu I)^{-1}`` (n, n) for ``F`` (m, n), ``mu = mu_of(mean diagonal, f)``.

    With fewer residuals than variables (m < n, the usual IK case) the Woodbury
    identity ``(F^T F + mu I)^{-1} = (I - F^T (mu I + F F^T)^{-1} F) / mu`` needs
    only an (m, m) Cholesky factorisation: O(m n^2) in all, not O(n^3).
    """
    m, n = factor.shape
    mu = mu_of(float(np.einsum("ij,ij->", factor, factor)) / max(n, 1), f)
    if m >= n:
        return inverse_spd(factor.T @ factor + mu * np.eye(n))
    # In place on the diagonals (``flat[:: k + 1]``): no identity matrices built.
    inner = factor @ factor.T
    inner.flat[:: m + 1] += mu
    lower = np.linalg.cholesky(inner)
    x = np.linalg.solve(lower, factor)  # L^{-1} F, (m, n)
    h = x.T @ x
    np.negative(h, out=h)
    h.flat[:: n + 1] += 1.0
    h /= mu
    return h


class HessianStrategy(Protocol):
    """How ``H`` is seeded, and whether it is ever re-seeded."""

    @property
    def name(self) -> str:
        """The strategy's name, one of :data:`HESSIANS`."""
        ...

    @property
    def reseeds(self) -> bool:
        """Whether ``H`` is ever rebuilt from :meth:`initial` after the start."""
        ...

    def initial(self, e: GaussNewtonEvaluation) -> np.ndarray:
        """Unprojected ``H_0`` (n, n), symmetric positive definite."""
        ...

    def reseed_after(self, e_old: GaussNewtonEvaluation, sigma: np.ndarray, f_new: float) -> bool:
        """Whether to re-seed ``H`` instead of a Step 6 update after step ``sigma``."""
        ...


@dataclass(frozen=True)
class BFGS:
    """The Appendix as written: ``H_0 = I``, never re-seeded."""

    name: str = "bfgs"
    reseeds: bool = False

    def initial(self, e: GaussNewtonEvaluation) -> np.ndarray:
        return np.eye(len(e.g))

    def reseed_after(self, e_old: GaussNewtonEvaluation, sigma: np.ndarray, f_new: float) -> bool:
        return False


@dataclass(frozen=True)
class GaussNewtonHybrid:
    """``H`` seeded, and re-seeded, from the damped Gauss-Newton inverse.

    Attributes:
        damping: Levenberg damping relative to the Gauss-Newton matrix's mean
            diagonal; the objective ``G`` is added on top (Yamashita and
            Fukushima), so damping grows where the goals cannot all be met.
        fit_ratio: re-seed when the actual decrease is at least this fraction
            of the Gauss-Newton model's prediction (and at least 20 % of ``G``,
            Fletcher and Xu's test).
    """

    damping: float = 1e-6
    fit_ratio: float = 0.25
    name: str = "gauss-newton-hybrid"
    reseeds: bool = True

    def initial(self, e: GaussNewtonEvaluation) -> np.ndarray:
        factor = getattr(e, "gauss_newton_factor", None)
        if factor is None:
            gn = e.gauss_newton()
            n = len(gn)
            mu = self._mu(float(np.trace(gn)) / max(n, 1), e.f)
            return inverse_spd(gn + mu * np.eye(n))
        return damped_inverse(factor(), self._mu, e.f)

    def _mu(self, mean_diagonal: float, f: float) -> float:
        """Levenberg parameter: ``damping * mean diagonal + G`` (1 for a zero matrix)."""
        return self.damping * mean_diagonal + f if mean_diagonal > 0.0 else 1.0

    def reseed_after(self, e_old: GaussNewtonEvaluation, sigma: np.ndarray, f_new: float) -> bool:
        factor = getattr(e_old, "gauss_newton_factor", None)
        if factor is None:
            curvature = float(sigma @ (e_old.gauss_newton() @ sigma))
        else:
            f_sigma = factor() @ sigma
            curvature = float(f_sigma @ f_sigma)
        predicted = -float(e_old.g @ sigma) - 0.5 * curvature
        decrease = e_old.f - f_new
        return (
            predicted > 0.0 and decrease >= self.fit_ratio * predicted and decrease >= 0.2 * e_old.f
        )


#: Names accepted by ``hessian=``.
HESSIANS = ("bfgs", "gauss-newton-hybrid")


def make_strategy(name: str, damping: float = 1e-6) -> HessianStrategy:
    """The strategy called ``name`` (one of :data:`HESSIANS`)."""
    if name == "bfgs":
        return BFGS()
    if name == "gauss-newton-hybrid":
        return GaussNewtonHybrid(damping=damping)
    raise ValueError(f"unknown Hessian strategy {name!r}; expected one of {HESSIANS}")
