"""BFGS with Rosen's gradient projection in Goldfarb's active-set frame (Appendix).

Minimises ``G(y)`` subject to ``A_i . y <= b_i`` (and ``== b_i`` for
equalities), with unit rows ``A_i``. ``H`` is kept projected onto the null
space of the active rows, so ``s = -H g`` never leaves them; the step is
capped at the nearest inactive row, so every iterate is feasible, and
Powell's line search makes ``G`` decrease at every iteration.

Two departures from the Appendix's assumptions, both for degenerate limits:

- a row on its bound that is (numerically) spanned by the active rows cannot
  enter the active set, but it still caps the step; when it blocks a step of
  zero length the step is taken with ``H`` projected off the row's residual
  ``P a`` by (32) (for that step only), so the iterate slides along the row
  instead of crossing it;
- inequality rows the start lies on are not put in the active set at Step 1;
  each enters when a step runs into it (a zero-length step capped by it, then
  Step 5). Entering them all at once made a start on a bound, e.g. a joint at a
  limit of zero, drop them again one by one (a Kuhn-Tucker test per row):
  solves of a 3-bone chain starting on such bounds took a median of 57
  iterations instead of 8;
- passes that do not move the point (adding or dropping rows, zero-length
  steps) are not iterations; after more of them in a row than the rows and
  variables could need, the run stops with ``NO_PROGRESS`` (or
  ``KUHN_TUCKER`` when the Kuhn-Tucker conditions hold there); so does a run
  whose steps lower ``G`` only at round-off level (:data:`CREEP`) for
  :data:`CREEP_LIMIT` iterations in a row (creeping between a row and its
  nearly parallel copy, e.g., it used to spend the whole iteration budget
  there).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Generic

import numpy as np

from ..model.linear import LinearSystem
from .active_set import DEPENDENT, ActiveSet
from .hessian import HessianStrategy, add_row, drop_row, quasi_newton_update
from .line_search import powell_search
from .outcome import E, Outcome, Status

#: A step lowering ``G`` by at most ``CREEP * (1 + G)`` makes no progress beyond round-off.
CREEP = 1e-14
#: Such steps in a row after which a run stops.
CREEP_LIMIT = 10


def _project_both(active: ActiveSet, h: np.ndarray) -> np.ndarray:
    """``P H P`` (n, n): the fallback of (32) when ``a^T H a`` vanishes."""
    ph = active.project(h)
    return active.project(ph.T)


def _independent_equalities(active: ActiveSet, inequality: np.ndarray) -> Iterator[int]:
    """The equality rows (``~inequality``), in order, that are independent of the active
    rows when their turn comes: each is tested after the previous ones have entered."""
    for i in np.flatnonzero(~inequality):
        if not active.is_dependent(int(i)):
            yield int(i)


def minimize(
    evaluate: Callable[[np.ndarray], E],
    y0: np.ndarray,
    system: LinearSystem,
    strategy: HessianStrategy,
    max_iterations: int = 200,
    callback: Callable[[np.ndarray, float], None] | None = None,
    kt_tolerance: float = 1e-14,
    max_step: float = 0.5,
    deadline: float | None = None,
) -> Outcome[E]:
    """Minimise ``G`` from the feasible point ``y0`` under the rows of ``system``.

    Args:
        evaluate: y (n,) -> evaluation with ``f``, ``g`` (n,) and ``reached``
            (and ``gauss_newton_factor()`` (m, n) or ``gauss_newton()`` (n, n)
            for the ``"gauss-newton-hybrid"`` strategy; the factor keeps the
            seed O(m n^2)).
        y0: (n,) feasible start.
        system: unit rows (see :meth:`LinearSystem.normalised`).
        strategy: how ``H`` is seeded and whether it is re-seeded
            (:mod:`solver.optimizer.hessian`).
        max_iterations: limit on iterations that move the point.
        callback: called as ``callback(y, G(y))`` at the start and every iterate.
        kt_tolerance: Step 2 treats ``H g`` as zero when
            ``g^T H g <= kt_tolerance * (1 + G)``.
        max_step: largest change of any variable in one iteration (radians or
            scene units; a trust region on top of the Appendix's cap
            ``min(1, lambda)``).
        deadline: absolute ``time.perf_counter()`` value after which the run
            stops with ``TIME_LIMIT`` (checked once per pass), or None.
    """
    run = _Run(evaluate, y0, system, strategy, callback, kt_tolerance, max_step)
    if run.met:
        # The start meets every goal, so the loop would stop at once: the equalities enter
        # (the outcome lists them) but no H is built (a seed costs O(m n^2)).
        run.enter_equalities_without_h()
        return run.outcome(Status.GOAL_REACHED)
    run.step_1()
    status = None
    while status is None:
        status = run.next_pass(max_iterations, deadline)
    return run.outcome(status)


@dataclass(frozen=True)
class _KuhnTucker:
    """Step 2 at the current point: ``H g``, the most positive scaled multiplier of an
    active inequality (``beta``, its position ``beta_k`` in the active set, -1 if none) and
    whether ``H g`` counts as zero (``stationary``)."""

    hg: np.ndarray
    beta_k: int
    beta: float
    stationary: bool

    @property
    def holds(self) -> bool:
        """A Kuhn-Tucker point: ``H g`` zero and no inequality to drop."""
        return self.stationary and self.beta_k < 0

    @property
    def stuck(self) -> Status:
        """How a run that cannot move from here ends: Step 2's own test decides."""
        return Status.KUHN_TUCKER if self.holds else Status.NO_PROGRESS


