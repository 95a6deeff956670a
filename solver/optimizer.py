"""BFGS with Rosen's gradient projection in Goldfarb's active-set frame (Appendix).

Minimises ``G(y)`` subject to ``A_i . y <= b_i`` (and ``== b_i`` for
equalities), with unit rows ``A_i``. ``H`` is kept projected onto the null
space of the active rows, so ``s = -H g`` never leaves them; the step is
capped at the nearest inactive row, so every iterate is feasible, and
Powell's line search makes ``G`` decrease at every iteration.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from enum import IntEnum
from typing import Generic, Protocol, TypeVar

import numpy as np

from .line_search import powell_search
from .linear import FEASIBILITY_TOLERANCE, LinearSystem

REFRESH_RATIO = 0.25


class Status(IntEnum):
    """Why the optimiser stopped."""

    GOAL_REACHED = 0
    KUHN_TUCKER = 1
    MAX_ITERATIONS = 2
    NO_PROGRESS = 3


MESSAGES = {
    Status.GOAL_REACHED: "Every constraint is satisfied within tolerance.",
    Status.KUHN_TUCKER: "Stopped at a Kuhn-Tucker point: no feasible descent direction "
    "remains (the best compromise the limits and weights allow).",
    Status.MAX_ITERATIONS: "Stopped at the iteration limit before converging.",
    Status.NO_PROGRESS: "Stopped because no step along the search direction decreased "
    "the objective (round-off level).",
}


class Evaluation(Protocol):
    """What the optimiser needs of an objective evaluation."""

    f: float
    g: np.ndarray

    @property
    def reached(self) -> bool: ...


E = TypeVar("E", bound=Evaluation)  # the caller's evaluation type, handed back in Outcome


@dataclass
class Outcome(Generic[E]):
    """Result of :func:`minimize`.

    Attributes:
        y: (n,) final point.
        evaluation: objective state at ``y``.
        status: why it stopped.
        nit: iterations taken.
        active: indices of the rows of the system active at ``y``.
        multipliers: (len(active),) Lagrange multipliers ``alpha`` of Step 2
            (<= 0 for inequalities at a Kuhn-Tucker point).
    """

    y: np.ndarray
    evaluation: E
    status: Status
    nit: int
    active: list[int]
    multipliers: np.ndarray


class _ActiveSet:
    """Active rows ``A_q`` (n, q) and ``(A_q^T A_q)^{-1}``, recomputed on change."""

    def __init__(self, system: LinearSystem) -> None:
        self.system = system
        self.rows: list[int] = []
        self._refresh()

    def _refresh(self) -> None:
        n = self.system.A.shape[1]
        self.N = self.system.A[self.rows].T.reshape(n, len(self.rows))
        self.M = np.linalg.inv(self.N.T @ self.N) if self.rows else np.zeros((0, 0))

    def add(self, i: int) -> None:
        self.rows.append(i)
        self._refresh()

    def remove(self, k: int) -> int:
        i = self.rows.pop(k)
        self._refresh()
        return i

    def project(self, v: np.ndarray) -> np.ndarray:
        """``P v`` with ``P = I - A_q (A_q^T A_q)^{-1} A_q^T``."""
        if not self.rows:
            return v.copy()
        return v - self.N @ (self.M @ (self.N.T @ v))

    def multipliers(self, g: np.ndarray) -> np.ndarray:
        """``alpha = (A_q^T A_q)^{-1} A_q^T g`` of Step 2."""
        return self.M @ (self.N.T @ g) if self.rows else np.zeros(0)


def _add_row(h: np.ndarray, a: np.ndarray) -> np.ndarray | None:
    """Eq. (32): ``H - (H a)(H a)^T / (a^T H a)``; None if ``a`` is dependent."""
    ha = h @ a
    denom = float(a @ ha)
    if denom <= 1e-12 * float(np.trace(h)) / max(len(a), 1) or denom <= 1e-300:
        return None
    return h - np.outer(ha, ha) / denom


def _gauss_newton_fits(e_old: Evaluation, sigma: np.ndarray, f_new: float, f_old: float) -> bool:
    """Whether the step's actual decrease matches the Gauss-Newton model's prediction.

    ``rho = (G_old - G_new) / -(g^T sigma + sigma^T J^T W J sigma)``; a good fit
    (``rho >= REFRESH_RATIO``) together with a real decrease of at least 20 %
    (Fletcher and Xu's test) means the sum of squares behaves like its
    linearisation with a small residual, where re-seeding ``H`` from
    Gauss-Newton beats a quasi-Newton update; otherwise BFGS/DFP learn the
    curvature that the residual adds.
    """
    gn = getattr(e_old, "gauss_newton", None)
    if gn is None:
        return False
    predicted = -float(e_old.g @ sigma) - 0.5 * float(sigma @ (gn() @ sigma))
    decrease = f_old - f_new
    return predicted > 0.0 and decrease >= REFRESH_RATIO * predicted and decrease >= 0.2 * f_old


def minimize(
    evaluate: Callable[[np.ndarray], E],
    y0: np.ndarray,
    system: LinearSystem,
    initial_hessian: Callable[[E], np.ndarray],
    max_iterations: int = 200,
    callback: Callable[[np.ndarray, float], None] | None = None,
    kt_tolerance: float = 1e-14,
    refresh: bool = True,
    max_step: float = 0.5,
) -> Outcome[E]:
    """Minimise ``G`` from the feasible point ``y0`` under the rows of ``system``.

    Args:
        evaluate: y (n,) -> evaluation with ``f``, ``g`` (n,) and ``reached``.
        y0: (n,) feasible start.
        system: unit rows (see :meth:`LinearSystem.normalised`).
        initial_hessian: evaluation -> (n, n) positive definite ``H_0``.
        max_iterations: iteration limit.
        callback: called as ``callback(y, G(y))`` at the start and every iterate.
        kt_tolerance: Step 2 treats ``H g`` as zero when
            ``g^T H g <= kt_tolerance * (1 + G)``.
        refresh: re-seed ``H`` from ``initial_hessian`` (projected by eq. 32)
            instead of a BFGS/DFP update after an iteration whose decrease matches
            the Gauss-Newton model (see :func:`_gauss_newton_fits`): Gauss-Newton
            speed on reachable goals, BFGS/DFP curvature where residuals remain.
        max_step: largest change of any variable in one iteration (a trust
            region on top of the Appendix's cap ``min(1, lambda)``).
    """
    y = np.array(y0, dtype=float)
    e = evaluate(y)
    if callback is not None:
        callback(y.copy(), e.f)
    active = _ActiveSet(system)
    a_rows, b = system.A, system.b

    def fresh_hessian(at: E) -> np.ndarray:
        h = initial_hessian(at)
        for i in active.rows:
            h = _add_row(h, a_rows[i]) if h is not None else None
        return h if h is not None else active.project(np.eye(len(y)))

    # Step 1: equalities first, then inequalities active at the start.
    slack = a_rows @ y - b if len(b) else np.zeros(0)
    start_rows = [i for i in range(len(b)) if system.equality[i]]
    start_rows += [
        i for i in range(len(b)) if not system.equality[i] and slack[i] >= -FEASIBILITY_TOLERANCE
    ]
    h = initial_hessian(e)
    for i in start_rows:
        pa = active.project(a_rows[i])
        if float(pa @ pa) < 1e-12:
            continue  # spanned by rows already active
        updated = _add_row(h, a_rows[i])
        active.add(i)
        h = updated if updated is not None else fresh_hessian(e)

    nit = 0
    dependent: set[int] = set()  # rows on their bound but spanned by the active rows
    just_reset = False
    status = Status.MAX_ITERATIONS
    while True:
        if e.reached:
            status = Status.GOAL_REACHED
            break
        # Step 2: Kuhn-Tucker test.
        hg = h @ e.g
        alpha = active.multipliers(e.g)
        predicted = float(e.g @ hg)
        beta_k, beta = -1, 0.0
        for k, i in enumerate(active.rows):
            if not system.equality[i]:
                value = alpha[k] / math.sqrt(active.M[k, k])
                if value > beta:
                    beta_k, beta = k, value
        stationary = predicted <= kt_tolerance * (1.0 + e.f)
        if stationary and not just_reset:
            # Confirm with a fresh H: updates can leave H nearly singular in a
            # direction where the projected gradient is not small.
            fresh = fresh_hessian(e)
            if float(e.g @ fresh @ e.g) > kt_tolerance * (1.0 + e.f):
                h, just_reset = fresh, True
                continue
        if stationary and beta_k < 0:
            status = Status.KUHN_TUCKER
            break
        # Step 3: drop the row whose multiplier has the wrong sign, eq. (30).
        if beta_k >= 0 and (stationary or np.linalg.norm(hg) <= 0.5 * beta):
            a = a_rows[active.remove(beta_k)]
            dependent.clear()
            pa = active.project(a)
            h = h + np.outer(pa, pa) / float(a @ pa)
            continue
        if nit >= max_iterations:
            break
        # Step 4: search direction, step cap, line search.
        s = -hg
        slope = float(e.g @ s)
        if slope >= 0.0:
            if just_reset:
                status = Status.NO_PROGRESS
                break
            h, just_reset = fresh_hessian(e), True
            continue
        s = active.project(s)  # guards against round-off drift out of the active rows
        inactive = np.ones(len(b), dtype=bool)
        inactive[active.rows] = False
        inactive[list(dependent)] = False
        inactive &= ~system.equality
        rate = a_rows @ s
        blocking = np.flatnonzero(inactive & (rate > 1e-12 * np.linalg.norm(s)))
        t_cap, j = min(1.0, max_step / max(float(np.abs(s).max()), 1e-300)), -1
        if len(blocking):
            ratios = np.maximum(b[blocking] - a_rows[blocking] @ y, 0.0) / rate[blocking]
            k = int(np.argmin(ratios))
            if ratios[k] <= t_cap:
                t_cap, j = float(ratios[k]), int(blocking[k])
        if j >= 0 and t_cap <= 1e-15:
            # Already on row j: add it without moving (Step 5 with a zero step),
            # unless it depends on the active rows (then it cannot block them).
            pa = active.project(a_rows[j])
            if float(pa @ pa) < 1e-12:
                dependent.add(j)
                continue
            updated = _add_row(h, a_rows[j])
            active.add(j)
            dependent.clear()
            h = updated if updated is not None else fresh_hessian(e)
            continue
        t, e_new = powell_search(evaluate, y, s, e, t_cap)
        if e_new is None:
            if just_reset:
                # Round-off stops the search; call it a Kuhn-Tucker point when the
                # projected step predicts no meaningful decrease and no multiplier
                # has the wrong sign.
                near = predicted <= 1e3 * kt_tolerance * (1.0 + e.f)  # H is fresh here
                status = Status.KUHN_TUCKER if near and beta_k < 0 else Status.NO_PROGRESS
                break
            h, just_reset = fresh_hessian(e), True
            continue
        just_reset = False
        sigma = t * s
        y = y + sigma
        g_old, f_old, e_old = e.g, e.f, e
        e = e_new
        nit += 1
        if callback is not None:
            callback(y.copy(), e.f)
        if j >= 0 and t >= t_cap:
            # Step 5: the step hit row j; add it, eq. (32).
            pa = active.project(a_rows[j])
            if float(pa @ pa) >= 1e-12:
                updated = _add_row(h, a_rows[j])
                active.add(j)
                dependent.clear()
                h = updated if updated is not None else fresh_hessian(e)
            continue
        if refresh and _gauss_newton_fits(e_old, sigma, e.f, f_old):
            h = fresh_hessian(e)
            continue
        # Step 6: BFGS (33) or DFP (34) update.
        yv = e.g - g_old
        sy = float(sigma @ yv)
        if sy <= 1e-300:
            continue
        hy = h @ yv
        yhy = float(yv @ hy)
        if sy >= yhy:
            h = (
                h
                + (
                    (1.0 + yhy / sy) * np.outer(sigma, sigma)
                    - np.outer(sigma, hy)
                    - np.outer(hy, sigma)
                )
                / sy
            )
        elif yhy > 0.0:
            h = h + np.outer(sigma, sigma) / sy - np.outer(hy, hy) / yhy
    return Outcome(y, e, status, nit, list(active.rows), active.multipliers(e.g))
