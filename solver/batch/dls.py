"""Damped least squares over a batch: :mod:`solver.methods.dls`, B problems at a time.

The rules are the single run's (:class:`~solver.methods.dls.DampedLeastSquares`), problem
by problem: ``lambda = |e| / (2 s)`` (or the fixed ``dls_damping``), the step of eq. 16
under the limits the point is on, cut to a largest change of ``s``, halved until ``G``
decreases (at most :data:`~solver.methods.dls.MAX_HALVINGS` times), and the same stops
(``GOAL_REACHED``, ``KUHN_TUCKER`` by the same test, ``NO_PROGRESS``, ``MAX_ITERATIONS``,
``TIME_LIMIT``). What changes is the arithmetic's shape: every array has a leading axis over
the runs in progress (:class:`Working`; :meth:`BatchDampedLeastSquares.iterate` advances
them all one iteration, :mod:`.search` adds and drops runs), and the limits are boxes on the
variables (:func:`~.model.box_bounds`), so

- a row's projection is a clip, and the cone of feasible directions at a point is the
  coordinates not pushed against the bound they sit on;
- the step's active set (Nocedal and Wright's Algorithm 16.3 as in
  :func:`~solver.methods.dls.bounded_step`) holds a bound by masking its variable's column:
  the step on the free columns solves ``(J_F^T J_F + lambda^2 I) dz = J_F^T e`` (eq. 15,
  which is eq. 16's SVD form), all problems in one batched ``np.linalg.solve``. The step's
  programme being strictly convex, its minimiser is found by guessing the bounds held
  (``_guessed``: a primal-dual active set checked by the active set's own optimality
  tests); the passes that hold or release one bound per problem, as the single step does,
  run only where the guesses fail (none on the bench's targets).
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any, TypeVar, cast

import numpy as np

from ..methods.dls import DEFAULT_STEP_LIMIT, KT_TOLERANCE, MAX_HALVINGS
from ..model.linear import FEASIBILITY_TOLERANCE
from ..optimizer import Status
from .model import BatchEvaluation, BatchModel

#: Halvings of a step tried side by side once its full step failed (see ``_decrease``).
LEVELS = 6

#: An array, or a dataclass of arrays with a leading axis over runs (an evaluation).
Rows = TypeVar("Rows")

#: Guesses of the bounds a step holds before the active set's passes (see ``_guessed``).
GUESSES = 3

#: Status of a problem still running.
RUNNING = -1

# The stops as plain ints for the per-pass array tests (an enum member's lookup costs ~1 us).
_REACHED, _KUHN_TUCKER, _MAX_ITERATIONS, _NO_PROGRESS, _TIME_LIMIT = (
    int(Status.GOAL_REACHED),
    int(Status.KUHN_TUCKER),
    int(Status.MAX_ITERATIONS),
    int(Status.NO_PROGRESS),
    int(Status.TIME_LIMIT),
)


def _gufunc_solve() -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """``np.linalg.solve`` for stacked (k, n, n) matrices and (k, n) right-hand sides: the
    generalized ufunc it wraps, called directly (the wrapper's argument checks and error
    state cost ~6 us a call, two calls a pass), or the wrapper if numpy has no such module.

    The values are the wrapper's (the same LAPACK ``gesv`` per matrix). The matrices solved
    here are ``J^T J + lambda^2 I`` (``lambda > 0``) on their free columns and the identity on
    the others: never singular, so the wrapper's singular-matrix error never applies.
    """
    try:
        gufunc = importlib.import_module("numpy.linalg._umath_linalg").solve
    except (ImportError, AttributeError):  # pragma: no cover - another numpy layout
        return lambda matrices, rhs: np.linalg.solve(matrices, rhs[..., None])[..., 0]
    return lambda matrices, rhs: gufunc(matrices, rhs[..., None], signature="dd->d")[..., 0]


#: (k, n) solutions of (k, n, n) regular systems (see :func:`_gufunc_solve`).
_solve_stacked = _gufunc_solve()


@dataclass
class Working:
    """The runs in progress: row ``k`` of every array is run ``k``'s.

    Attributes:
        z: (k, n) current points (scaled variables).
        at: their evaluations.
        nit: (k,) iterations so far; nfev: (k,) evaluations so far.
        q_fixed: (k, n_joints) joint values of the held coordinates.
        targets: (k, T, 3) goal targets.
        owner: (k,) the problem each run solves; attempt: (k,) which of its starts (0 the
            first, 1... its restarts in order); generation: (k,) which of its restart
            sequences (see :mod:`.search`).
    """

    z: np.ndarray
    at: BatchEvaluation
    nit: np.ndarray
    nfev: np.ndarray
    q_fixed: np.ndarray
    targets: np.ndarray
    owner: np.ndarray
    attempt: np.ndarray
    generation: np.ndarray

    def __len__(self) -> int:
        return len(self.z)

    def take(self, index: np.ndarray) -> Working:
        """The runs ``index`` (k,)."""
        return Working(
            **{
                f.name: take_rows(getattr(self, f.name), index)
                for f in fields(self)  # the evaluation's own fields too
            }
        )

    def join(self, other: Working) -> Working:
        """These runs followed by ``other``'s."""
        return Working(
            **{
                f.name: join_rows(getattr(self, f.name), getattr(other, f.name))
                for f in fields(self)
            }
        )


