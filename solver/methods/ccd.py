"""``"ccd"``: cyclic coordinate descent, distal to proximal (seed 004), within the limits.

One iteration is one sweep over the problem's variables, ordered by the depth in
the segment tree of the joints they move (:func:`sweep_order`: the deepest first,
then towards the root; the later joint of a segment first, since it acts inside the
earlier ones). Each variable in turn is set to the minimiser of ``G`` along it,
the others held, within the interval that the rows of ``problem.system`` (joint
limits, linear constraints; an equality row through it fixes it) leave it
(:func:`interval`) and within ``step_limit`` of its current value (scaled units:
radians, or units of the characteristic length; default
:data:`~solver.methods.transpose.DEFAULT_STEP_LIMIT`, 0.5):

- a variable that turns one revolute joint: ``G`` along it is a trigonometric
  polynomial of degree 2 in the angle for every goal whose residual is linear in the
  effector's world point and axes (position, orientation, position & orientation,
  line and plane with world-fixed targets): each effector point or axis moves on
  a circle, ``a + b cos x + c sin x``. It is *fitted*, not solved in closed form:
  ``G`` and its slope at the current angle and ``G`` at three more angles give the
  five coefficients exactly (:func:`fit_trigonometric`), and the fit is minimised
  exactly over the interval (the roots of its derivative, a quartic in
  ``exp(i x)``; :func:`trigonometric_minimiser`). The fitted minimiser is
  accepted if ``G`` really decreases there; with other goals (aim, half-space,
  disjunctions, carried targets) the fit is approximate and, when its minimiser
  does not lower ``G``, the Newton step below is tried instead;
- a variable that slides one prismatic joint: ``G`` is quadratic in the
  displacement for linear residuals, with curvature the Gauss-Newton diagonal, so
  the 1-D Newton step ``-g_k / H_kk`` clipped to the interval is its exact minimiser;
- every other variable (a joint-group parameter driving several joints, e.g. a
  spine): a safeguarded 1-D Newton step ``-g_k / H_kk`` (Gauss-Newton curvature),
  clipped to the interval, halved until ``G`` decreases (at most
  :data:`NEWTON_HALVINGS` times, then the variable is left as it is).

Every change is accepted only if ``G`` decreases, so ``G`` never rises, and stays in
the variable's feasible interval, so every iterate satisfies every row.

The step bound is a trust region: unbounded, the first sweep can swing the distal
joints onto their limits and fold the chain into a local minimum (a 3-link chain with
limits of 2.6 rad, aiming at an unreachable target, ended folded against two limits
2.36 units from it instead of 0.80); bounded, it straightens towards the target. It
costs sweeps on large motions.

Rigidity: a 1-D minimiser does not depend on the unit of its variable, so the
problem's rescaling by ``1 - rigidity`` (:mod:`solver.assembly.problem`) changes only the
bound on a move (a joint of rigidity ``r`` turns at most ``(1 - r) step_limit`` in a
sweep). On top of it a variable of rigidity ``r`` moves ``1 - r`` of the way to its
minimiser (under-relaxation; a free joint goes all the way, classic CCD), so a rigid
joint leaves more of the motion to the freer ones swept after it. When that shorter
move does not lower ``G`` (the fit of an approximate goal), the Newton step,
shortened the same way, is tried.

Convergence is linear and slow where the Jacobian is badly conditioned (a target
near the edge of the workspace, full-pose goals): within the default 200 sweeps CCD
often stops at ``MAX_ITERATIONS`` short of the default tolerance where the projected
methods reach it (measured in the shared method tests, ``tests/test_methods.py``: one
run meets 5 of 8 planar-chain targets, 4 of 8 two-hand tree targets and none of 8
full-pose 7-DOF arm targets at 1e-6 / 0.01 degrees). Stops and statuses:
:mod:`solver.methods.descent`.
"""

from __future__ import annotations

import math
import time

import numpy as np

