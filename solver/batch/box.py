"""The damped least-squares step of a batch under box bounds (see :mod:`.dls`).

The limits are boxes on the variables (:func:`~.model.box_bounds`): a point's sides are the
bounds it sits on (:func:`bound_sides`), the feasible directions those not pushing against
them, and the step of eq. 16 under them (:func:`box_step`) holds a bound by masking its
variable's column, ``(J_F^T J_F + lambda^2 I) dz = J_F^T e`` on the free columns, all
problems in one stacked solve. The step's programme being strictly convex, its minimiser is
found by guessing the bounds held (``_guessed``: a primal-dual active set checked by the
active set's own optimality tests); the passes that hold or release one bound per problem,
as the single step (:func:`solver.methods.dls.bounded_step`) does, run only where the
guesses fail.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

import numpy as np

from ..model.linear import FEASIBILITY_TOLERANCE
from .model import BatchModel

#: Guesses of the bounds a step holds before the active set's passes (see ``_guessed``).
GUESSES = 3


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


__all__ = ["bound_sides", "box_step", "diagonal", "feasible_direction"]
