"""Entry points of the batch: :class:`BatchSolver` and :func:`solve_batch`.

B problems share a figure and its constraints (the structure: which goals, effectors,
weights, limits) and differ in their goals' targets and their starts. Every problem runs
``"dls"`` (:mod:`.dls`) from its start, all at once; a problem that misses a goal is
restarted like a single solve (:mod:`solver.search.restarts`: the nudge after a Kuhn-Tucker
stop, then the seeded starts, the agreement stop for a provably unreachable goal, the
better of two answers by :func:`~solver.search.restarts.better`), its restarts running in the same
working set as the other problems' runs (:mod:`.search`), so a problem solved from the same
start with ``Solver(method="dls")`` and the same options meets its goals alike.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..assembly.problem import Problem
from ..assembly.scale import ScaledProblem, characteristic_length
from ..errors import InvalidInputError
from ..goals import AimGoal
from ..model.constraint import Constraint, constraint_list
from ..model.figure import Figure, coordinate_system
from ..model.linear import FEASIBILITY_TOLERANCE
from ..optimizer import Status
from ..options import Options, given_options
from ..search.reach_bound import reach
from ..solve import RELATIVE_TOLERANCE
from .dls import BatchDampedLeastSquares
from .inputs import batch_size, starts_of, targets_of
from .model import BatchEvaluation, BatchModel, box_bounds
from .result import BatchResult
from .search import BestRuns, Search

#: The options a batch refuses when set, with what they would need.
_REFUSED = {
    "max_change": "a step bound per problem",
    "analytic_start": "the analytic start",
}


class BatchSolver:
    """Solves B problems of one structure at once (see the module docstring).

    Args:
        figure: the figure.
        constraints: the constraints; the enabled ones must have goals of the kinds in
            :data:`~.model.SUPPORTED_GOALS`, fixed in the world.
        options: the options (None: ``Options(method="dls")``); ``method`` must be
            ``"dls"``, ``max_change`` None and ``analytic_start`` off. ``time_limit`` is
            pooled: the batch may take ``time_limit * B`` seconds in all (what B single
            solves could), after which every running problem stops with ``TIME_LIMIT``.
        changes: options by name, changed from ``options``.

    Raises:
        InvalidInputError: a figure that is not a :class:`Figure`, a bad constraint list, a
            bad or refused option (named).
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
        self.options = _checked(given_options(options, changes, Options(method="dls")))
        self.figure = figure
        self.constraints = constraint_list(constraints)
        self._problem: Problem | None = None
        self._key: tuple = ()

    def _assemble(self, start: np.ndarray, options: Options) -> tuple[ScaledProblem, float]:
        key = (self.figure.version, tuple(c.enabled for c in self.constraints))
        if self._problem is None or key != self._key:
            self._problem = Problem(self.figure, self.constraints, start)
            self._key = key
        problem = self._problem
        problem.rebase(start)
        length = characteristic_length(self.figure, self.constraints)
        problem.tolerance = (
            RELATIVE_TOLERANCE * length if options.tolerance is None else options.tolerance
        )
        problem.angle_tolerance = options.angle_tolerance
        for c in self.constraints:
            for goal in c.goal.members():
                goal.length = length
        return ScaledProblem(problem, length), length

    def solve(
        self,
        targets: Mapping[str, object] | None = None,
        initial: object = None,
        options: Options | None = None,
    ) -> BatchResult:
        """Solve B problems: problem ``b`` has targets ``targets[...][b]`` and start
        ``initial[b]``.

        Args:
            targets: by constraint name, that constraint's goal targets for every problem:
                a mapping from the goal's attribute (``"point"``, ``"x"``, ``"y"``) to a
                (B, 3) array (directions are normalised), or a (B, 4, 4) array of poses
                (the point and the x/y directions the goal aligns, as
                :meth:`PositionOrientationGoal.set_target` reads a pose). A constraint or
                attribute not given keeps its goal's current value in every problem.
            initial: (B, n_coords) starts, one (n_coords,) start for all, or None (the
                figure's neutral pose); a start outside the limits is moved in first.
            options: this call's options (None: the solver's).

        Raises:
            InvalidInputError: targets or starts of the wrong shape, not finite, naming an
                unknown constraint or attribute, disagreeing on B, or B = 0; an unsupported
                goal, or linear rows coupling several variables (named).
        """
        clock = time.perf_counter()
        options = self.options if options is None else _checked(options)
        figure = self.figure
        if not figure.segments:
            raise InvalidInputError("the figure has no segments; add segments and joints first")
        starts = starts_of(figure, initial)
        # Every row bounds one coordinate (else refused, named): a start is moved into the
        # limits by a clip, the exact projection of the single solve onto boxes.
        lower, upper = box_bounds(coordinate_system(figure))
        model_start = np.clip(figure.neutral() if starts is None else starts[0], lower, upper)
        scaled, length = self._assemble(model_start, options)
        model = BatchModel(scaled)
        given = targets_of(model, targets)
        count = batch_size(given, starts)
        table = model.default_targets(count)
        for slot, values in given.items():
            table[:, slot] = values
        if starts is None:
            starts = figure.neutral()[None, :]
        starts = np.clip(
            np.broadcast_to(starts, (count, len(lower))), lower, upper
        )  # the limits are boxes (BatchModel checks)
        problem = scaled.problem
        coupling = figure.coupling
        q_fixed = starts[:, problem.fixed] @ coupling[:, problem.fixed].T
        unit = scaled.unit
        z0 = np.clip(starts[:, problem.variables] / problem.scale / unit, model.lower, model.upper)
        method = BatchDampedLeastSquares(options.method_options())
        limit = options.time_limit
        deadline = None if limit is None else clock + limit * count
        settles = _out_of_reach(model, table)
        search = Search(method, model, scaled, z0, q_fixed, table, options, settles, deadline)
        best, restarts = search.run()
        coords = np.array(starts, dtype=float)
        coords[:, problem.variables] = problem.scale * (unit * best.z)
        # Back from scaled variables a value on a bound may be off by a rounding: clip it.
        coords = np.clip(coords, lower, upper)
        result = _result(model, figure, best, restarts, coords, length, time.perf_counter() - clock)
        return dataclasses.replace(
            result, iterations=search.iterations, run_iterations=search.run_iterations
        )


