"""Every run of a batch in one working set: first runs, restarts, and restarts started early.

A single solve (:meth:`solver.solve.Solver._search`) runs its starts one after another: the
first, then (after a miss) the nudge of a Kuhn-Tucker stop and the seeded starts of
:class:`~solver.search.restarts.StartSampler`, until one meets every goal, the restarts or the time
run out, or the restarts agree. A batch gives every problem the same sequence and takes the
outcomes in the same order, so each problem gets the single solve's answer, but it does not
wait: the runs of every problem share one working set (:class:`~.dls.Working`), iterated
together, and

- a problem's restarts join the working set as soon as its first run misses, not when the
  batch's slowest first run ends; several run side by side (more as fewer problems wait
  for restarts: :data:`BUDGET`);
- a first run still going after :data:`SPECULATE` iterations gets its restarts started
  beside it (most first runs that meet their goals do so well before): when it ends at the
  iteration limit they are the restarts it needs, already run. When it ends at a Kuhn-Tucker
  point instead, its sequence starts with the nudge (which draws from the same random
  generator), so those early runs are dropped and the sequence is started again;
- a problem whose outcome is settled (a run, taken in order, met every goal, or the single
  solve would stop there) leaves the working set with every run of it still going.

The seeded sequence does not depend on the runs' outcomes (the nudge aside), and every run's
arithmetic is its own row of every array, so neither the order in which runs finish nor the
runs dropped changes any problem's answer, its iteration and evaluation counts, or its
restarts; only the wall time.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from ..assembly.scale import ScaledProblem
from ..model.linear import only_point
from ..optimizer import Outcome, Status
from ..options import Options
from ..search.restarts import Agreement, StartSampler, better
from .dls import RUNNING, BatchDampedLeastSquares, Working, take_rows
from .model import BatchEvaluation, BatchModel

#: Restarts of one problem that may run side by side: :data:`BUDGET` shared among the problems
#: waiting for restarts (at least 1), or as many as it took already if more, at most
#: :data:`MAX_WIDTH`; :data:`FIRST_WIDTH` beside a first run still going. A run costs little
#: beside a pass's fixed cost while the working set is small, and wastes its work when an
#: earlier restart of the same problem meets the goals. Chosen on the bench's 1,000 targets by
#: passes and run-iterations (counts, not timings): xArm 6 (26 % of the first runs miss) 994
#: passes and 165,279 run-iterations for the 128,037 of the runs taken (B / 4 per problem,
#: up to 64, the rounds before: 207,085 run-iterations; a budget of 128 and widths up to 64:
#: 911 and 186,408); iiwa7 251 passes, 21,632 run-iterations for 19,118 (26,055 with 64).
BUDGET = 64
FIRST_WIDTH = 2
MAX_WIDTH = 16

#: Iterations after which a first run still going gets its first :data:`FIRST_WIDTH`
#: restarts started beside it. On the bench's 1,000 iiwa 7 targets (bench/batch.py) 99 % of
#: the first runs that meet their goals do so within 48 iterations, 90 % within 27 (100
#: instead of 50: 301 passes instead of 251).
SPECULATE = 50

# For the per-pass array tests (an enum member's lookup costs ~1 us).
_TIME_LIMIT, _STALLED = int(Status.TIME_LIMIT), int(Status.STALLED)


@dataclass
class BestRuns:
    """The best run of each of B problems so far, and what its runs cost.

    Attributes:
        z: (B, n) points; evaluation: their evaluations; status: (B,) stops.
        nit: (B,) iterations over every run taken; nfev: (B,) evaluations.
    """

    z: np.ndarray
    evaluation: BatchEvaluation
    status: np.ndarray
    nit: np.ndarray
    nfev: np.ndarray


@dataclass
class _Run:
    """One finished run of a problem (its working-set row, kept)."""

    z: np.ndarray
    evaluation: BatchEvaluation
    status: int
    nit: int
    nfev: int


@dataclass
class _Sequence:
    """One problem's restarts: the starts drawn, the runs finished, the runs taken."""

    sampler: StartSampler
    nudge_from: np.ndarray | None
    confirmed: bool  # the first run ended as this sequence assumed
    drawn: int = 0
    taken: int = 0
    finished: dict[int, _Run] = field(default_factory=dict)
    agreement: Agreement = field(default_factory=Agreement)

    def next_start(self) -> np.ndarray:
        self.drawn += 1
        if self.drawn == 1 and self.nudge_from is not None:
            return self.sampler.nudge(self.nudge_from)
        return self.sampler.next()


