"""Damped least squares (``"dls"``) and the pseudoinverse (``"pinv"``): seed 001, eqs. 11-18.

Every iteration linearises the task at ``z`` (:func:`~.jacobian_step.task`: the
stacked weighted Jacobian ``J`` (m, n) and error ``e`` (m,) in the scaled
variables, ``|e|^2 = G / L^2``) and steps by the damped least-squares solution of
``J dz = e``, computed from the SVD ``J = sum_i sigma_i u_i v_i^T`` (eq. 16)::

    dz = sum_i sigma_i / (sigma_i^2 + lambda^2) v_i u_i^T e

which is ``(J^T J + lambda^2 I)^-1 J^T e`` (eq. 15). ``"pinv"`` is ``lambda = 0``:
the pseudoinverse step ``J^+ e`` (eq. 11) with the singular values at or below
:data:`RCOND` ``* sigma_max`` taken as zero (``np.linalg.pinv(J, rcond=RCOND)``),
so near a singularity its step grows as ``1 / sigma_min`` and drops to zero when
``sigma_min`` crosses the cut-off (eqs. 12-13). It is there for comparison: driven to
a straight, singular chain by an unreachable target, its step overshoots the straight
pose at most iterations (the elbow flips sign) and the share left for turning the
chain towards the target is tiny, so it may stop short of pointing at it.

**Damping.** ``dls_damping`` given: that ``lambda`` at every iteration (in the
scaled variables, where ``J`` and ``e`` are dimensionless). None (the default):
``lambda = |e| / (2 s)`` at every iteration, ``s`` being the run's step limit (below).
Since ``sigma / (sigma^2 + lambda^2) <= 1 / (2 lambda)`` (eq. 18, equality at
``sigma = lambda``) and the components are orthogonal, the step's length is at most
``|e| / (2 lambda) = s``, whatever the conditioning; the damping shrinks with the error,
so the step tends to the Gauss-Newton step as the goals are approached. Every step is
also cut back to a largest change of ``s`` in any variable (it only acts for a fixed
``lambda``, ``"pinv"``, or a step that the limits bend).

**A step limit that widens.** With a fixed ``lambda`` or ``"pinv"``, ``s`` is
``step_limit`` (default :data:`DEFAULT_STEP_LIMIT`). With eq. 18's damping ``s`` is the
run's trust radius, at most ``step_limit`` (default :data:`WIDEST_STEP_LIMIT`): it starts
at :data:`FIRST_SHARE` of it and doubles (:data:`WIDENING`) after every full step whose
decrease of ``G`` is at least :data:`WIDEN_AT` of the decrease the linear model
``|e|^2 - |e - J dz|^2`` predicted. The first step that had to be halved, or that gained
less than :data:`NARROW_AT` of the prediction, ends the widening: the run goes on at the
first radius. Far from the goals a fixed radius of 0.5 (the rule before the widening)
takes many short steps the linearisation would have allowed at once; near a singular pose
(an unreachable target stretching the chain straight) the model fails, the widening ends
and the run approaches the singular pose as the fixed radius did, after a step or two
across it (bench/DLS.md: 2.2 elbow sign changes per run against 0.3; a radius that
widens again after falling back, 9.8; one that starts at 1.0, 38). On the batch bench's
1,000 full-pose targets (``python -m bench.batch``) it cut the iterations a problem costs
from 21.6 to 13.3 (KUKA iiwa 7) and from 165 to 106 (xArm 6, restarts included), at the
same 100 % solved; bench/DLS.md has the single-run figures (mean iterations on 7-DOF full
poses 10.6 against 17.7).

**Rigidity** needs no code here: the problem's variables are ``y = q / (1 -
rigidity)`` (:mod:`solver.assembly.problem`), so a joint's Jacobian column is already
multiplied by ``1 - rigidity``. The least-norm step of eq. 16 minimises
``sum (dq_i / (1 - rigidity_i))^2`` among the steps that do as well, so a more rigid
joint moves less (column weights in Maciejewski's sense).

**Limits: an active-set variant.** The rows of ``problem.system`` on their bound at
``z`` (joint limits, linear constraints, equalities) constrain the step:
``dz`` minimises ``|J dz - e|^2 + lambda^2 |dz|^2`` subject to ``A_i dz <= 0`` for those
inequalities and ``A_i dz == 0`` for the equalities. A joint at a limit that the
step pushes outwards keeps its value (its column is in effect removed and the
step recomputed); one pulled inwards is free. This small quadratic programme is
solved exactly: with ``w = S V^T dz`` (``S = diag(sqrt(sigma_i^2 + lambda^2))``) its
objective is ``|w - w0|^2`` plus a constant, so ``w`` is the least-distance
projection (:mod:`solver.assembly.projection`) of the unconstrained ``w0`` onto the rows
``A V S^-1 w <= 0``. A step that crosses a row not on its bound is brought back by
the exact projection of the trial point onto every row
(:func:`~.jacobian_step.feasible_point`), so every iterate satisfies every row.

**Acceptance and stopping.** A trial point is accepted only if ``G`` decreases;
otherwise the step is halved (at most :data:`MAX_HALVINGS` times), so ``G`` never
rises. A run stops with ``GOAL_REACHED`` when every goal is within tolerance;
``KUHN_TUCKER`` when the projection of ``-g`` onto the cone of feasible directions
at ``z`` (the same least-distance projection) has a squared length at most
:data:`KT_TOLERANCE` ``(1 + G / L^2)``: ``-g`` is then, within the tolerance, a
non-negative combination of the bound rows' normals, which is the Kuhn-Tucker
condition (for ``lambda > 0`` it is also where the constrained step vanishes);
``NO_PROGRESS`` when no halving of the step lowers ``G`` and that test fails (e.g.
``"pinv"`` whose gradient lies along singular directions it cuts off);
``MAX_ITERATIONS``; ``TIME_LIMIT``, the deadline being checked before every
evaluation; ``STALLED`` (below).

**Stalled runs.** Where every goal might be met (no goal is out of reach whatever the pose,
:func:`~solver.search.reach_bound.out_of_reach`), a run that misses them and whose ``G``
fell by less than :data:`STALL` of itself over the last :data:`STALL_WINDOW` iterations
(checked every :data:`STALL_WINDOW` iterations) stops with ``STALLED``: it is creeping
towards a point that misses a goal (a local minimum, or a near miss it approaches at a
linear rate), and a restart is the likelier way to the goals. Such runs used to go on to
the iteration limit: on the batch bench's 1,000 xArm 6 targets (every start the mid-range
pose, restarts as a single solve's) the iterations a problem costs fell from 106 to 59 and
the passes over the batch from 789 to 354, 100 % solved either way; the price is the few
runs that creep for tens of iterations and then meet the goals (7 of the 758 first runs
that met them, 0.9 %), which meet them from a restart instead. Where a goal is out of
reach every run goes on to its Kuhn-Tucker point, which the restarts' agreement needs
(:class:`~solver.search.restarts.Agreement`). A stalled run that is still the best answer
when the search ends (every restart missed, or ``restarts=0``) is taken on from where it
stalled by a run that never stalls (:func:`polish`), so the answer is the Kuhn-Tucker point
it was creeping to, as a run ended before the rule, never the point where it gave up.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from ..assembly.projection import least_distance
from ..assembly.scale import ScaledEvaluation, ScaledProblem
from ..model.linear import LinearSystem
from ..optimizer import Outcome, Status
from ..search.reach_bound import out_of_reach
from .jacobian_step import feasible_point, on_bound, task
from .options import MethodOptions

#: Largest change of any scaled variable in one iteration when ``step_limit`` is None, for
#: a fixed ``lambda`` and ``"pinv"`` (radians; multiples of ``L`` for prismatic variables).
DEFAULT_STEP_LIMIT = 0.5
#: The same for eq. 18's damping, whose step limit widens up to it (see the module docstring).
WIDEST_STEP_LIMIT = 2.0
#: Share of ``step_limit`` at which eq. 18's step limit starts (0.5 by default).
FIRST_SHARE = 0.25
#: Factor by which eq. 18's step limit widens after a step the linear model predicted well.
WIDENING = 2.0
#: A full step widens the step limit when it lowered ``G`` by at least this share of the
#: decrease the linear model predicted.
WIDEN_AT = 0.75
#: A step that lowered ``G`` by less than this share of the linear model's prediction, or
#: that had to be halved, ends the widening.
NARROW_AT = 0.25
#: Iterations between two checks of a run's progress (see the module docstring).
STALL_WINDOW = 10
#: A run whose ``G`` fell by less than this share of itself since the last check stalls.
STALL = 0.01
#: ``"pinv"`` takes singular values at or below ``RCOND * sigma_max`` as zero (the rank
#: cut-off of eq. 11; KDL's pseudoinverse solver cuts at 1e-5 too, absolute, in metres).
RCOND = 1e-5
#: Halvings of a step that does not lower ``G`` before the run stops with ``NO_PROGRESS``.
MAX_HALVINGS = 30
#: Kuhn-Tucker test: squared length of the projected ``-g`` at most this times ``1 + G / L^2``.
KT_TOLERANCE = 1e-14


def damped_step(
    jacobian: np.ndarray, error: np.ndarray, damping: float, rcond: float = RCOND
) -> np.ndarray:
    """The damped least-squares step (n,) of eq. 16: ``sum sigma/(sigma^2+lambda^2) v u^T e``.

    Args:
        jacobian: (m, n) task Jacobian ``J``.
        error: (m,) task error ``e``.
        damping: ``lambda`` >= 0; 0 gives the pseudoinverse step ``J^+ e`` (eq. 11).
        rcond: with ``damping == 0``, singular values at or below ``rcond * sigma_max``
            count as zero (a damped step needs no cut-off: its gain vanishes with sigma).
    """
    m, n = jacobian.shape
    if m == 0 or n == 0:
        return np.zeros(n)
    u, sigma, vt = np.linalg.svd(jacobian, full_matrices=False)
    kept = sigma > (rcond * sigma[0] if damping == 0.0 else 0.0)
    gain = np.zeros_like(sigma)
    gain[kept] = sigma[kept] / (sigma[kept] ** 2 + damping**2)
    return vt.T @ (gain * (u.T @ error))


def null_basis(rows: np.ndarray, n: int) -> np.ndarray:
    """Orthonormal basis (n, n - rank) of the directions that ``rows`` (k, n) leave free."""
    if not len(rows):
        return np.eye(n)
    _, sigma, vt = np.linalg.svd(rows, full_matrices=True)
    rank = int(np.count_nonzero(sigma > 1e-10 * sigma[0]))
    return vt[rank:].T


def bounded_step(
    jacobian: np.ndarray,
    error: np.ndarray,
    damping: float,
    rows: np.ndarray,
    equality: np.ndarray,
    rcond: float = RCOND,
) -> np.ndarray:
    """The damped least-squares step (n,) under rows through the point: ``A dz <= 0``.

    A primal active-set method (Nocedal and Wright, Algorithm 16.3) on the step's
    quadratic programme ``min |J dz - e|^2 + lambda^2 |dz|^2``, ``A_i dz <= 0`` (``== 0``
    for equalities), from ``dz = 0``: on the held rows' null space ``N`` the best step
    is ``N`` times eq. 16's step for ``J N`` (for a held joint limit: the joint's column
    removed); a row the move towards it crosses is held, a held row whose multiplier
    says the step is pulled off it is released. The objective never rises from
    ``dz = 0``, so the result is never an ascent direction for ``|e|^2``.

    Args:
        jacobian: (m, n) task Jacobian ``J``.
        error: (m,) task error ``e``.
        damping: ``lambda`` >= 0.
        rows: (k, n) rows ``A`` of the limits on their bound at the point.
        equality: (k,) True for equality rows.
        rcond: rank cut-off of eq. 16 (see :func:`damped_step`).
    """
    if not len(rows):
        return damped_step(jacobian, error, damping, rcond)
    n = jacobian.shape[1]
    held = [int(i) for i in np.flatnonzero(equality)]
    step = np.zeros(n)
    gradient = jacobian.T @ error  # c: the model is |e|^2 - 2 c.dz + dz.H dz
    # Each pass holds or releases one row; the cap only guards against cycling on
    # degenerate rows (the step reached so far is feasible and lowers the model).
    for _ in range(4 * len(rows) + 4):
        basis = null_basis(rows[held], n)
        move = basis @ damped_step(jacobian @ basis, error, damping, rcond) - step
        rate = rows @ move
        free = np.ones(len(rows), dtype=bool)
        free[held] = False
        blocking = np.flatnonzero(free & (rate > 1e-12 * np.linalg.norm(move)))
        ratios = np.maximum(-(rows[blocking] @ step), 0.0) / rate[blocking]
        if len(blocking) and ratios.min() < 1.0:
            k = int(np.argmin(ratios))
            step = step + ratios[k] * move
            held.append(int(blocking[k]))
            continue
        step = step + move
        if not held:
            break
        curvature = jacobian.T @ (jacobian @ step) + damping**2 * step
        nu, *_ = np.linalg.lstsq(rows[held].T, gradient - curvature, rcond=None)
        nu[equality[held]] = 0.0
        worst = int(np.argmin(nu))
        if nu[worst] >= -1e-12 * (1.0 + float(np.abs(gradient).max())):
            break
        held.pop(worst)
    return step


def _cone_projection(system: LinearSystem, rows: np.ndarray, direction: np.ndarray) -> np.ndarray:
    """``direction`` (n,) projected onto the feasible directions where ``rows`` are on bound."""
    if not len(rows):
        return direction
    result = least_distance(system.A[rows], np.zeros(len(rows)), system.equality[rows], direction)
    return result.x


def _holding(system: LinearSystem, rows: np.ndarray, g: np.ndarray) -> tuple[list[int], np.ndarray]:
    """The bound rows that ``g`` (n,) pushes against and their multipliers ``alpha`` (< 0).

    ``g + d`` (``d`` the feasible part of ``-g``) is written as ``A^T alpha`` over the rows
    on bound; the inequality rows with ``alpha < 0`` and every equality are kept, in the
    sign convention of the Appendix's Step 2.
    """
    if not len(rows):
        return [], np.zeros(0)
    normal = g + _cone_projection(system, rows, -g)
    alpha, *_ = np.linalg.lstsq(system.A[rows].T, normal, rcond=None)
    size = 1e-12 * (1.0 + float(np.linalg.norm(g)))
    keep = system.equality[rows] | (alpha < -size)
    return [int(i) for i in rows[keep]], alpha[keep]


def _capped(step: np.ndarray, limit: float) -> np.ndarray:
    """``step`` (n,) scaled down (in place) so that no variable changes by more than ``limit``."""
    largest = float(np.abs(step).max(initial=0.0))
    if largest > limit:
        step *= limit / largest
    return step


def _out_of_reach(problem: ScaledProblem) -> bool:
    """Whether some goal of ``problem`` is out of reach whatever the pose."""
    p = problem.problem
    return out_of_reach(p.figure, p.constraints, p.tolerance)


def _decrease(
    problem: ScaledProblem,
    z: np.ndarray,
    at: ScaledEvaluation,
    step: np.ndarray,
    out_of_time: Callable[[], bool],
) -> tuple[Status | None, np.ndarray, ScaledEvaluation | None, int]:
    """Halve ``step`` until the feasible trial point lowers ``G``.

    Returns:
        (None, trial, its evaluation, evaluations made) on success; otherwise
        (``NO_PROGRESS`` or ``TIME_LIMIT``, ``z``, None, evaluations made).
    """
    used = 0
    for _ in range(MAX_HALVINGS + 1):
        if out_of_time():
            return Status.TIME_LIMIT, z, None, used
        trial = feasible_point(problem, z, step)
        if not np.any(trial != z):
            break
        evaluation = problem.evaluate(trial)
        used += 1
        if evaluation.f < at.f:
            return None, trial, evaluation, used
        step = 0.5 * step
    return Status.NO_PROGRESS, z, None, used


class DampedLeastSquares:
    """Damped least squares (eqs. 15-18) or, with ``pseudoinverse``, eq. 11's ``J^+``.

    Args:
        options: ``max_iterations``, ``dls_damping`` (``lambda``, or None for eq. 18
            from the widening step limit) and ``step_limit`` (None:
            :data:`WIDEST_STEP_LIMIT` for eq. 18, else :data:`DEFAULT_STEP_LIMIT`).
        pseudoinverse: ``lambda = 0`` whatever ``dls_damping`` says (``"pinv"``).
    """

    def __init__(self, options: MethodOptions, pseudoinverse: bool = False) -> None:
        self.max_iterations = options.max_iterations
        self.damping = 0.0 if pseudoinverse else options.dls_damping
        widens = self.damping is None
        limit = options.step_limit
        if limit is None:
            limit = WIDEST_STEP_LIMIT if widens else DEFAULT_STEP_LIMIT
        self.step_limit = limit
        #: The step limit a run starts at (and goes on at once it stopped widening).
        self.first_limit = FIRST_SHARE * limit if widens else limit

    def damping_at(self, error: np.ndarray, limit: float) -> float:
        """``lambda`` for task error ``error`` (m,) and step limit ``limit``: the fixed one,
        or eq. 18's."""
        if self.damping is not None:
            return self.damping
        return float(np.linalg.norm(error)) / (2.0 * limit)

    def widened(
        self, limit: float, decrease: float, predicted: float, full: bool
    ) -> tuple[float, bool]:
        """(the step limit, still widening) after an iteration of a widening run at
        ``limit`` that lowered ``G`` by ``decrease`` where the linear model predicted
        ``predicted``, with its ``full`` step or a halved one (see the module docstring)."""
        if not full or decrease < NARROW_AT * predicted:
            return self.first_limit, False
        if decrease >= WIDEN_AT * predicted:
            return min(WIDENING * limit, self.step_limit), True
        return limit, True

    def step(
        self,
        problem: ScaledProblem,
        task_at: tuple[np.ndarray, np.ndarray],
        rows: np.ndarray,
        damping: float,
    ) -> np.ndarray:
        """The step (n,) for the task Jacobian and error ``task_at`` (m, n), (m,) at a point
        where ``rows`` of ``problem.system`` are on their bound
        (:func:`~.jacobian_step.on_bound`), damped by ``damping`` (``lambda``); :meth:`run`
        cuts it to the step limit."""
        jacobian, error = task_at
        system = problem.system
        return bounded_step(jacobian, error, damping, system.A[rows], system.equality[rows])

    def run(
        self,
        problem: ScaledProblem,
        z0: np.ndarray,
        callback: Callable[[np.ndarray, float], None] | None,
        deadline: float | None,
        stalls: bool | None = None,
    ) -> Outcome[ScaledEvaluation]:
        """Iterate from the feasible ``z0`` (n,); see the module docstring for the rules.
        ``stalls``: whether the run may stop ``STALLED`` (None: where no goal is out of
        reach; False: a stalled answer's polish, :func:`polish`)."""
        system = problem.system
        z = np.array(z0, dtype=float)
        at = problem.evaluate(z)
        nfev, nit = 1, 0
        limit, widening = self.first_limit, self.damping is None
        if stalls is None:
            stalls = not _out_of_reach(problem)
        mark = np.inf  # G at the last progress check
        if callback is not None:
            callback(z.copy(), at.f)

        def out_of_time() -> bool:
            return deadline is not None and time.perf_counter() >= deadline

        while True:
            if at.reached:
                status = Status.GOAL_REACHED
                break
            if out_of_time():
                status = Status.TIME_LIMIT
                break
            rows = on_bound(system, z)
            feasible = _cone_projection(system, rows, -at.g)
            if float(feasible @ feasible) <= KT_TOLERANCE * (1.0 + at.f):
                status = Status.KUHN_TUCKER
                break
            if nit >= self.max_iterations:
                status = Status.MAX_ITERATIONS
                break
            if stalls and nit and nit % STALL_WINDOW == 0:
                if at.f > (1.0 - STALL) * mark:
                    status = Status.STALLED
                    break
                mark = at.f
            jacobian, error = task(problem, at)
            step = self.step(problem, (jacobian, error), rows, self.damping_at(error, limit))
            stop, trial, evaluation, used = _decrease(
                problem, z, at, _capped(step, limit), out_of_time
            )
            nfev += used
            if stop is not None:
                status = stop
                break
            assert evaluation is not None
            if widening:
                left = error - np.einsum("mn,n->m", jacobian, trial - z)
                decrease, predicted = at.f - evaluation.f, at.f - float(left @ left)
                limit, widening = self.widened(limit, decrease, predicted, used == 1)
            z, at = trial, evaluation
            nit += 1
            if callback is not None:
                callback(z.copy(), at.f)
        active, multipliers = _holding(system, on_bound(system, z), at.g)
        return Outcome(z, at, status, nit, nfev, active, multipliers)