def solve_batch(
    figure: Figure,
    constraints: Sequence[Constraint],
    targets: Mapping[str, object] | None = None,
    initial: object = None,
    **options: Any,
) -> BatchResult:
    """Solve B problems of one structure at once (:class:`BatchSolver`'s ``solve``).

    Args:
        figure: the figure.
        constraints: the constraints (their goals' kinds: :data:`~.model.SUPPORTED_GOALS`).
        targets: per constraint name, the goal targets of every problem (see
            :meth:`BatchSolver.solve`).
        initial: (B, n_coords) starts, one (n_coords,) start, or None.
        options: the options by name (``method`` is ``"dls"``).
    """
    return BatchSolver(figure, constraints, **options).solve(targets, initial)


def _checked(options: Options) -> Options:
    if not isinstance(options, Options):
        raise InvalidInputError(f"options must be a solver.Options, got {options!r}")
    if options.method != "dls":
        raise InvalidInputError(
            f"method: a batch solves by 'dls' (damped least squares) only, got {options.method!r}"
        )
    for name, what in _REFUSED.items():
        if getattr(options, name) not in (None, False):
            raise InvalidInputError(f"{name}: a batch does not support {what}; leave it unset")
    return options


def _out_of_reach(model: BatchModel, targets: np.ndarray) -> np.ndarray:
    """(B,) some weighted constraint's point is provably out of reach in that problem
    (:func:`solver.search.reach_bound.out_of_reach`, for the batch's goals)."""
    count = len(targets)
    out = np.zeros(count, dtype=bool)
    figure = model.problem.figure
    for c in model.problem.constraints:
        if c.weight <= 0.0:
            continue
        slot = next(
            (
                k
                for k, s in enumerate(model.slots)
                if s.constraint == c.name and s.attribute == "point"
            ),
            None,
        )
        measured = not isinstance(c.goal, AimGoal) and getattr(c.goal, "position_weight", 1.0) > 0.0
        if slot is None or not measured:
            continue
        origin, farthest = reach(figure, figure.segment_index(c.effector.segment), c.effector.point)
        gap = np.linalg.norm(targets[:, slot] - origin, axis=1) - farthest
        out |= gap > model.tolerance
    return out


def _result(
    model: BatchModel,
    figure: Figure,
    best: BestRuns,
    restarts: np.ndarray,
    coords: np.ndarray,
    length: float,
    seconds: float,
) -> BatchResult:
    at: BatchEvaluation = best.evaluation
    count, n_constraints = len(coords), model.n_constraints
    distance = np.full((count, n_constraints), np.nan)
    distance[:, model.distance_owner] = at.distance
    angle = np.full((count, n_constraints), np.nan)
    for pair, owner in enumerate(model.angle_owner):
        angle[:, owner] = np.fmax(angle[:, owner], at.angle[:, pair])
    satisfied = ~(distance > model.tolerance) & ~(angle > model.angle_tolerance)
    status = best.status
    # Rows holding the answer: equalities, and bounds the gradient pushes against (the
    # sign convention of the single solve's active set).
    system = model.scaled.system
    column = (system.A != 0.0).argmax(axis=1)
    sign = system.A[np.arange(len(column)), column]
    z, g = best.z, at.g
    size = 1e-12 * (1.0 + np.linalg.norm(g, axis=1))[:, None]
    slack = system.b - z[:, column] * sign
    on = slack <= FEASIBILITY_TOLERANCE  # on_bound's test
    pushed = -g[:, column] * sign > size
    active = system.equality | (on & pushed)
    return BatchResult(
        x=coords,
        joint_values=coords @ figure.coupling.T,
        joint_names=figure.joint_names,
        status=status.copy(),
        success=np.asarray(satisfied.all(axis=1)),
        converged=np.isin(status, (Status.GOAL_REACHED, Status.KUHN_TUCKER)),
        fun=at.f * length * length,
        nit=best.nit.copy(),
        nfev=best.nfev.copy(),
        restarts=restarts,
        distance=distance,
        angle=angle,
        satisfied=satisfied,
        names=tuple(c.name for c in model.problem.constraints),
        active=active,
        labels=tuple(system.labels),
        time=seconds,
    )


__all__ = ["BatchSolver", "solve_batch"]