from ..assembly.scale import ScaledEvaluation, ScaledProblem
from ..model.linear import LinearSystem
from ..model.structure import REVOLUTE
from .descent import Descent, Evaluate, Step
from .options import MethodOptions
from .transpose import DEFAULT_STEP_LIMIT

#: Angles (radians of the joint, from the current one) where ``G`` is sampled for the fit.
SAMPLE_ANGLES = (2.0 * math.pi / 3.0, -2.0 * math.pi / 3.0, math.pi)

#: Row coefficients of the fit: ``G(0)``, ``G'(0)``, then ``G`` at :data:`SAMPLE_ANGLES`, over
#: the basis ``1, cos x, sin x, cos 2x, sin 2x``.
_FIT_MATRIX = np.array(
    [[1.0, 1.0, 0.0, 1.0, 0.0], [0.0, 0.0, 1.0, 0.0, 2.0]]
    + [[1.0, math.cos(x), math.sin(x), math.cos(2 * x), math.sin(2 * x)] for x in SAMPLE_ANGLES]
)

#: Halvings of a Newton step that does not lower ``G`` before the variable is left as it is.
NEWTON_HALVINGS = 10

#: How a variable is minimised along.
TURNS, SLIDES, OTHER = "turns", "slides", "other"


def fit_trigonometric(value: float, slope: float, samples: np.ndarray) -> np.ndarray:
    """Coefficients ``(a0, a1, b1, a2, b2)`` of the trigonometric polynomial through the data.

    The polynomial is ``a0 + a1 cos x + b1 sin x + a2 cos 2x + b2 sin 2x``.

    Args:
        value: the function at ``x = 0``.
        slope: its derivative at ``x = 0``.
        samples: (3,) its values at :data:`SAMPLE_ANGLES`.
    """
    rhs = np.concatenate(([value, slope], samples))
    return np.linalg.solve(_FIT_MATRIX, rhs)


def trigonometric_value(c: np.ndarray, x: np.ndarray | float) -> np.ndarray:
    """The fitted polynomial with coefficients ``c`` (5,) at ``x`` (radians)."""
    x = np.asarray(x, dtype=float)
    return c[0] + c[1] * np.cos(x) + c[2] * np.sin(x) + c[3] * np.cos(2 * x) + c[4] * np.sin(2 * x)


def _stationary_angles(c: np.ndarray) -> list[float]:
    """Angles (radians, about (-pi, pi]) where the derivative of the polynomial ``c`` vanishes.

    ``-a1 sin x + b1 cos x - 2 a2 sin 2x + 2 b2 cos 2x``, times ``2 w^2`` with
    ``w = exp(i x)``, is the quartic below; its roots on the unit circle are the
    stationary angles (every root's angle is returned, then polished by Newton).
    """
    _, a1, b1, a2, b2 = (float(v) for v in c)
    quartic = [2 * (b2 + 1j * a2), b1 + 1j * a1, 0.0, b1 - 1j * a1, 2 * (b2 - 1j * a2)]
    if not any(quartic):
        return []
    angles = []
    for root in np.roots(quartic):
        x = math.atan2(root.imag, root.real)
        for _ in range(3):
            s1, c1, s2, c2 = math.sin(x), math.cos(x), math.sin(2 * x), math.cos(2 * x)
            d2 = -a1 * c1 - b1 * s1 - 4 * a2 * c2 - 4 * b2 * s2
            if d2 == 0.0:
                break
            x -= (-a1 * s1 + b1 * c1 - 2 * a2 * s2 + 2 * b2 * c2) / d2
        angles.append(x)
    return angles