def polish(
    method: object,
    problem: ScaledProblem,
    outcome: Outcome[ScaledEvaluation],
    callback: Callable[[np.ndarray, float], None] | None,
    deadline: float | None,
) -> Outcome[ScaledEvaluation]:
    """A search's answer, taken on to where its run would have stopped had it not stalled.

    A run stops ``STALLED`` to leave the goals to a restart; when the search's best answer is
    such a run (every restart missed, or there were none), the answer is the run's
    Kuhn-Tucker point, not the point it stalled at: one more run of ``method`` from it that
    never stalls (its ``nit`` and ``nfev`` to be added to the search's). Any other answer is
    returned as it is.
    """
    if outcome.status != Status.STALLED or not isinstance(method, DampedLeastSquares):
        return outcome
    return method.run(problem, outcome.y, callback, deadline, stalls=False)


def damped_least_squares(options: MethodOptions) -> DampedLeastSquares:
    """The ``"dls"`` method."""
    return DampedLeastSquares(options)


def pseudoinverse(options: MethodOptions) -> DampedLeastSquares:
    """The ``"pinv"`` method."""
    return DampedLeastSquares(options, pseudoinverse=True)


__all__ = [
    "DEFAULT_STEP_LIMIT",
    "FIRST_SHARE",
    "KT_TOLERANCE",
    "MAX_HALVINGS",
    "NARROW_AT",
    "RCOND",
    "STALL",
    "STALL_WINDOW",
    "WIDENING",
    "WIDEN_AT",
    "WIDEST_STEP_LIMIT",
    "DampedLeastSquares",
    "damped_least_squares",
    "damped_step",
    "polish",
    "pseudoinverse",
]
