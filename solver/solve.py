"""Entry points: :func:`solve` for one pose, :class:`Solver` for sequences."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Unpack

import numpy as np

from ._checks import count, flag, non_negative_number, optional, positive_number
from .conditioning import PoseJacobians
from .constraint import Constraint, constraint_list
from .errors import InvalidInputError
from .figure import Figure
from .linear import LinearSystem, coordinate_system, only_point, project
from .methods import METHODS, Method, MethodOptions, make_method
from .methods.analytic_start import AnalyticStart
from .optimizer import Outcome, Status
from .options import SolverOptions
from .problem import Problem
from .reach_bound import out_of_reach
from .restarts import Agreement, StartSampler, better
from .result import IKResult, Residual, stop_message
from .scale import ScaledEvaluation, ScaledProblem, characteristic_length
from .step_bound import MaxChange, binds, bounded, checked

#: Default distance tolerance as a fraction of the characteristic length.
RELATIVE_TOLERANCE = 1e-6
#: Default wall-time budget of one solve, seconds (restarts included).
DEFAULT_TIME_LIMIT = 1.0
#: Default number of restarts after a run that misses a goal (the time limit usually ends
#: the search first).
DEFAULT_RESTARTS = 100


class Solver:
    """A reusable solve of ``constraints`` on ``figure``.

    Index tables and arrays are built once; :meth:`solve` can then be called
    again and again with retargeted goals (``goal.point = ...``), warm-started
    from the previous solution. Enabling or disabling a constraint, or
    changing the figure, re-assembles on the next solve (the figure itself is
    never rebuilt).

    Args:
        figure: the figure.
        constraints: the constraints (at least one enabled).
        tolerance: distance (scene units) within which a goal counts as reached;
            None (the default) = ``1e-6 L`` with ``L`` the figure's
            characteristic length (:func:`solver.scale.characteristic_length`).
        angle_tolerance: angle (degrees) within which a goal counts as reached.
        max_iterations: iteration limit per solve.
        method: how one run minimises the objective (:mod:`solver.methods`):
            the projected quasi-Newton optimiser of the Appendix with one of two
            strategies for its inverse Hessian ``H``:
            ``"gauss-newton-hybrid"`` (the default) seeds ``H`` from the
            inverse of the damped Gauss-Newton matrix and re-seeds it after
            every step the Gauss-Newton model predicts well (in effect a
            projected Levenberg-Marquardt method with BFGS/DFP updates in
            between); ``"bfgs"`` is the paper's Appendix as written
            (``H_0 = I``, updates (30), (32), (33)/(34) only, never re-seeded).
            The hybrid is the default because it needs 1.8-5.4x fewer iterations
            at the same or a higher solve rate (bench/OPTIMIZER_SCALING.md:
            mean 17.9 vs 56.8 iterations and 98 % vs 96 % solved on a 7-DOF
            full-pose task, 6.3 vs 34.2 iterations on a 3-link chain).
            ``"dls"``: damped least squares from the SVD of the stacked weighted
            task Jacobian (seed 001, eqs. 15-18), limits by an active set;
            ``"pinv"``: the same undamped, the pseudoinverse (eq. 11), for
            comparison (:mod:`solver.methods.dls`).
        damping: Levenberg damping of the Gauss-Newton seed relative to its
            mean diagonal (``"gauss-newton-hybrid"`` only).
        dls_damping: damping factor ``lambda`` of ``"dls"`` (eq. 15, in the
            scaled variables); None: chosen every iteration from ``step_limit``
            (eq. 18: ``lambda = |e| / (2 step_limit)``, which bounds the step's
            length by ``step_limit``).
        step_limit: largest change of any variable in one iteration of the
            Jacobian methods (radians; scene units / ``L`` for prismatic
            variables); None: each method's default.
        max_change: largest change of any coordinate over one whole solve, from
            its (feasible) start: radians, scene units for a coordinate that moves
            only prismatic joints (smooth tracking: a bake bounds each frame's joint
            step); one number, or an (n_coords,) array of one per coordinate
            (:func:`solver.step_bound.per_kind`). Rows of the solve like the joint
            limits, so every method and every restart's start stays within them;
            the restarts are skipped when a bound row holds the answer (the miss is
            the bound's, not a local minimum's). See :mod:`solver.step_bound`.
            None: unbounded.
        analytic_start: start each constraint whose chain is two hinge or ball
            bones reaching for a point from the limb's analytic solution
            (:mod:`solver.methods.analytic_start`), when that lowers ``G`` (the
            start is never worse). Off by default: measured on a ball-shoulder,
            hinge-elbow arm (bench/TWO_BONE.md) it makes cold starts from the rest
            pose cheaper (0 iterations instead of 10.7, median CPU time 0.9 ms
            instead of 2.7; with limits and ``restarts=0`` 100 % solved instead of
            93.8 %), but each frame of a warm-started track dearer (1.4 ms instead
            of 0.86 ms for the 2 iterations it saves), with the same smoothness.
        time_limit: wall-time budget of one solve in seconds, restarts
            included; the optimiser checks it every iteration, so it always
            stops the solve (status ``TIME_LIMIT`` if it cut the first run).
            None: no limit.
        restarts: when a run ends without meeting every goal (a local minimum,
            the iteration limit), start again up to this many times while the
            time limit allows (:mod:`solver.restarts`): first near the start
            (small perturbations, so an animation keeps its branch and a
            singular start is left), then uniformly within the limits. The
            search stops at the first start that meets every goal, or, when a
            goal is out of reach whatever the pose (``solver.reach_bound``), once
            the restarts agree: ``solver.restarts.AGREEING`` (5) restarts in a row
            that end at a Kuhn-Tucker point no better than the best (``G`` lower by
            less than ``solver.restarts.AGREEMENT``, 1e-6, of it; a lower one starts
            the count again). None runs when the answer is the only feasible point.
            Otherwise the best answer is kept, weighted towards continuity. The first
            restart after a Kuhn-Tucker stop that misses is a tiny nudge of
            the stopping point (it leaves saddles and maxima such as a
            straight, singular chain). 0: one local run, never moving away
            from the start's basin.
        seed: seed of the restart sampler; the starts tried depend only on it,
            so results are repeatable unless the time limit cuts the search.
    """

    def __init__(
        self,
        figure: Figure,
        constraints: Sequence[Constraint],
        tolerance: float | None = None,
        angle_tolerance: float = 0.01,
        max_iterations: int = 200,
        time_limit: float | None = DEFAULT_TIME_LIMIT,
        restarts: int = DEFAULT_RESTARTS,
        seed: int = 0,
        method: str = "gauss-newton-hybrid",
        damping: float = 1e-6,
        dls_damping: float | None = None,
        step_limit: float | None = None,
        max_change: MaxChange | None = None,
        analytic_start: bool = False,
    ) -> None:
        if not isinstance(figure, Figure):
            raise InvalidInputError(f"figure must be a solver.Figure, got {figure!r}")
        if not isinstance(method, str) or method not in METHODS:
            raise InvalidInputError(f"method must be one of {METHODS}, got {method!r}")
        self.figure = figure
        self.constraints = constraint_list(constraints)
        self.tolerance = None if tolerance is None else positive_number(tolerance, "tolerance")
        self.angle_tolerance = positive_number(angle_tolerance, "angle_tolerance")
        self.max_iterations = count(max_iterations, "max_iterations")
        self.method = method
        self.damping = non_negative_number(damping, "damping")
        self.time_limit = None if time_limit is None else positive_number(time_limit, "time_limit")
        self.restarts = count(restarts, "restarts")
        self.seed = count(seed, "seed")
        self.dls_damping = optional(non_negative_number, dls_damping, "dls_damping")
        self.step_limit = optional(positive_number, step_limit, "step_limit")
        self.max_change = checked(max_change)
        self.analytic_start = flag(analytic_start, "analytic_start")
        self._analytic = AnalyticStart() if self.analytic_start else None
        self._method: Method = make_method(
            method,
            MethodOptions(
                max_iterations=self.max_iterations,
                damping=self.damping,
                dls_damping=self.dls_damping,
                step_limit=self.step_limit,
            ),
        )
        self.last: np.ndarray | None = None
        self._problem: Problem | None = None
        self._key: tuple = ()
        self._sized = -1  # the figure's offset_version that ``length`` was measured at
        self._rows: tuple[int, LinearSystem] | None = None
        self.length = 1.0
        self._scaled: ScaledProblem | None = None

    @property
    def problem(self) -> Problem:
        """The assembled problem (objective, gradient, rows) at the last start."""
        if self._problem is None:
            start = self.last if self.last is not None else self.figure.neutral()
            self._assemble(start)
        assert self._problem is not None
        return self._problem

    def _assemble(self, coords: np.ndarray) -> Problem:
        key = (self.figure.version, tuple(c.enabled for c in self.constraints))
        if self._problem is None or key != self._key:
            self._problem = Problem(
                self.figure, self.constraints, coords, 1.0, self.angle_tolerance
            )
            self._key = key
            self._sized = -1
        else:
            self._problem.rebase(coords)
        if self._sized != self.figure.offset_version:  # built, or rest offsets changed since
            self.length = characteristic_length(self.figure, self.constraints)
            self._problem.tolerance = (
                RELATIVE_TOLERANCE * self.length if self.tolerance is None else self.tolerance
            )
            self._sized = self.figure.offset_version
        for c in self.constraints:
            for goal in c.goal.members():
                goal.length = self.length
        return self._problem

    def _feasible(self, coords: np.ndarray) -> np.ndarray:
        """``coords`` (n_coords,) moved to the nearest point within every limit and row.

        All coordinates, not only the solve's variables: locked (rigidity 1) and
        out-of-chain joints keep their value through the solve, so it must be feasible.
        """
        if self._rows is None or self._rows[0] != self.figure.version:
            self._rows = (self.figure.version, coordinate_system(self.figure))
        return project(self._rows[1], coords, "the joint limits")

    def _run(
        self,
        problem: ScaledProblem,
        z0: np.ndarray,
        callback: Callable[[np.ndarray, float], None] | None,
        deadline: float | None = None,
    ) -> Outcome[ScaledEvaluation]:
        return self._method.run(problem, z0, callback, deadline)

    def _search(
        self,
        scaled: ScaledProblem,
        z0: np.ndarray,
        outcome: Outcome[ScaledEvaluation],
        callback: Callable[[np.ndarray, float], None] | None,
        deadline: float | None,
    ) -> tuple[Outcome[ScaledEvaluation], int, int]:
        """Restart after a run that misses a goal; the best run, total iterations, restarts.

        No restart when the miss is a step bound's (``max_change``) or when the answer is
        the only feasible point (no start can lead elsewhere); when a goal is out of reach
        whatever the pose, the search stops once the restarts keep agreeing
        (:class:`~solver.restarts.Agreement`).
        """
        nit, tries = outcome.nit, 0
        best = outcome
        if (
            best.status == Status.GOAL_REACHED  # the run saw every goal met (asked there)
            or best.evaluation.reached
            or not self.restarts
            or binds(scaled.system, best.active)
            or (best.converged and only_point(scaled.system, best.y))
        ):
            return best, nit, tries
        sampler = StartSampler(scaled, z0, self.seed)
        # Only a goal out of reach whatever the pose lets agreeing restarts end the search.
        problem = scaled.problem
        settles = out_of_reach(problem.figure, problem.constraints, problem.tolerance)
        agreement = Agreement()

        def out_of_time(last: Outcome[ScaledEvaluation]) -> bool:
            return last.status == Status.TIME_LIMIT or (
                deadline is not None and time.perf_counter() >= deadline
            )

        # A Kuhn-Tucker stop that misses may be a saddle or maximum (a straight,
        # singular chain has a zero gradient): nudge it first.
        if best.converged and not out_of_time(best):
            outcome = self._run(scaled, sampler.nudge(best.y), callback, deadline)
            nit += outcome.nit
            tries += 1
            agreement.record(outcome, best)
            best = better(best, outcome, z0)
        while (
            not best.evaluation.reached
            and tries < self.restarts
            and not out_of_time(outcome)
            and not (settles and agreement.settled)
        ):
            outcome = self._run(scaled, sampler.next(), callback, deadline)
            nit += outcome.nit
            tries += 1
            agreement.record(outcome, best)
            best = better(best, outcome, z0)
        return best, nit, tries

    def solve(
        self,
        initial: object = None,
        callback: Callable[[np.ndarray, float], None] | None = None,
    ) -> IKResult:
        """Solve from ``initial`` coordinates (n_coords,).

        Args:
            initial: start coordinates; None warm-starts from the previous
                solution (or the figure's neutral pose on the first call).
                A start outside the limits is moved to the nearest feasible
                point first.
            callback: called as ``callback(coords, G)`` at the start and after
                every iteration; with ``restarts`` each restart's run is reported
                too, starting again from its own (higher) objective.

        Raises:
            InvalidInputError: for a figure without segments or without joints
                (nothing can move: an error rather than a "result" that is only
                the input), a malformed ``initial`` or ``callback``.
        """
        clock = time.perf_counter()
        if callback is not None and not callable(callback):
            raise InvalidInputError(f"callback must be callable or None, got {callback!r}")
        if not self.figure.segments:
            raise InvalidInputError("the figure has no segments; add segments and joints first")
        if not self.figure.joints:
            raise InvalidInputError("the figure has no joints; add joints before solving")
        if self.last is not None and len(self.last) != len(self.figure.coordinate_names):
            self.last = None  # the figure gained or lost joints since the last solve
        if initial is None:
            start = self.last if self.last is not None else self.figure.neutral()
        else:
            start = self.figure._coords(initial, "initial")
        start = self._feasible(start)
        problem = self._assemble(start)
        y0 = project(problem.system, problem.from_coordinates(start), "the joint limits")
        problem.check_goals(y0)
        problem.nfev = 0
        scaled = self._scaled
        if scaled is None or scaled.problem is not problem or scaled.length != self.length:
            scaled = self._scaled = ScaledProblem(problem, self.length)
        else:
            scaled.rebase()
        wrapped: Callable[[np.ndarray, float], None] | None = None
        if callback is not None:
            user_callback = callback

            def in_coordinates(z: np.ndarray, f: float) -> None:
                user_callback(problem.to_coordinates(scaled.to_y(z)), f / scaled.inverse_square)

            wrapped = in_coordinates

        deadline = None if self.time_limit is None else clock + self.time_limit
        z0 = scaled.from_y(y0)
        # This solve's rows: the limits, and the step bound around its start (the
        # analytic start is projected onto them too).
        rows = scaled if self.max_change is None else bounded(scaled, z0, self.max_change)
        first = z0 if self._analytic is None else self._analytic.start(rows, z0)
        outcome = self._run(rows, first, wrapped, deadline)
        outcome, nit, restarts = self._search(rows, z0, outcome, wrapped, deadline)
        coords = problem.to_coordinates(scaled.to_y(outcome.y))
        self.last = coords
        e = outcome.evaluation.raw
        residuals = tuple(
            Residual(c.name, r.distance, r.angle, problem.satisfied(r))
            for c, r in zip(problem.constraints, e.reports, strict=True)
        )
        status = outcome.status
        active_set = tuple(rows.system.labels[i] for i in outcome.active)
        unmet = tuple(r.name for r in residuals if not r.satisfied)
        return IKResult(
            x=coords,
            # figure.joint_values(coords) without re-checking the solver's own finite coords
            joint_values=self.figure.coupling @ coords,
            joint_names=self.figure.joint_names,
            status=status,
            message=stop_message(status, unmet, active_set),
            success=not unmet,
            converged=status in (Status.GOAL_REACHED, Status.KUHN_TUCKER),
            fun=e.f,
            nit=nit,
            nfev=problem.nfev,
            restarts=restarts,
            residuals=residuals,
            active_set=active_set,
            time=time.perf_counter() - clock,
            pose_jacobians=PoseJacobians(
                tuple(e.terms),
                tuple(c.name for c in problem.constraints),
                problem.variables,
                problem.scale,
                problem.system.A[problem.system.equality],
                self.figure.coordinate_names,
            ),
        )


def solve(
    figure: Figure,
    constraints: Sequence[Constraint],
    initial: object = None,
    callback: Callable[[np.ndarray, float], None] | None = None,
    **options: Unpack[SolverOptions],
) -> IKResult:
    """Solve ``constraints`` on ``figure`` once.

    Args:
        figure: the figure.
        constraints: constraints to satisfy together (weighted sum, eq. 25).
        initial: (n_coords,) start coordinates; None = ``figure.neutral()``.
        callback: ``callback(coords, G)`` at the start and every iterate.
        options: keyword options of :class:`Solver` (``tolerance``, ``method``, ...).
    """
    return Solver(figure, constraints, **options).solve(initial, callback)
