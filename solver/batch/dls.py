"""Damped least squares over a batch: :mod:`solver.methods.dls`, B problems at a time.

The rules are the single run's (:class:`~solver.methods.dls.DampedLeastSquares`), problem
by problem: ``lambda = |e| / (2 s)`` (or the fixed ``dls_damping``) with the run's own
widening ``s``, the step of eq. 16 under the limits the point is on, cut to a largest
change of ``s``, halved until ``G`` decreases (at most
:data:`~solver.methods.dls.MAX_HALVINGS` times), and the same stops (``GOAL_REACHED``,
``KUHN_TUCKER`` by the same test, ``NO_PROGRESS``, ``MAX_ITERATIONS``, ``STALLED``,
``TIME_LIMIT``).
What changes is the arithmetic's shape: every array has a leading axis over the runs in
progress (:class:`Working`; :meth:`BatchDampedLeastSquares.iterate` advances them all one
iteration, :mod:`.search` adds and drops runs), and the limits are boxes on the
variables (:func:`~.model.box_bounds`), so

- a row's projection is a clip, and the cone of feasible directions at a point is the
  coordinates not pushed against the bound they sit on;
- the step's active set (Nocedal and Wright's Algorithm 16.3 as in
  :func:`~solver.methods.dls.bounded_step`) holds a bound by masking its variable's column,
  all problems in one stacked solve (:mod:`.box`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, fields
from typing import Any, TypeVar, cast

import numpy as np

from ..methods.dls import (
    KT_TOLERANCE,
    MAX_HALVINGS,
    NARROW_AT,
    STALL,
    STALL_WINDOW,
    WIDEN_AT,
    WIDENING,
    DampedLeastSquares,
)
from ..methods.options import MethodOptions
from ..optimizer import Status
from .box import bound_sides, box_step, feasible_direction
from .model import BatchEvaluation, BatchModel

#: Halvings of a step tried side by side once its full step failed (see ``_decrease``).
LEVELS = 6

#: An array, or a dataclass of arrays with a leading axis over runs (an evaluation).
Rows = TypeVar("Rows")

#: Status of a problem still running.
RUNNING = -1

# The stops as plain ints for the per-pass array tests (an enum member's lookup costs ~1 us).
_REACHED, _KUHN_TUCKER, _MAX_ITERATIONS, _NO_PROGRESS, _TIME_LIMIT, _STALLED = (
    int(Status.GOAL_REACHED),
    int(Status.KUHN_TUCKER),
    int(Status.MAX_ITERATIONS),
    int(Status.NO_PROGRESS),
    int(Status.TIME_LIMIT),
    int(Status.STALLED),
)


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
        limit: (k,) each run's step limit ``s`` (scaled units); widening: (k,) the runs
            whose step limit still widens (see :mod:`solver.methods.dls`).
        stalls: (k,) the runs that may stop ``STALLED`` (every goal of their problem might
            be met); mark: (k,) their ``G`` at the last progress check (inf before it).
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
    limit: np.ndarray
    widening: np.ndarray
    stalls: np.ndarray
    mark: np.ndarray

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


class BatchDampedLeastSquares:
    """The ``"dls"`` run of :mod:`solver.methods.dls` over a batch.

    Args:
        options: ``max_iterations``, ``dls_damping`` (a fixed ``lambda``, or None for eq.
            18's ``|e| / (2 s)`` with a widening ``s``) and ``step_limit`` (the largest
            ``s``; None: the single run's default).
    """

    def __init__(self, options: MethodOptions) -> None:
        single = DampedLeastSquares(options)
        self.max_iterations = options.max_iterations
        self.damping = options.dls_damping
        self.step_limit = single.step_limit
        #: The step limit every run starts at.
        self.first_limit = single.first_limit

    def starting(self, stalls: np.ndarray) -> tuple[np.ndarray, ...]:
        """The (k,) step limits, widening flags, stall flags and marks of k new runs, of
        which ``stalls`` (k,) may stall."""
        count = len(stalls)
        return (
            np.full(count, self.first_limit),
            np.full(count, self.damping is None),
            stalls,
            np.full(count, np.inf),
        )

    def _damping(self, error: np.ndarray, limit: np.ndarray) -> np.ndarray:
        if self.damping is not None:
            return np.full(len(error), self.damping)
        return np.sqrt(np.einsum("bm,bm->b", error, error)) / (2.0 * limit)

    def step(
        self,
        model: BatchModel,
        jacobian: np.ndarray,
        error: np.ndarray,
        sides: np.ndarray,
        limit: np.ndarray,
    ) -> np.ndarray:
        """The steps (B, n) from points with task Jacobians ``jacobian`` (B, m, n), errors
        ``error`` (B, m), bounds ``sides`` (B, n) and step limits ``limit`` (B,)."""
        damping = self._damping(error, limit)
        # lambda = 0 only where e = 0, where every step is 0: keep the solve regular.
        damping = np.where(damping > 0.0, damping, 1.0)
        step = box_step(jacobian, error, damping, sides, model.fixed)
        largest = np.maximum.reduce(np.abs(step), axis=1, initial=0.0)  # .max without its wrapper
        over = (largest > limit).nonzero()[0]
        if len(over):
            step[over] *= (limit[over] / largest[over])[:, None]
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
        status = np.full(len(work), RUNNING)
        check = (work.nit % STALL_WINDOW == 0) & (work.nit > 0) & work.stalls
        if check.any():  # one pass in STALL_WINDOW, for most runs
            checked = check.nonzero()[0]
            f = at.f[checked]
            status[checked[f > (1.0 - STALL) * work.mark[checked]]] = _STALLED
            work.mark[checked] = f
        status[work.nit >= self.max_iterations] = _MAX_ITERATIONS
        status[kt] = _KUHN_TUCKER
        status[at.reached] = _REACHED
        live = (status == RUNNING).nonzero()[0]
        if not len(live):
            return status
        if len(live) == len(work):  # every run: no copies
            step = self.step(model, at.jacobian, at.error, sides, work.limit)
        else:
            step = self.step(
                model, at.jacobian[live], at.error[live], sides[live], work.limit[live]
            )
        # The widening runs' G, point, Jacobian and error before the step (copies).
        widening = work.widening[live].nonzero()[0]  # positions in live
        index = live[widening]
        before = (at.f[index], work.z[index], at.jacobian[index], at.error[index])
        moved, full = self._decrease(model, work, live, step)
        if len(widening):
            self._widen(work, index, moved[widening], full[widening], before)
        if len(live) == len(work):  # every run: no index arrays
            status[~moved] = _NO_PROGRESS
            work.nit += moved
        else:
            status[live[~moved]] = _NO_PROGRESS
            work.nit[live[moved]] += 1
        return status

    def _widen(
        self,
        work: Working,
        index: np.ndarray,
        moved: np.ndarray,
        full: np.ndarray,
        before: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    ) -> None:
        """Update the step limits of the widening runs ``index`` (k,) after their step, as
        :meth:`~solver.methods.dls.DampedLeastSquares.widened` does one run's: ``moved``
        and ``full`` (k,) say which moved and which took the full step; ``before`` holds
        their (k,) ``G``, (k, n) points, (k, m, n) Jacobians and (k, m) errors before it."""
        rows = moved.nonzero()[0]  # a run that did not move stops: its limit is moot
        if not len(rows):
            return
        f, z, jacobian, error = (part[rows] for part in before)
        index = index[rows]
        left = error - np.einsum("bmn,bn->bm", jacobian, work.z[index] - z)
        decrease = f - work.at.f[index]
        predicted = f - np.einsum("bm,bm->b", left, left)
        ends = ~full[rows] | (decrease < NARROW_AT * predicted)
        wider = ~ends & (decrease >= WIDEN_AT * predicted)
        limit = work.limit[index]
        limit = np.where(wider, np.minimum(WIDENING * limit, self.step_limit), limit)
        work.limit[index] = np.where(ends, self.first_limit, limit)
        work.widening[index] = ~ends

    @staticmethod
    def _decrease(
        model: BatchModel, work: Working, running: np.ndarray, step: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Halve each step until its clipped trial point lowers ``G``; move those runs
        (``work``'s ``z``, ``at`` and ``nfev`` updated in place). Returns (k,) which of
        ``running`` moved and (k,) which of them took the full step.

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
        full = moved.copy()
        if every and len(rows) == len(work):  # every run took its full step
            work.z, work.at = trials, evaluation
            return moved, full
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
        return moved, full


__all__ = ["RUNNING", "BatchDampedLeastSquares", "Working", "join_rows", "take_rows"]