def take_rows(value: Rows, index: np.ndarray) -> Rows:
    """Rows ``index`` of an array, or of every array field of a dataclass (an evaluation)."""
    data: Any = value
    if isinstance(data, np.ndarray):
        return cast(Rows, data[index])
    return cast(Rows, type(data)(**{f.name: getattr(data, f.name)[index] for f in fields(data)}))


def join_rows(first: Rows, second: Rows) -> Rows:
    """Rows of ``first`` then ``second``: arrays, or dataclasses of arrays (evaluations)."""
    one: Any = first
    two: Any = second
    if isinstance(one, np.ndarray):
        return cast(Rows, np.concatenate((one, two)))
    parts = {
        f.name: np.concatenate((getattr(one, f.name), getattr(two, f.name))) for f in fields(one)
    }
    return cast(Rows, type(one)(**parts))


def bound_sides(model: BatchModel, z: np.ndarray) -> np.ndarray:
    """(B, n) +1 where a variable is on its upper bound, -1 on its lower, 0 else (a fixed
    variable counts as on its upper bound); the slack test of :func:`on_bound`."""
    upper = model.upper - z <= FEASIBILITY_TOLERANCE
    lower = z - model.lower <= FEASIBILITY_TOLERANCE
    if model.has_fixed:
        upper |= model.fixed
    # 1 - 0, 0 - 1 or 0 - 0 (+0.0) in one ufunc: the values of two nested np.where, cheaper.
    return np.subtract(upper, lower & ~upper, dtype=float)


def feasible_direction(model: BatchModel, sides: np.ndarray, direction: np.ndarray) -> np.ndarray:
    """``direction`` (B, n) projected onto the feasible directions at bounds ``sides``."""
    pushed = sides * direction > 0.0
    if model.has_fixed:
        pushed |= model.fixed
    return np.where(pushed, 0.0, direction)


def diagonal(matrices: np.ndarray) -> np.ndarray:
    """A writable view (B, n) of the diagonals of contiguous ``matrices`` (B, n, n) (a strided
    slice: cheaper than indexing with two aranges)."""
    count, n, _ = matrices.shape
    assert matrices.flags.c_contiguous  # else reshape would copy and the writes be lost
    return matrices.reshape(count, n * n)[:, :: n + 1]