class _Point:
    """An answer's objective and verdict, as :func:`~solver.search.restarts.better` reads them."""

    __slots__ = ("f", "g", "reached")

    def __init__(self, f: float, g: np.ndarray, reached: bool) -> None:
        self.f, self.g, self.reached = f, g, reached


def _outcome(z: np.ndarray, at: BatchEvaluation, i: int, status: int, nit: int) -> Outcome:
    point = _Point(float(at.f[i]), at.g[i], bool(at.reached[i]))
    return Outcome(z, point, Status(status), nit, 0, [], np.zeros(0))


class Search:
    """Runs B problems from their starts ``z0`` (B, n), restarting the misses (see the module
    docstring); :meth:`run` returns the best runs and each problem's restarts.

    Args:
        method: the batched run.
        model: the structure; scaled: its scaled problem (the samplers' bounds and rows).
        z0: (B, n) feasible starts; q_fixed: (B, n_joints); targets: (B, T, 3).
        options: ``restarts``, ``seed``; settles: (B,) a goal provably out of reach (the
            agreement stop applies).
        deadline: ``time.perf_counter()`` value at which every run stops, or None.
    """

    def __init__(
        self,
        method: BatchDampedLeastSquares,
        model: BatchModel,
        scaled: ScaledProblem,
        z0: np.ndarray,
        q_fixed: np.ndarray,
        targets: np.ndarray,
        options: Options,
        settles: np.ndarray,
        deadline: float | None,
    ) -> None:
        self.method, self.model, self.scaled = method, model, scaled
        self.z0, self.q_fixed, self.targets = z0, q_fixed, targets
        self.restarts, self.seed = options.restarts, options.seed
        self.settles, self.deadline = settles, deadline
        count = len(z0)
        self.count = count
        self.tries = np.zeros(count, dtype=int)
        self.settled = np.zeros(count, dtype=bool)  # nothing left to run for the problem
        self.generation = np.zeros(count, dtype=int)
        self.sequences: dict[int, _Sequence] = {}
        self.waiting = 0  # confirmed sequences: problems known to need restarts
        self.best: BestRuns | None = None
        self.iterations = 0  # passes over the working set
        self.run_iterations = 0  # runs over all passes

    def _advance(self, work: Working) -> np.ndarray:
        """One pass: every run of ``work`` one iteration on (counted); (k,) their stops."""
        self.iterations += 1
        self.run_iterations += len(work)
        return self.method.iterate(self.model, work, self.deadline)

    def _out_of_time(self) -> bool:
        return self.deadline is not None and time.perf_counter() >= self.deadline

    def run(self) -> tuple[BestRuns, np.ndarray]:
        model, count = self.model, self.count
        z = np.array(self.z0, dtype=float)
        at = model.evaluate(z, self.q_fixed, self.targets)
        self.best = BestRuns(
            z.copy(),
            take_rows(at, np.arange(count)),  # type: ignore[arg-type]
            np.full(count, RUNNING, dtype=int),
            np.zeros(count, dtype=int),
            np.zeros(count, dtype=int),
        )
        zeros = np.zeros(count, dtype=int)
        work = Working(
            z, at, zeros.copy(), np.ones(count, dtype=int), self.q_fixed, self.targets,
            np.arange(count), zeros.copy(), zeros.copy(), *self.method.starting(~self.settles),
        )  # fmt: skip
        while len(work):
            status = self._advance(work)
            # Most passes end no run and start no restart: then nothing below changes.
            ended = (status != RUNNING).nonzero()[0]
            touched: list[int] = []
            if len(ended):
                touched = self._settled_at_once(work, status)
                for i in (status != RUNNING).nonzero()[0]:  # those left after it
                    touched.append(self._finished(work, int(i), int(status[i])))
            if self.restarts:
                early = (work.nit == SPECULATE).nonzero()[0]  # few, if any: test those only
                if len(early):
                    early = early[
                        (work.attempt[early] == 0)
                        & (status[early] == RUNNING)
                        & ~self.settled[work.owner[early]]
                    ]
                for i in early:
                    b = int(work.owner[i])
                    self.sequences[b] = _Sequence(self._sampler(b), None, confirmed=False)
                    touched.append(b)
            if not len(ended) and not touched:  # every run going on, as it was
                continue
            for b in dict.fromkeys(touched):
                self._take(b)
            owner = work.owner
            keep = (
                (status == RUNNING)
                & ~self.settled[owner]
                & (work.generation == self.generation[owner])
            )
            if not keep.all():
                work = work.take(keep.nonzero()[0])
            if touched and not self._out_of_time():
                work = self._launch(work, dict.fromkeys(touched))
        self._polish()
        return self.best, self.tries

    def _polish(self) -> None:
        """Take every problem whose best run stalled on from its answer, as
        :func:`solver.methods.dls.polish` does a single solve's: one more run that never
        stalls, all of them in one working set, their iterations and evaluations added."""
        best = self.best
        assert best is not None
        problems = (best.status == _STALLED).nonzero()[0]
        if not len(problems):
            return
        count = len(problems)
        zeros = np.zeros(count, dtype=int)
        work = Working(
            best.z[problems], take_rows(best.evaluation, problems), zeros.copy(),
            np.ones(count, dtype=int), self.q_fixed[problems], self.targets[problems],
            problems, zeros.copy(), self.generation[problems],
            *self.method.starting(np.zeros(count, dtype=bool)),
        )  # fmt: skip
        while len(work):
            status = self._advance(work)
            ended = (status != RUNNING).nonzero()[0]
            if not len(ended):
                continue
            owner = work.owner[ended]
            best.z[owner] = work.z[ended]
            best.evaluation.put(owner, work.at.take(ended))
            best.status[owner] = status[ended]
            best.nit[owner] += work.nit[ended]
            best.nfev[owner] += work.nfev[ended]
            work = work.take((status == RUNNING).nonzero()[0])

    def _settled_at_once(self, work: Working, status: np.ndarray) -> list[int]:
        """Settle the problems whose first run ended with no restart to follow (most: their
        goals met) in a few array operations, their runs marked done in ``status``
        (:data:`RUNNING` again, and dropped as settled); returns those that had restarts
        started early (their runs are dropped too)."""
        best = self.best
        assert best is not None
        done = (status != RUNNING) & (work.attempt == 0)
        final = work.at.reached | (status == _TIME_LIMIT) | (not self.restarts)
        rows = (done & final & (work.generation == self.generation[work.owner])).nonzero()[0]
        if not len(rows):
            return []
        owner = work.owner[rows]
        best.z[owner] = work.z[rows]
        best.status[owner] = status[rows]
        best.nit[owner], best.nfev[owner] = work.nit[rows], work.nfev[rows]
        best.evaluation.put(owner, work.at.take(rows))
        self.settled[owner] = True
        status[rows] = RUNNING
        early = [int(b) for b in owner if int(b) in self.sequences]
        for b in early:
            del self.sequences[b]
        return early

    def _sampler(self, b: int) -> StartSampler:
        return StartSampler(self.scaled, self.z0[b], self.seed)

    def _finished(self, work: Working, i: int, status: int) -> int:
        """Note run ``i``'s stop; returns its problem."""
        b, attempt = int(work.owner[i]), int(work.attempt[i])
        if self.settled[b] or work.generation[i] != self.generation[b]:
            return b
        one = np.array([i])
        run = _Run(work.z[i].copy(), work.at.take(one), status, int(work.nit[i]), int(work.nfev[i]))
        if attempt == 0:
            self._first(b, run)
        else:
            self.sequences[b].finished[attempt] = run
        return b

    def _first(self, b: int, run: _Run) -> None:
        """Problem ``b``'s first run ended: it is the best so far; restart it or not."""
        best = self.best
        assert best is not None
        self._keep(b, run)
        best.nit[b], best.nfev[b] = run.nit, run.nfev
        converged = run.status in (Status.GOAL_REACHED, Status.KUHN_TUCKER)
        if (
            run.evaluation.reached[0]
            or not self.restarts
            or run.status == Status.TIME_LIMIT
            or (converged and only_point(self.scaled.system, run.z))
        ):
            self._settle(b)
            return
        self.waiting += 1
        if converged:  # the nudge first: a sequence drawn without it is dropped
            self.generation[b] += 1
            self.sequences[b] = _Sequence(self._sampler(b), run.z, confirmed=True)
        elif b in self.sequences:
            self.sequences[b].confirmed = True
        else:
            self.sequences[b] = _Sequence(self._sampler(b), None, confirmed=True)

    def _keep(self, b: int, run: _Run) -> None:
        best = self.best
        assert best is not None
        best.z[b] = run.z
        best.status[b] = run.status
        best.evaluation.put(np.array([b]), run.evaluation)

    def _settle(self, b: int) -> None:
        self.settled[b] = True
        sequence = self.sequences.pop(b, None)
        self.waiting -= sequence is not None and sequence.confirmed

    def _take(self, b: int) -> None:
        """Take problem ``b``'s finished restarts in order, as the single solve would."""
        sequence = self.sequences.get(b)
        best = self.best
        assert best is not None
        if sequence is None or not sequence.confirmed:
            return
        while sequence.taken + 1 in sequence.finished:
            sequence.taken += 1
            run = sequence.finished.pop(sequence.taken)
            self.tries[b] += 1
            outcome = _outcome(run.z, run.evaluation, 0, run.status, run.nit)
            held = _outcome(best.z[b], best.evaluation, b, int(best.status[b]), 0)
            sequence.agreement.record(outcome, held)
            best.nit[b] += run.nit
            best.nfev[b] += run.nfev
            if better(held, outcome, self.z0[b]) is outcome:
                self._keep(b, run)
            if (
                best.evaluation.reached[b]
                or self.tries[b] >= self.restarts
                or run.status == Status.TIME_LIMIT
                or (self.settles[b] and sequence.agreement.settled)
            ):
                self._settle(b)
                return

    def _launch(self, work: Working, problems: dict[int, None]) -> Working:
        """Start the next restarts of ``problems`` that have room for more running ones."""
        waiting = max(self.waiting, 1)
        base = min(MAX_WIDTH, max(1, BUDGET // waiting))
        owners: list[int] = []
        attempts: list[int] = []
        starts: list[np.ndarray] = []
        for b in problems:
            sequence = self.sequences.get(b)
            if sequence is None:
                continue
            width = (
                FIRST_WIDTH if not sequence.confirmed else min(MAX_WIDTH, max(base, sequence.taken))
            )
            while sequence.drawn - sequence.taken < width and sequence.drawn < self.restarts:
                starts.append(sequence.next_start())
                owners.append(b)
                attempts.append(sequence.drawn)
        if not starts:
            return work
        owner = np.array(owners)
        z = np.array(starts)
        q_fixed, targets = self.q_fixed[owner], self.targets[owner]
        at = self.model.evaluate(z, q_fixed, targets)
        new = Working(
            z, at, np.zeros(len(owner), dtype=int), np.ones(len(owner), dtype=int), q_fixed,
            targets, owner, np.array(attempts), self.generation[owner],
            *self.method.starting(~self.settles[owner]),
        )  # fmt: skip
        return work.join(new)


__all__ = ["BUDGET", "FIRST_WIDTH", "MAX_WIDTH", "SPECULATE", "BestRuns", "Search"]
