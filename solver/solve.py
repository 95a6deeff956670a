"""Entry points: :func:`solve` for one pose, :class:`Solver` for sequences."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .analysis.conditioning import PoseJacobians
from .assembly.problem import Problem
from .assembly.scale import ScaledEvaluation, ScaledProblem, characteristic_length
from .assembly.step_bound import binds, bounded
from .errors import FrozenError, InvalidInputError
from .methods import Method, make_method
from .methods.analytic_start import AnalyticStart
from .methods.dls import polish
from .model.constraint import Constraint, constraint_list
from .model.figure import Figure, coordinate_system
from .model.linear import LinearSystem, only_point, project
from .optimizer import Outcome, Status
from .options import NAMES, Options, given_options
from .result import IKResult, Residual, stop_message
from .search.reach_bound import out_of_reach
from .search.restarts import Agreement, StartSampler, better

#: Default distance tolerance as a fraction of the characteristic length.
RELATIVE_TOLERANCE = 1e-6


class Solver:
    """A reusable solve of ``constraints`` on ``figure``.

    Index tables and arrays are built once; :meth:`solve` can then be called
    again and again with retargeted goals (``goal.point = ...``), warm-started
    from the previous solution. Enabling or disabling a constraint, or
    changing the figure, re-assembles on the next solve (the figure itself is
    never rebuilt).

    The options are one frozen value, :attr:`options` (:class:`~solver.options.Options`:
    each option's meaning and unit); they are given here, as keywords or as an
    ``Options`` value (then keywords change it), and never assigned later: a solve with
    other options passes them to :meth:`solve`
    (``ik.solve(start, options=ik.options.replace(restarts=0))``). Assigning an option on
    the solver raises :class:`~solver.errors.FrozenError`.

    Args:
        figure: the figure.
        constraints: the constraints (at least one enabled).
        options: the options (None: the defaults).
        changes: options by name (``tolerance``, ``max_iterations``, ``method``, ...),
            changed from ``options``.

    Raises:
        InvalidInputError: a figure that is not a :class:`Figure`, a bad constraint list or
            a bad option (named).
        TypeError: a keyword that is no option.
    """

    def __init__(
        self,
        figure: Figure,
        constraints: Sequence[Constraint],
        options: Options | None = None,
        **changes: Any,
    ) -> None:
        if not isinstance(figure, Figure):
            raise InvalidInputError(f"figure must be a solver.Figure, got {figure!r}")
        self._options = given_options(options, changes, Options())
        self.figure = figure
        self.constraints = constraint_list(constraints)
        self._method = _make_method(self._options)
        self._analytic: AnalyticStart | None = None
        self.last: np.ndarray | None = None
        self._problem: Problem | None = None
        self._key: tuple = ()
        self._sized = -1  # the figure's offset_version that ``length`` was measured at
        self._rows: tuple[int, LinearSystem] | None = None
        self.length = 1.0
        self._scaled: ScaledProblem | None = None

    def __setattr__(self, name: str, value: object) -> None:
        if name in NAMES or name == "options":
            raise FrozenError(
                f"Solver option {name!r} is fixed at construction; solve with other options "
                f"as solver.solve(start, options=solver.options.replace({name}=...)), or "
                "build a new Solver"
            )
        super().__setattr__(name, value)

    @property
    def options(self) -> Options:
        """The solver's options (frozen; :meth:`Options.replace` makes a changed copy)."""
        return self._options

    @property
    def problem(self) -> Problem:
        """The assembled problem (objective, gradient, rows) at the last start."""
        if self._problem is None:
            start = self.last if self.last is not None else self.figure.neutral()
            self._assemble(start, self._options)
        assert self._problem is not None
        return self._problem

    def _assemble(self, coords: np.ndarray, options: Options) -> Problem:
        key = (self.figure.version, tuple(c.enabled for c in self.constraints))
        if self._problem is None or key != self._key:
            self._problem = Problem(
                self.figure, self.constraints, coords, 1.0, options.angle_tolerance
            )
            self._key = key
            self._sized = -1
        else:
            self._problem.rebase(coords)
        if self._sized != self.figure.offset_version:  # built, or rest offsets changed since
            self.length = characteristic_length(self.figure, self.constraints)
            self._sized = self.figure.offset_version
        problem = self._problem
        # This solve's tolerances (the options may be the solve's own).
        problem.tolerance = (
            RELATIVE_TOLERANCE * self.length if options.tolerance is None else options.tolerance
        )
        problem.angle_tolerance = options.angle_tolerance
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

    def _search(
        self,
        method: Method,
        options: Options,
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
        (:class:`~solver.search.restarts.Agreement`).
        """
        nit, tries = outcome.nit, 0
        best = outcome
        if (
            best.status == Status.GOAL_REACHED  # the run saw every goal met (asked there)
            or best.evaluation.reached
            or not options.restarts
            or binds(scaled.system, best.active)
            or (best.converged and only_point(scaled.system, best.y))
        ):
            return best, nit, tries
        sampler = StartSampler(scaled, z0, options.seed)
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
            outcome = method.run(scaled, sampler.nudge(best.y), callback, deadline)
            nit += outcome.nit
            tries += 1
            agreement.record(outcome, best)
            best = better(best, outcome, z0)
        while (
            not best.evaluation.reached
            and tries < options.restarts
            and not out_of_time(outcome)
            and not (settles and agreement.settled)
        ):
            outcome = method.run(scaled, sampler.next(), callback, deadline)
            nit += outcome.nit
            tries += 1
            agreement.record(outcome, best)
            best = better(best, outcome, z0)
        return best, nit, tries

    def solve(
        self,
        initial: object = None,
        callback: Callable[[np.ndarray, float], None] | None = None,
        options: Options | None = None,
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
            options: this solve's options, e.g. ``solver.options.replace(time_limit=0.05)``;
                None: the solver's own (:attr:`options`).

        Raises:
            InvalidInputError: for a figure without segments or without joints
                (nothing can move: an error rather than a "result" that is only
                the input), a malformed ``initial``, ``callback`` or ``options``.
        """
        clock = time.perf_counter()
        if callback is not None and not callable(callback):
            raise InvalidInputError(f"callback must be callable or None, got {callback!r}")
        if options is None:
            options, method = self._options, self._method
        elif not isinstance(options, Options):
            raise InvalidInputError(f"options must be a solver.Options, got {options!r}")
        elif _same_method(options, self._options):
            method = self._method
        else:
            method = _make_method(options)
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
        problem = self._assemble(start, options)
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

        limit = options.time_limit
        deadline = None if limit is None else clock + limit
        z0 = scaled.from_y(y0)
        # This solve's rows: the limits, and the step bound around its start (the
        # analytic start is projected onto them too).
        bound = options.max_change
        rows = scaled if bound is None else bounded(scaled, z0, bound)
        first = z0
        if options.analytic_start:
            if self._analytic is None:
                self._analytic = AnalyticStart()
            first = self._analytic.start(rows, z0)
        outcome = method.run(rows, first, wrapped, deadline)
        outcome, nit, restarts = self._search(method, options, rows, z0, outcome, wrapped, deadline)
        polished = polish(method, rows, outcome, wrapped, deadline)  # a stalled answer's end
        if polished is not outcome:
            outcome, nit = polished, nit + polished.nit
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
    **options: Any,
) -> IKResult:
    """Solve ``constraints`` on ``figure`` once.

    Args:
        figure: the figure.
        constraints: constraints to satisfy together (weighted sum, eq. 25).
        initial: (n_coords,) start coordinates; None = ``figure.neutral()``.
        callback: ``callback(coords, G)`` at the start and every iterate.
        options: the options by name (:class:`~solver.options.Options`: ``tolerance``,
            ``method``, ...).
    """
    return Solver(figure, constraints, **options).solve(initial, callback)


def _make_method(options: Options) -> Method:
    """The run of ``options``: its Method object, or the named method built with them."""
    method = options.method
    if isinstance(method, str):
        return make_method(method, options.method_options())
    return method


def _same_method(a: Options, b: Options) -> bool:
    """Whether ``a`` and ``b`` build the same run (the solver's can then serve both)."""
    return (a.method is b.method or (isinstance(a.method, str) and a.method == b.method)) and (
        a.max_iterations,
        a.damping,
        a.dls_damping,
        a.step_limit,
    ) == (
        b.max_iterations,
        b.damping,
        b.dls_damping,
        b.step_limit,
    )