def box_step(
    jacobian: np.ndarray,
    error: np.ndarray,
    damping: np.ndarray,
    sides: np.ndarray,
    fixed: np.ndarray,
) -> np.ndarray:
    """The damped least-squares step (B, n) under the bounds each point is on.

    Args:
        jacobian: (B, m, n) task Jacobians.
        error: (B, m) task errors.
        damping: (B,) ``lambda`` > 0 of each problem.
        sides: (B, n) from :func:`bound_sides`.
        fixed: (n,) variables held by an equality (never released).
    """
    gradient = (error[:, None, :] @ jacobian)[:, 0]  # c = J^T e
    normal = jacobian.swapaxes(1, 2) @ jacobian  # J^T J
    lam2 = damping * damping
    # None: no masks to apply (the usual figure); the ufunc's reduction is .any without its wrapper.
    held_fixed = fixed if np.logical_or.reduce(fixed) else None
    if held_fixed is not None:  # held from the start: their columns out, their step 0
        keep = ~fixed
        normal *= keep[:, None] & keep[None, :]
        gradient = gradient * keep
    damped = normal.copy()
    diagonal(damped)[...] += (
        lam2[:, None] if held_fixed is None else np.where(fixed, 1.0, lam2[:, None])
    )
    step = _solve_stacked(damped, gradient)
    # Problems on a bound the free step pushes outwards run the active set (most do not).
    pushes = sides * step > 0.0
    if held_fixed is not None:
        pushes &= ~fixed
    open_ = np.logical_or.reduce(pushes, axis=1).nonzero()[0]
    if not len(open_):
        return step
    if len(open_) == len(step):  # every problem (a pass of few runs, often): no copies
        parts = normal, gradient, lam2, sides
        guess, optimal = _guessed(*parts, held_fixed, step)
        step = guess
    else:
        parts = normal[open_], gradient[open_], lam2[open_], sides[open_]
        guess, optimal = _guessed(*parts, held_fixed, step[open_])
        step[open_] = guess
    missed = (~optimal).nonzero()[0]
    if len(missed):
        normal_, gradient_, lam2_, sides_ = (part[missed] for part in parts)
        free_step = _free_step(normal_, gradient_, lam2_, fixed)
        step[open_[missed]] = _active_set(normal_, gradient_, lam2_, sides_, fixed, free_step)
    return step


def _masked_solve(
    normal: np.ndarray, gradient: np.ndarray, lam2: np.ndarray, free: np.ndarray
) -> np.ndarray:
    """The step (k, n) of ``(J^T J + lambda^2 I) dz = J^T e`` on the ``free`` (k, n)
    columns, ``dz = 0`` on the others."""
    matrix = normal * (free[:, :, None] & free[:, None, :])
    diagonal(matrix)[...] += np.where(free, lam2[:, None], 1.0)
    return _solve_stacked(matrix, gradient * free)


def _free_step(
    normal: np.ndarray, gradient: np.ndarray, lam2: np.ndarray, fixed: np.ndarray
) -> np.ndarray:
    return _masked_solve(normal, gradient, lam2, np.broadcast_to(~fixed, gradient.shape))