def trigonometric_minimiser(c: np.ndarray, lower: float, upper: float) -> float:
    """Angle in ``[lower, upper]`` (radians, ``lower <= 0 <= upper``) minimising ``c``'s polynomial.

    0 (no move) unless some angle is lower by more than round-off. An interval longer
    than a period is searched over one period containing 0 (the values repeat).
    """
    period = 2.0 * math.pi
    if upper - lower > period:
        lower = min(max(-math.pi, lower), upper - period)
        upper = lower + period
    candidates = [0.0]
    candidates += [v for v in (lower, upper) if math.isfinite(v)]
    for x0 in _stationary_angles(c):
        first = math.ceil((lower - x0) / period)
        last = math.floor((upper - x0) / period)
        candidates += [x0 + m * period for m in range(first, last + 1)]
    xs = np.clip(np.array(candidates), lower, upper)
    values = trigonometric_value(c, xs)
    best = int(np.argmin(values))
    if values[best] >= values[0] - 1e-15 * (1.0 + abs(float(values[0]))):
        return 0.0
    return float(xs[best])


def interval(system: LinearSystem, z: np.ndarray, k: int) -> tuple[float, float]:
    """Moves ``(lower, upper)`` of variable ``k`` from ``z`` (n,) that keep every row of ``system``.

    ``lower <= 0 <= upper``; ``(0, 0)`` when an equality row involves the variable.
    """
    a = system.A[:, k]
    moving = np.abs(a) > 1e-14
    equality = np.asarray(system.equality, dtype=bool)
    if np.any(moving & equality):
        return 0.0, 0.0
    slack = np.maximum(system.b - system.A @ z, 0.0)
    up = moving & (a > 0.0)
    down = moving & (a < 0.0)
    upper = float(np.min(slack[up] / a[up])) if np.any(up) else math.inf
    lower = float(np.max(slack[down] / a[down])) if np.any(down) else -math.inf
    return lower, upper


def sweep_order(problem: ScaledProblem) -> list[int]:
    """The variables (indices into ``z``), distal first: deepest joint moved, later joint first."""
    figure = problem.problem.figure
    depth: list[int] = []
    for segment in figure.segments:  # topological order
        depth.append(0 if segment.parent < 0 else depth[segment.parent] + 1)
    joints = figure.joints
    coupling = problem.problem.coupling  # (n_joints, n)

    def key(k: int) -> tuple[int, int]:
        moved = np.flatnonzero(coupling[:, k])
        return max((depth[joints[j].segment], int(j)) for j in moved)

    return sorted(range(problem.problem.n), key=key, reverse=True)


def variable_kinds(problem: ScaledProblem) -> list[tuple[str, float]]:
    """Per variable: :data:`TURNS` with ``dx/dz`` (radians of its one revolute joint per
    unit of ``z``), :data:`SLIDES` (one prismatic joint) or :data:`OTHER`, with 0."""
    coupling = problem.problem.coupling
    joints = problem.problem.figure.joints
    kinds: list[tuple[str, float]] = []
    for k in range(problem.problem.n):
        moved = np.flatnonzero(coupling[:, k])
        if len(moved) == 1 and joints[moved[0]].kind == REVOLUTE:
            kinds.append((TURNS, float(coupling[moved[0], k] * problem.unit[k])))
        elif len(moved) == 1:
            kinds.append((SLIDES, 0.0))
        else:
            kinds.append((OTHER, 0.0))
    return kinds


class CyclicCoordinateDescent(Descent):
    """The ``"ccd"`` method (see the module docstring)."""

    def __init__(self, options: MethodOptions) -> None:
        self.max_iterations = options.max_iterations
        self.step_limit = DEFAULT_STEP_LIMIT if options.step_limit is None else options.step_limit

    def iteration(self, problem: ScaledProblem, deadline: float | None) -> Step:
        """One :class:`Sweep` of ``problem``."""
        return Sweep(problem, self.step_limit, deadline)