class _Run(Generic[E]):
    """The state of one run of the Appendix: the point ``y`` and its evaluation, ``H``
    projected onto the active rows, the active set, and the counters; one method a step."""

    def __init__(
        self,
        evaluate: Callable[[np.ndarray], E],
        y0: np.ndarray,
        system: LinearSystem,
        strategy: HessianStrategy,
        callback: Callable[[np.ndarray, float], None] | None,
        kt_tolerance: float,
        max_step: float,
    ) -> None:
        self.evaluate_at = evaluate
        self.strategy = strategy
        self.callback = callback
        self.kt_tolerance = kt_tolerance
        self.max_step = max_step
        self.nfev = 0
        self.y = np.array(y0, dtype=float)
        self.e = self.count(self.y)
        self.met = self.e.reached  # every goal met at y: asked once per point
        if callback is not None:
            callback(self.y.copy(), self.e.f)
        self.active = ActiveSet(system)
        self.a_rows, self.b = system.A, system.b
        self.inequality = ~np.asarray(system.equality, dtype=bool)
        # Inequality rows not in the active set (the rows that can block a step), kept up
        # to date as rows enter and leave rather than rebuilt at every pass.
        self.free = self.inequality.copy()
        self.h = np.zeros((0, 0))  # built at Step 1
        self.reseeds = self.skipped = 0
        self.nit = 0
        self.stalls = 0  # passes in a row that did not move the point
        self.creeping = 0  # steps in a row that lowered G only at round-off level
        self.stall_limit = 2 * len(self.b) + len(self.y) + 10
        self.blocked: list[np.ndarray] = []  # unit residuals P a of dependent rows met here
        self.fresh = False  # H was re-seeded at this point (hybrid only)

    def count(self, v: np.ndarray) -> E:
        """``evaluate(v)``, counted in ``nfev``."""
        self.nfev += 1
        return self.evaluate_at(v)

    # ------------------------------------------------------------------ H
    def seeded(self, at: E) -> np.ndarray:
        """The strategy's seed of ``H`` at ``at``, projected onto the active rows by (32)."""
        h = self.strategy.initial(at)  # type: ignore[arg-type]
        for i in self.active.rows:
            updated = add_row(h, self.a_rows[i])
            h = updated if updated is not None else _project_both(self.active, h)
        return h

    def reseed(self) -> bool:
        """Re-seed ``H`` here unless the strategy never does or it was just done; whether it
        was (the pass then starts again at Step 2 with the fresh ``H``)."""
        if not self.strategy.reseeds or self.fresh:
            return False
        self.h, self.fresh = self.seeded(self.e), True
        self.reseeds += 1
        return True

    def enter(self, i: int) -> None:
        """Add row ``i`` to the active set and update ``H`` by eq. (32)."""
        updated = add_row(self.h, self.a_rows[i])
        self.active.add(i)
        self.free[i] = False
        self.h = updated if updated is not None else _project_both(self.active, self.h)

    # ---------------------------------------------------------------- steps
    def enter_equalities_without_h(self) -> None:
        """Step 1's active set alone (a start that meets every goal needs no ``H``)."""
        for i in _independent_equalities(self.active, self.inequality):
            self.active.add(i)

    def step_1(self) -> None:
        """Step 1: ``H_0`` from the strategy, and the equalities entered by (32).
        Inequalities the start lies on enter only when they block a step (Step 5 with a
        zero step, :meth:`meet_row`): see the module doc."""
        self.h = self.strategy.initial(self.e)  # type: ignore[arg-type]
        for i in _independent_equalities(self.active, self.inequality):
            self.enter(i)

    def step_2(self) -> _KuhnTucker:
        """Step 2: ``H g`` and the multipliers ``alpha`` of the active rows."""
        e, active = self.e, self.active
        hg = self.h @ e.g
        alpha = active.multipliers(e.g)
        predicted = float(e.g @ hg)
        beta_k, beta = -1, 0.0
        for k, i in enumerate(active.rows):
            if self.inequality[i]:
                value = alpha[k] / math.sqrt(active.M[k, k])
                if value > beta:
                    beta_k, beta = k, value
        stationary = predicted <= self.kt_tolerance * (1.0 + e.f)
        return _KuhnTucker(hg, beta_k, beta, stationary)

    def confirm(self) -> bool:
        """At a stationary point, confirm with a fresh ``H`` (hybrid only): updates can
        leave ``H`` nearly singular in a direction where the projected gradient is not
        small. Whether the fresh ``H`` was kept (it was not stationary there)."""
        e = self.e
        if not self.strategy.reseeds or self.fresh:
            return False
        candidate = self.seeded(e)
        if float(e.g @ candidate @ e.g) > self.kt_tolerance * (1.0 + e.f):
            self.h, self.fresh = candidate, True
            self.reseeds += 1
            return True
        return False

    def step_3(self, beta_k: int) -> None:
        """Step 3: drop the active inequality at ``beta_k`` (wrong-sign multiplier), eq. (30)."""
        dropped = self.active.remove(beta_k)
        self.free[dropped] = True  # only inequality rows are dropped
        self.h = drop_row(self.h, self.active.project(self.a_rows[dropped]))
        self.blocked.clear()
        self.stalls += 1

    def direction(self, hg: np.ndarray) -> np.ndarray:
        """Step 4's search direction ``s = -H g`` (n,), kept in the active rows; while
        sliding along dependent rows (:attr:`blocked`), the quasi-Newton step on that face:
        ``H`` projected off their residuals by (32) for this step only."""
        if self.blocked:
            h_face: np.ndarray | None = self.h
            for r in self.blocked:
                h_face = add_row(h_face, r) if h_face is not None else None
            s = -(h_face @ self.e.g) if h_face is not None else -hg
            for r in self.blocked:
                s = s - float(r @ s) * r
        else:
            s = -hg
        return self.active.project(s)  # guards against round-off drift out of the rows

    def step_cap(self, s: np.ndarray) -> tuple[float, int]:
        """Step 4's cap ``min(1, lambda, max_step / |s|_inf)`` along ``s`` and the free row
        ``j`` that sets it (-1 when none does)."""
        a_rows, free = self.a_rows, self.free
        rate = a_rows @ s
        blocking = (free & (rate > 1e-12 * math.sqrt(float(s @ s)))).nonzero()[0]
        t_cap, j = min(1.0, self.max_step / max(float(np.abs(s).max()), 1e-300)), -1
        if len(blocking):
            ratios = np.maximum(self.b[blocking] - a_rows[blocking] @ self.y, 0.0) / rate[blocking]
            k = int(ratios.argmin())
            if ratios[k] <= t_cap:
                t_cap, j = float(ratios[k]), int(blocking[k])
        return t_cap, j

    def meet_row(self, j: int) -> bool:
        """Step 5 with a zero step: the point is on row ``j`` already. Enter it, or, when
        the active rows span it, slide along it (see the module doc). False when nothing
        is left to slide along."""
        self.stalls += 1
        r = self.active.residual(j)
        if float(r @ r) < DEPENDENT:
            for u in self.blocked:
                r = r - float(u @ r) * u
            norm = float(np.linalg.norm(r))
            if norm <= 1e-300:
                return False
            self.blocked.append(r / norm)
            return True
        self.enter(j)
        self.blocked.clear()
        return True

    def line_search(self, s: np.ndarray, t_cap: float) -> tuple[float, np.ndarray, E] | None:
        """Step 4's line search (Powell's, (31)) along ``s`` up to ``t_cap``: the step
        length, the new point (n,) and its evaluation, or None when ``G`` does not
        decrease."""
        y, e = self.y, self.e
        t, e_new = powell_search(self.count, y, s, e, t_cap)
        y_new = y + t * s if e_new is not None else y
        if e_new is None or not (y_new != y).any() or not e_new.f < e.f:
            return None
        return t, y_new, e_new

    def move(self, y_new: np.ndarray, e_new: E) -> tuple[np.ndarray, E]:
        """Move to ``y_new`` (n,), evaluated as ``e_new``: one iteration. Returns
        ``sigma`` (n,) and the previous evaluation."""
        e = self.e
        self.fresh = False
        self.creeping = self.creeping + 1 if e.f - e_new.f <= CREEP * (1.0 + abs(e_new.f)) else 0
        sigma = y_new - self.y
        self.y, e_old, self.e = y_new, e, e_new
        self.met = e_new.reached
        self.nit += 1
        self.stalls = 0
        self.blocked.clear()
        if self.callback is not None:
            self.callback(self.y.copy(), e_new.f)
        return sigma, e_old

    def step_6(self, sigma: np.ndarray, e_old: E) -> None:
        """Step 6: re-seed ``H`` when the strategy asks, else the BFGS (33) or DFP (34)
        update; skipped (counted) if ``sigma^T y <= 0``."""
        e = self.e
        if self.strategy.reseed_after(e_old, sigma, e.f):  # type: ignore[arg-type]
            self.h = self.seeded(e)
            self.reseeds += 1
            return
        updated = quasi_newton_update(self.h, sigma, e.g - e_old.g)
        if updated is None:
            self.skipped += 1
        else:
            self.h = updated

    # ---------------------------------------------------------------- a pass
    def next_pass(self, max_iterations: int, deadline: float | None) -> Status | None:
        """One pass from Step 2: the status the run stops with, or None to go on (a row
        dropped or entered, ``H`` re-seeded, or an iteration taken)."""
        if self.met:
            return Status.GOAL_REACHED
        if deadline is not None and time.perf_counter() >= deadline:
            return Status.TIME_LIMIT
        test = self.step_2()
        if self.stalls > self.stall_limit or self.creeping >= CREEP_LIMIT:
            return test.stuck
        if test.stationary and self.confirm():
            return None
        if test.holds:
            return Status.KUHN_TUCKER
        if test.beta_k >= 0 and (test.stationary or np.linalg.norm(test.hg) <= 0.5 * test.beta):
            self.step_3(test.beta_k)
            return None
        if self.nit >= max_iterations:
            return Status.MAX_ITERATIONS
        s = self.direction(test.hg)
        if float(self.e.g @ s) >= 0.0:  # not a descent direction
            return None if self.reseed() else test.stuck
        t_cap, j = self.step_cap(s)
        if j >= 0 and t_cap <= 1e-15:
            return None if self.meet_row(j) else Status.NO_PROGRESS
        found = self.line_search(s, t_cap)
        if found is None:
            # No decrease along a fresh direction: a Kuhn-Tucker point only if Step 2's own
            # test holds (a looser test called points with a large projected gradient, but
            # extreme curvature, Kuhn-Tucker points).
            return None if self.reseed() else test.stuck
        t, y_new, e_new = found
        sigma, e_old = self.move(y_new, e_new)
        if j >= 0 and t >= t_cap:
            # Step 5: the step hit row j; add it, eq. (32).
            if not self.active.is_dependent(j):
                self.enter(j)
            return None
        if self.met:  # the run ends here: building the next H would be wasted work
            return Status.GOAL_REACHED
        self.step_6(sigma, e_old)
        return None

    def outcome(self, status: Status) -> Outcome[E]:
        """The run's result at the current point."""
        return Outcome(
            y=self.y,
            evaluation=self.e,
            status=status,
            nit=self.nit,
            nfev=self.nfev,
            active=list(self.active.rows),
            multipliers=self.active.multipliers(self.e.g),
            skipped_updates=self.skipped,
            reseeds=self.reseeds,
        )
