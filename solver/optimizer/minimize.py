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

import numpy as np

from ..line_search import powell_search
from ..linear import LinearSystem
from .active_set import DEPENDENT, ActiveSet
from .hessian import HessianStrategy, add_row, drop_row, quasi_newton_update
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
    nfev = 0

    def count(v: np.ndarray) -> E:
        nonlocal nfev
        nfev += 1
        return evaluate(v)

    y = np.array(y0, dtype=float)
    n = len(y)
    e = count(y)
    met = e.reached  # every goal met at y: asked once per point (not on passes that stay)
    if callback is not None:
        callback(y.copy(), e.f)
    active = ActiveSet(system)
    a_rows, b = system.A, system.b
    inequality = ~np.asarray(system.equality, dtype=bool)
    # Inequality rows not in the active set (the rows that can block a step), kept up to
    # date as rows enter and leave rather than rebuilt at every pass.
    free = inequality.copy()
    reseeds = skipped = 0

    def seeded(at: E) -> np.ndarray:
        h = strategy.initial(at)  # type: ignore[arg-type]
        for i in active.rows:
            updated = add_row(h, a_rows[i])
            h = updated if updated is not None else _project_both(active, h)
        return h

    def enter(h: np.ndarray, i: int) -> np.ndarray:
        """Add row ``i`` to the active set and update ``H`` by eq. (32)."""
        updated = add_row(h, a_rows[i])
        active.add(i)
        free[i] = False
        return updated if updated is not None else _project_both(active, h)

    # Step 1: the equalities. Inequalities the start lies on enter only when they block a
    # step (Step 5 with a zero step, below): see the module doc.
    if met:
        # The start meets every goal, so the loop would stop at once: the equalities enter
        # (the outcome lists them) but no H is built (a seed costs O(m n^2)).
        for i in _independent_equalities(active, inequality):
            active.add(i)
        return Outcome(
            y, e, Status.GOAL_REACHED, 0, nfev, list(active.rows), active.multipliers(e.g)
        )
    h = strategy.initial(e)  # type: ignore[arg-type]
    for i in _independent_equalities(active, inequality):
        h = enter(h, i)

    nit = 0
    stalls = 0  # passes in a row that did not move the point
    creeping = 0  # steps in a row that lowered G only at round-off level
    stall_limit = 2 * len(b) + n + 10
    blocked: list[np.ndarray] = []  # unit residuals P a of dependent rows met at this point
    fresh = False  # H was re-seeded at this point (hybrid only)
    status = Status.MAX_ITERATIONS
    while True:
        if met:
            status = Status.GOAL_REACHED
            break
        if deadline is not None and time.perf_counter() >= deadline:
            status = Status.TIME_LIMIT
            break
        # Step 2: Kuhn-Tucker test.
        hg = h @ e.g
        alpha = active.multipliers(e.g)
        predicted = float(e.g @ hg)
        beta_k, beta = -1, 0.0
        for k, i in enumerate(active.rows):
            if inequality[i]:
                value = alpha[k] / math.sqrt(active.M[k, k])
                if value > beta:
                    beta_k, beta = k, value
        stationary = predicted <= kt_tolerance * (1.0 + e.f)
        # How a run that cannot move from here ends: Step 2's test decides.
        stuck = Status.KUHN_TUCKER if stationary and beta_k < 0 else Status.NO_PROGRESS
        if stalls > stall_limit or creeping >= CREEP_LIMIT:
            status = stuck
            break
        if stationary and strategy.reseeds and not fresh:
            # Confirm with a fresh H: updates can leave H nearly singular in a
            # direction where the projected gradient is not small.
            candidate = seeded(e)
            if float(e.g @ candidate @ e.g) > kt_tolerance * (1.0 + e.f):
                h, fresh = candidate, True
                reseeds += 1
                continue
        if stationary and beta_k < 0:
            status = Status.KUHN_TUCKER
            break
        # Step 3: drop the row whose multiplier has the wrong sign, eq. (30).
        if beta_k >= 0 and (stationary or np.linalg.norm(hg) <= 0.5 * beta):
            dropped = active.remove(beta_k)
            free[dropped] = True  # only inequality rows are dropped
            h = drop_row(h, active.project(a_rows[dropped]))
            blocked.clear()
            stalls += 1
            continue
        if nit >= max_iterations:
            break
        # Step 4: search direction, step cap, line search.
        if blocked:
            # Sliding along dependent rows: a temporary H projected off their
            # residuals by (32) gives the quasi-Newton step on that face.
            h_face = h
            for r in blocked:
                h_face = add_row(h_face, r) if h_face is not None else None
            s = -(h_face @ e.g) if h_face is not None else -hg
            for r in blocked:
                s = s - float(r @ s) * r
        else:
            s = -hg
        s = active.project(s)  # guards against round-off drift out of the active rows
        slope = float(e.g @ s)
        if slope >= 0.0:
            if strategy.reseeds and not fresh:
                h, fresh = seeded(e), True
                reseeds += 1
                continue
            status = stuck
            break
        rate = a_rows @ s
        blocking = (free & (rate > 1e-12 * math.sqrt(float(s @ s)))).nonzero()[0]
        t_cap, j = min(1.0, max_step / max(float(np.abs(s).max()), 1e-300)), -1
        if len(blocking):
            ratios = np.maximum(b[blocking] - a_rows[blocking] @ y, 0.0) / rate[blocking]
            k = int(ratios.argmin())
            if ratios[k] <= t_cap:
                t_cap, j = float(ratios[k]), int(blocking[k])
        if j >= 0 and t_cap <= 1e-15:
            # Already on row j (Step 5 with a zero step).
            stalls += 1
            r = active.residual(j)
            if float(r @ r) < DEPENDENT:
                # Spanned by the active rows: slide along it instead (see module doc).
                for u in blocked:
                    r = r - float(u @ r) * u
                norm = float(np.linalg.norm(r))
                if norm <= 1e-300:
                    status = Status.NO_PROGRESS
                    break
                blocked.append(r / norm)
                continue
            h = enter(h, j)
            blocked.clear()
            continue
        t, e_new = powell_search(count, y, s, e, t_cap)
        y_new = y + t * s if e_new is not None else y
        if e_new is None or not (y_new != y).any() or not e_new.f < e.f:
            if strategy.reseeds and not fresh:
                h, fresh = seeded(e), True
                reseeds += 1
                continue
            # No decrease along a fresh direction: a Kuhn-Tucker point only if
            # Step 2's own test holds (a looser test called points with a large
            # projected gradient, but extreme curvature, Kuhn-Tucker points).
            status = stuck
            break
        fresh = False
        creeping = creeping + 1 if e.f - e_new.f <= CREEP * (1.0 + abs(e_new.f)) else 0
        sigma = y_new - y
        y, e_old, e = y_new, e, e_new
        met = e.reached
        nit += 1
        stalls = 0
        blocked.clear()
        if callback is not None:
            callback(y.copy(), e.f)
        if j >= 0 and t >= t_cap:
            # Step 5: the step hit row j; add it, eq. (32).
            if not active.is_dependent(j):
                h = enter(h, j)
            continue
        if met:  # the loop ends here: building the next H would be wasted work
            status = Status.GOAL_REACHED
            break
        if strategy.reseed_after(e_old, sigma, e.f):  # type: ignore[arg-type]
            h = seeded(e)
            reseeds += 1
            continue
        # Step 6: BFGS (33) or DFP (34) update; skipped if sigma^T y <= 0.
        updated = quasi_newton_update(h, sigma, e.g - e_old.g)
        if updated is None:
            skipped += 1
        else:
            h = updated
    return Outcome(
        y=y,
        evaluation=e,
        status=status,
        nit=nit,
        nfev=nfev,
        active=list(active.rows),
        multipliers=active.multipliers(e.g),
        skipped_updates=skipped,
        reseeds=reseeds,
    )