class Sweep:
    """One CCD iteration on ``problem``: every variable once, distal first.

    A sweep ends early, with the variables it has minimised along, when the deadline
    passes (a sweep of a long chain costs four evaluations of ``G`` per variable).

    Args:
        problem: the scaled problem.
        step_limit: largest move of a variable in one sweep (scaled units).
        deadline: absolute ``time.perf_counter()`` value, or None.
    """

    def __init__(self, problem: ScaledProblem, step_limit: float, deadline: float | None) -> None:
        self.problem = problem
        self.step_limit = step_limit
        self.deadline = deadline
        self.order = sweep_order(problem)
        self.kinds = variable_kinds(problem)
        self.fractions = problem.problem.scale  # (n,) 1 - rigidity: the share of a move taken

    def __call__(
        self, evaluate: Evaluate, z: np.ndarray, e: ScaledEvaluation
    ) -> tuple[np.ndarray, ScaledEvaluation] | None:
        """The point after one sweep from ``z`` (n,) and its evaluation; None if none moved."""
        moved = False
        for k in self.order:
            if self.deadline is not None and time.perf_counter() >= self.deadline:
                break
            lower, upper = interval(self.problem.system, z, k)
            lower, upper = max(lower, -self.step_limit), min(upper, self.step_limit)
            if upper - lower <= 0.0:
                continue
            kind, rate = self.kinds[k]
            result = self.turn(evaluate, z, e, k, rate, (lower, upper)) if kind == TURNS else True
            if result is True:
                result = self.newton(evaluate, z, e, k, (lower, upper))
            if isinstance(result, tuple):
                z, e = result
                moved = True
        return (z, e) if moved else None

    def _moved(
        self, evaluate: Evaluate, z: np.ndarray, k: int, t: float
    ) -> tuple[np.ndarray, ScaledEvaluation]:
        trial = z.copy()
        trial[k] += t
        return trial, evaluate(trial)

    def turn(
        self,
        evaluate: Evaluate,
        z: np.ndarray,
        e: ScaledEvaluation,
        k: int,
        rate: float,
        bounds: tuple[float, float],
    ) -> tuple[np.ndarray, ScaledEvaluation] | bool:
        """Variable ``k`` of ``z`` moved towards the fitted minimiser along its revolute joint.

        ``rate`` is the joint's radians per unit of ``z[k]``; ``bounds`` the feasible
        moves. Returns the new point and its evaluation; False when the fit's minimiser
        is the current point (its slope there is the true one, so ``G`` is stationary
        along ``k`` or pushes against a bound); True when the move does not lower ``G``
        (an approximate fit: the caller tries a Newton step).
        """
        samples = np.array([self._moved(evaluate, z, k, x / rate)[1].f for x in SAMPLE_ANGLES])
        c = fit_trigonometric(e.f, float(e.g[k]) / rate, samples)
        lower, upper = sorted((bounds[0] * rate, bounds[1] * rate))
        x = trigonometric_minimiser(c, lower, upper)
        if x == 0.0:
            return False
        t = self.fractions[k] * min(max(x / rate, bounds[0]), bounds[1])
        trial, candidate = self._moved(evaluate, z, k, t)
        return (trial, candidate) if candidate.f < e.f else True

    def newton(
        self,
        evaluate: Evaluate,
        z: np.ndarray,
        e: ScaledEvaluation,
        k: int,
        bounds: tuple[float, float],
    ) -> tuple[np.ndarray, ScaledEvaluation] | None:
        """Variable ``k`` of ``z`` moved by a clipped, halved 1-D Gauss-Newton step.

        A step with zero curvature goes to the end of ``bounds`` (the feasible moves,
        within the step bound).
        """
        slope = float(e.g[k])
        if slope == 0.0:
            return None
        column = e.gauss_newton_factor()[:, k]
        curvature = float(column @ column)
        t = -slope / curvature if curvature > 0.0 else -math.copysign(math.inf, slope)
        t = self.fractions[k] * min(max(t, bounds[0]), bounds[1])
        if not math.isfinite(t):
            return None  # no curvature and no bound: no step length to take
        for _ in range(NEWTON_HALVINGS + 1):
            if t == 0.0:
                return None
            trial, candidate = self._moved(evaluate, z, k, t)
            if candidate.f < e.f:
                return trial, candidate
            t *= 0.5
        return None