def _guess(
    normal: np.ndarray,
    gradient: np.ndarray,
    lam2: np.ndarray,
    sides: np.ndarray,
    hold: np.ndarray,
    on: np.ndarray,
    scale: np.ndarray,
    fixed: np.ndarray | None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """One guess of :func:`_guessed` for k problems holding the bounds ``hold`` (k, n):
    the step (k, n), the free variables that cross their bound and the held bounds that
    pull (k, n), and (k,) whether neither happens (the step is optimal)."""
    guess = _masked_solve(normal, gradient, lam2, ~hold)
    size = np.sqrt(np.einsum("bn,bn->b", guess, guess))
    crossing = on & ~hold & (sides * guess > 1e-12 * size[:, None])
    curvature = (normal @ guess[:, :, None])[..., 0] + lam2[:, None] * guess
    multiplier_rows = hold if fixed is None else hold & ~fixed
    nu = np.where(multiplier_rows, sides * (gradient - curvature), np.inf)
    pulling = nu < -scale[:, None]
    good = ~np.logical_or.reduce(crossing | pulling, axis=1)
    return guess, crossing, pulling, good


def _guessed(
    normal: np.ndarray,
    gradient: np.ndarray,
    lam2: np.ndarray,
    sides: np.ndarray,
    fixed: np.ndarray | None,
    free_step: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """The step (k, n) under the bounds by guessing which hold, and (k,) whether it is the
    step of :func:`_active_set` (up to rounding); ``fixed`` (n,) the variables held by an
    equality, None if there are none.

    The step's quadratic programme is strictly convex (``lambda > 0``), so its minimiser is
    unique, and a step that meets the optimality conditions of the active set's last pass -
    no free variable crosses its bound, no held bound's multiplier pulls inwards, with the
    active set's tolerances - is it. The first guess holds every bound the free step pushes
    outwards; each of :data:`GUESSES` guesses holds the bounds the last one crossed and
    releases those that pulled (a primal-dual active set), for the problems not yet optimal.
    The first guess, on every problem, needs no copies; it is most often the last.
    """
    held = sides * free_step > 0.0
    on = sides != 0.0
    if fixed is not None:
        held |= fixed
        on &= ~fixed
    scale = 1e-12 * (1.0 + np.maximum.reduce(np.abs(gradient), axis=1))
    step, crossing, pulling, good = _guess(normal, gradient, lam2, sides, held, on, scale, fixed)
    if np.logical_and.reduce(good):  # .all without its wrapper
        return step, good
    optimal = good
    held = (held & ~pulling) | crossing
    open_ = (~good).nonzero()[0]
    for _ in range(GUESSES - 1):
        guess, crossing, pulling, good = _guess(
            normal[open_],
            gradient[open_],
            lam2[open_],
            sides[open_],
            held[open_],
            on[open_],
            scale[open_],
            fixed,
        )
        step[open_] = guess
        optimal[open_[good]] = True
        held[open_] = (held[open_] & ~pulling) | crossing
        open_ = open_[~good]
        if not len(open_):
            break
    return step, optimal


def _active_set(
    normal: np.ndarray,
    gradient: np.ndarray,
    lam2: np.ndarray,
    sides: np.ndarray,
    fixed: np.ndarray,
    free_step: np.ndarray,
) -> np.ndarray:
    """:func:`box_step` for problems whose free step leaves a bound: from ``dz = 0``, each
    pass holds the first bound the move towards the free step crosses, or at the full step
    releases the held bound with the most negative multiplier (as
    :func:`~solver.methods.dls.bounded_step` does with rows), each problem on its own.
    ``free_step`` (k, n) is the first pass's step (only the equalities held), already
    solved by :func:`box_step`."""
    count, n = sides.shape
    held = np.broadcast_to(fixed, (count, n)).copy()
    step = np.zeros((count, n))
    cap = 4 * (sides != 0.0).sum(axis=1) + 4
    scale = 1e-12 * (1.0 + np.abs(gradient).max(axis=1))
    open_ = np.arange(count)
    passes = 0
    while len(open_):
        passes += 1
        free = ~held[open_]
        if passes == 1:
            solved = free_step
        else:
            solved = _masked_solve(normal[open_], gradient[open_], lam2[open_], free)
        move = solved - step[open_]
        side = sides[open_]
        rate = side * move
        size = np.sqrt(np.einsum("bn,bn->b", move, move))
        blocking = (side != 0.0) & free & (rate > 1e-12 * size[:, None])
        ratios = np.where(
            blocking,
            np.maximum(-(side * step[open_]), 0.0) / np.where(blocking, rate, 1.0),
            np.inf,
        )
        k = ratios.argmin(axis=1)
        ratio = ratios[np.arange(len(open_)), k]
        holds = ratio < 1.0
        hold = open_[holds]
        step[hold] += ratio[holds, None] * move[holds]
        held[hold, k[holds]] = True
        full = open_[~holds]
        step[full] += move[~holds]
        # At the full step: release the held bound whose multiplier says it pulls inwards.
        curvature = (normal[full] @ step[full, :, None])[..., 0] + lam2[full, None] * step[full]
        nu = np.where(held[full] & ~fixed, sides[full] * (gradient[full] - curvature), np.inf)
        worst = nu.argmin(axis=1)
        release = nu[np.arange(len(full)), worst] < -scale[full]
        held[full[release], worst[release]] = False
        still = np.zeros(count, dtype=bool)
        still[hold] = True
        still[full[release]] = True
        open_ = (still & (passes < cap)).nonzero()[0]
    return step


class BatchDampedLeastSquares:
    """The ``"dls"`` run of :mod:`solver.methods.dls` over a batch.

    Args:
        max_iterations: iteration limit of each run.
        damping: a fixed ``lambda``, or None for eq. 18's ``|e| / (2 s)``.
        step_limit: ``s``, largest change of a scaled variable per iteration (None:
            :data:`~solver.methods.dls.DEFAULT_STEP_LIMIT`).
    """

    def __init__(
        self, max_iterations: int, damping: float | None, step_limit: float | None
    ) -> None:
        self.max_iterations = max_iterations
        self.damping = damping
        self.step_limit = DEFAULT_STEP_LIMIT if step_limit is None else step_limit

    def _damping(self, error: np.ndarray) -> np.ndarray:
        if self.damping is not None:
            return np.full(len(error), self.damping)
        return np.sqrt(np.einsum("bm,bm->b", error, error)) / (2.0 * self.step_limit)

    def step(
        self,
        model: BatchModel,
        jacobian: np.ndarray,
        error: np.ndarray,
        sides: np.ndarray,
    ) -> np.ndarray:
        """The steps (B, n) from points with task Jacobians ``jacobian`` (B, m, n), errors
        ``error`` (B, m) and bounds ``sides`` (B, n)."""
        damping = self._damping(error)
        # lambda = 0 only where e = 0, where every step is 0: keep the solve regular.
        damping = np.where(damping > 0.0, damping, 1.0)
        step = box_step(jacobian, error, damping, sides, model.fixed)
        largest = np.maximum.reduce(np.abs(step), axis=1, initial=0.0)  # .max without its wrapper
        over = (largest > self.step_limit).nonzero()[0]
        if len(over):
            step[over] *= (self.step_limit / largest[over])[:, None]
        return step

    def iterate(self, model: BatchModel, work: Working, deadline: float | None) -> np.ndarray:
        """One iteration of every run in ``work`` (updated in place); returns (k,) each run's
        stop (:class:`~solver.optimizer.Status`) or :data:`RUNNING`.

        The single run's order: a point that meets every goal stops, then the time limit,
        the Kuhn-Tucker test and the iteration limit, then a step that lowers ``G`` is
        taken, or the run stops with ``NO_PROGRESS``.
        """
        at = work.at
        if deadline is not None and time.perf_counter() >= deadline:
            return np.where(at.reached, _REACHED, _TIME_LIMIT)
        # Every test on every run; the step on the runs going on only (when most runs stop
        # at once, as a bake's in-betweens do, their steps would cost most of the pass).
        sides = bound_sides(model, work.z)
        feasible = feasible_direction(model, sides, -at.g)
        kt = np.einsum("bn,bn->b", feasible, feasible) <= KT_TOLERANCE * (1.0 + at.f)
        # The stops by precedence, the later writes winning (cheaper than nested np.where).
        status = np.where(work.nit >= self.max_iterations, _MAX_ITERATIONS, RUNNING)
        status[kt] = _KUHN_TUCKER
        status[at.reached] = _REACHED
        live = (status == RUNNING).nonzero()[0]
        if not len(live):
            return status
        if len(live) == len(work):  # every run: no copies
            step = self.step(model, at.jacobian, at.error, sides)
        else:
            step = self.step(model, at.jacobian[live], at.error[live], sides[live])
        moved = self._decrease(model, work, live, step)
        if len(live) == len(work):  # every run: no index arrays
            status[~moved] = _NO_PROGRESS
            work.nit += moved
        else:
            status[live[~moved]] = _NO_PROGRESS
            work.nit[live[moved]] += 1
        return status

    @staticmethod
    def _decrease(
        model: BatchModel, work: Working, running: np.ndarray, step: np.ndarray
    ) -> np.ndarray:
        """Halve each step until its clipped trial point lowers ``G``; move those runs
        (``work``'s ``z``, ``at`` and ``nfev`` updated in place). Returns (k,) which of
        ``running`` moved.

        The full steps are tried first (most are taken); the problems left try their next
        :data:`LEVELS` halvings in one evaluation and take the first, in order, that lowers
        ``G``, stopping at one that no longer moves the point: the single run's choice
        (halving is exact in floating point) in fewer sequential passes. ``nfev`` counts
        the evaluations the single run makes.
        """
        z, at, nfev = work.z, work.at, work.nfev
        # The full steps, in fewer operations than a level of halvings (factor 1: exact).
        every = len(running) == len(work)  # then running is every run, in order: no copies
        here = z if every else z[running]
        # The clip as max then min: np.clip's values, without its wrappers' ~5 us.
        trials = np.minimum(np.maximum(here + step, model.lower), model.upper)
        changed = np.logical_or.reduce(trials != here, axis=1)
        if every:
            evaluation = model.evaluate(trials, work.q_fixed, work.targets)
            moved = changed & (evaluation.f < at.f)
            nfev += changed  # one evaluation where the point moved (taken or not)
        else:
            evaluation = model.evaluate(trials, work.q_fixed[running], work.targets[running])
            moved = changed & (evaluation.f < at.f[running])
            nfev[running] += changed
        rows = moved.nonzero()[0]
        if every and len(rows) == len(work):  # every run took its full step
            work.z, work.at = trials, evaluation
            return moved
        better = running[rows]
        z[better] = trials[rows]
        at.put(better, evaluation if len(rows) == len(trials) else evaluation.take(rows))
        trying = (~moved & changed).nonzero()[0]  # positions in running
        halved = 1
        while len(trying) and halved <= MAX_HALVINGS:
            levels = min(LEVELS, MAX_HALVINGS + 1 - halved)
            factors = 0.5 ** np.arange(halved, halved + levels)
            index = running[trying]
            here = z[index]
            trials = np.minimum(
                np.maximum(
                    here[:, None, :] + step[trying][:, None, :] * factors[:, None], model.lower
                ),
                model.upper,
            )  # (t, levels, n)
            changed = (trials != here[:, None, :]).any(axis=2)
            flat = trials.reshape(-1, model.n)
            repeat = np.repeat(index, levels)
            evaluation = model.evaluate(flat, work.q_fixed[repeat], work.targets[repeat])
            lower = changed & (evaluation.f.reshape(-1, levels) < at.f[index][:, None])
            # The first level that lowers G, and the first that does not move the point.
            first = np.where(lower.any(axis=1), lower.argmax(axis=1), levels)
            still = np.where((~changed).any(axis=1), (~changed).argmax(axis=1), levels)
            taken = first < still
            nfev[index] += np.where(taken, first + 1, np.minimum(still, levels))
            rows = taken.nonzero()[0]
            better = index[rows]
            pick = rows * levels + first[rows]
            z[better] = flat[pick]
            at.put(better, evaluation if len(pick) == len(flat) else evaluation.take(pick))
            moved[trying[rows]] = True
            trying = trying[~taken & (still == levels)]
            halved += levels
        return moved


__all__ = ["RUNNING", "BatchDampedLeastSquares", "Working", "box_step", "join_rows", "take_rows"]
