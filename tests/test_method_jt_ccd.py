"""The Jacobian transpose (``"jt"``) and cyclic coordinate descent (``"ccd"``) methods.

Closed-form and finite-difference checks of their pieces (the stacked task, the
transpose step, the fitted one-variable minimiser), then whole solves: limits on
every iterate, a branching tree, a prismatic joint, the time limit, rigidity and
honest statuses.
"""

import itertools
import math

import numpy as np
import pytest

from solver import (
    Constraint,
    EndEffector,
    Figure,
    OrientationGoal,
    PlaneGoal,
    PositionGoal,
    Solver,
    Status,
    solve,
)
from solver.assembly.scale import ScaledProblem
from solver.methods import MethodOptions, ccd
from solver.methods.ccd import (
    CyclicCoordinateDescent,
    Sweep,
    fit_trigonometric,
    interval,
    sweep_order,
    trigonometric_minimiser,
    trigonometric_value,
    variable_kinds,
)
from solver.methods.descent import kuhn_tucker
from solver.methods.jacobian_step import task
from solver.methods.transpose import DEFAULT_STEP_LIMIT, transpose_step
from tests.solver_checks import central_difference, max_violation, spatial_arm

METHODS = ("jt", "ccd")


def scaled(fig: Figure, constraints: list[Constraint], coords: np.ndarray) -> ScaledProblem:
    """The scaled problem the methods see, non-variables held at ``coords``."""
    solver = Solver(fig, constraints, max_iterations=0, restarts=0)
    solver.solve(initial=coords)
    return ScaledProblem(solver.problem, solver.length)


def arm_constraints() -> list[Constraint]:
    """A point goal on the hand and an orientation goal on the forearm (several rows)."""
    return [
        Constraint(EndEffector("hand", (0.3, 0.0, 0.0)), PositionGoal((0.4, 1.2, 0.5)), weight=2.0),
        Constraint(
            EndEffector("lower", x=(1, 0, 0), y=(0, 1, 0)),
            OrientationGoal(x=(0, 1, 0), y=(-1, 0, 0)),
            weight=0.5,
        ),
    ]


def chain(n: int, limit: float = 2.5, length: float = 1.0) -> Figure:
    """``n`` revolutes alternating about z and y, links of ``length / n``; tip segment ``tip``."""
    fig = Figure()
    parent = None
    for i in range(n):
        offset = (0.0, 0.0, 0.0) if i == 0 else (length / n, 0.0, 0.0)
        fig.add_segment(f"s{i}", parent=parent, translation=offset)
        fig.add_revolute(f"s{i}", "z" if i % 2 == 0 else "y", -limit, limit, name=f"j{i}")
        parent = f"s{i}"
    fig.add_segment("tip", parent=parent, translation=(length / n, 0.0, 0.0))
    return fig


def tree() -> Figure:
    """A trunk (ball joint) branching into two 2-link arms ``left``/``right`` (planar hinges)."""
    fig = Figure()
    fig.add_segment("trunk")
    fig.add_ball("trunk", -2.0, 2.0)
    for side, y in (("left", 0.3), ("right", -0.3)):
        fig.add_segment(f"{side}0", parent="trunk", translation=(0.5, y, 0.0))
        fig.add_revolute(f"{side}0", "z", -2.5, 2.5, name=f"{side}.a")
        fig.add_revolute(f"{side}0", "y", -2.5, 2.5, name=f"{side}.b")
        fig.add_segment(f"{side}1", parent=f"{side}0", translation=(0.5, 0.0, 0.0))
        fig.add_revolute(f"{side}1", "z", -2.5, 2.5, name=f"{side}.c")
        fig.add_segment(f"{side}.hand", parent=f"{side}1", translation=(0.5, 0.0, 0.0))
    return fig


# ------------------------------------------------------------- the stacked task
def test_transpose_direction_is_half_the_negative_gradient_of_g() -> None:
    fig = spatial_arm(limit=3.0)
    cons = arm_constraints()
    rng = np.random.default_rng(3)
    coords = rng.uniform(-1.0, 1.0, len(fig.coordinate_names))
    problem = scaled(fig, cons, coords)
    z = problem.from_y(problem.problem.from_coordinates(coords))
    e = problem.evaluate(z)
    jacobian, error = task(problem, e)
    assert jacobian.shape == (3 + 6, problem.problem.n)
    fd = central_difference(lambda v: problem.evaluate(v).f, z)
    np.testing.assert_allclose(jacobian.T @ error, -fd / 2, rtol=1e-6, atol=1e-8)


def test_transpose_step_is_the_descent_direction_with_the_linearised_step() -> None:
    fig = spatial_arm(limit=3.0)
    cons = arm_constraints()
    coords = np.full(len(fig.coordinate_names), 0.2)
    problem = scaled(fig, cons, coords)
    z = problem.from_y(problem.problem.from_coordinates(coords))
    e = problem.evaluate(z)
    step = transpose_step(problem, e, limit=np.inf)
    # Parallel to -g ...
    cosine = float(step @ -e.g) / (np.linalg.norm(step) * np.linalg.norm(e.g))
    assert cosine == pytest.approx(1.0, abs=1e-12)
    # ... with s the minimiser of the linearised error |e - s J J^T e|^2.
    jacobian, error = task(problem, e)
    d = jacobian.T @ error

    def linearised(s: float) -> float:
        r = error - s * (jacobian @ d)
        return float(r @ r)

    s = float(np.linalg.norm(step) / np.linalg.norm(d))
    assert linearised(s) <= min(linearised(s * (1 + 1e-3)), linearised(s * (1 - 1e-3)))
    # The cap bounds every variable's change.
    capped = transpose_step(problem, e, limit=1e-3)
    assert float(np.abs(capped).max()) == pytest.approx(1e-3)
    np.testing.assert_allclose(capped / np.linalg.norm(capped), step / np.linalg.norm(step))


# ------------------------------------------------------ CCD's 1-D minimiser
def test_fit_reproduces_g_along_each_revolute_and_its_minimiser_beats_a_dense_scan() -> None:
    fig = spatial_arm(limit=3.0)
    fig.set_rigidity("elbow", 0.4)  # a scaled variable: the fit works in the joint's angle
    cons = arm_constraints()
    coords = np.array([0.3, -0.2, 0.5, 0.7, 0.1, -0.4, 0.2])
    problem = scaled(fig, cons, coords)
    z = problem.from_y(problem.problem.from_coordinates(coords))
    e = problem.evaluate(z)
    kinds = variable_kinds(problem)
    for k, (kind, rate) in enumerate(kinds):
        assert kind == "turns"

        def along(t: float, k: int = k) -> float:
            v = z.copy()
            v[k] += t
            return problem.evaluate(v).f

        samples = [along(x / rate) for x in (2 * math.pi / 3, -2 * math.pi / 3, math.pi)]
        c = fit_trigonometric(e.f, float(e.g[k]) / rate, np.array(samples))
        # Exact: position and orientation residuals are linear in the effector parts.
        for x in np.linspace(-3.0, 3.0, 13):
            assert trigonometric_value(c, x) == pytest.approx(along(x / rate), rel=1e-9, abs=1e-12)
        lower, upper = interval(problem.system, z, k)
        lower, upper = sorted((lower * rate, upper * rate))
        x = trigonometric_minimiser(c, lower, upper)
        assert lower <= x <= upper
        scan = np.linspace(lower, upper, 4001)
        values = np.array([along(v / rate) for v in scan])
        assert along(x / rate) <= values.min() + 1e-12
        assert abs(x - scan[int(np.argmin(values))]) <= 2 * (upper - lower) / 4000


def test_trigonometric_minimiser_on_an_interval_longer_than_a_period() -> None:
    c = np.array([0.0, 1.0, 0.0, 0.0, 0.0])  # cos x: minimum at +-pi
    assert abs(trigonometric_minimiser(c, -10.0, 10.0)) == pytest.approx(math.pi)
    assert trigonometric_minimiser(c, -1.0, 2.0) == pytest.approx(2.0)  # the end nearer pi
    assert trigonometric_minimiser(c, 0.0, 7.0) == pytest.approx(math.pi)
    flat = np.array([1.0, 0.0, 0.0, 0.0, 0.0])
    assert trigonometric_minimiser(flat, -1.0, 1.0) == 0.0  # no move without a decrease


def test_sweep_order_is_distal_to_proximal_on_a_tree() -> None:
    fig = tree()
    cons = [
        Constraint(EndEffector("left.hand"), PositionGoal((1.0, 1.0, 0.0))),
        Constraint(EndEffector("right.hand"), PositionGoal((1.0, -1.0, 0.0))),
    ]
    problem = scaled(fig, cons, fig.neutral())
    names = [fig.coordinate_names[problem.problem.variables[k]] for k in sweep_order(problem)]
    assert names == [
        "right.c",
        "left.c",
        "right.b",
        "right.a",
        "left.b",
        "left.a",
        "trunk.z",
        "trunk.y",
        "trunk.x",
    ]


# ------------------------------------------------------------- whole solves
@pytest.mark.parametrize("method", METHODS)
def test_reaches_a_reachable_point_on_a_chain(method: str) -> None:
    fig = chain(5)
    target = fig.forward(np.array([0.4, -0.3, 0.6, 0.2, -0.5]))["tip"][:3, 3]
    cons = [Constraint(EndEffector("tip"), PositionGoal(target))]
    result = solve(
        fig, cons, np.zeros(5), method=method, restarts=0, time_limit=None, max_iterations=1000
    )
    assert result.status == Status.GOAL_REACHED
    assert result.success
    assert result.residuals[0].distance <= 1e-6


@pytest.mark.parametrize("method", METHODS)
def test_limits_hold_and_g_never_rises_on_every_iterate(method: str) -> None:
    fig = spatial_arm(limit=0.6)
    fig.add_linear_constraint({"upper.x": 1.0, "upper.z": 1.0}, -0.5, 0.5, label="cone")
    cons = arm_constraints()
    seen: list[tuple[np.ndarray, float]] = []
    result = solve(
        fig,
        cons,
        callback=lambda c, f: seen.append((c.copy(), f)),
        method=method,
        restarts=0,
        time_limit=None,
        max_iterations=60,
    )
    assert len(seen) == result.nit + 1  # the start, then every iteration
    assert max(max_violation(fig, c) for c, _ in seen) <= 1e-9
    values = [f for _, f in seen]
    assert all(b < a for a, b in itertools.pairwise(values))
    assert not result.success  # the limits keep the goals out of reach
    assert result.active_set  # it ends on a limit


@pytest.mark.parametrize("method", METHODS)
def test_branching_tree_reaches_both_effectors(method: str) -> None:
    fig = tree()
    q = np.array([0.2, -0.1, 0.3, 0.5, 0.2, -0.6, -0.4, 0.1, 0.7])
    poses = fig.forward(q)
    cons = [
        Constraint(EndEffector("left.hand"), PositionGoal(poses["left.hand"][:3, 3]), name="L"),
        Constraint(EndEffector("right.hand"), PositionGoal(poses["right.hand"][:3, 3]), name="R"),
    ]
    result = solve(fig, cons, method=method, restarts=0, time_limit=None, max_iterations=2000)
    assert result.status == Status.GOAL_REACHED
    assert all(r.satisfied for r in result.residuals)


@pytest.mark.parametrize("method", METHODS)
def test_prismatic_joint_stays_within_its_limits(method: str) -> None:
    fig = Figure()
    fig.add_segment("base")
    fig.add_revolute("base", "z", -1.0, 1.0, name="turn")
    fig.add_segment("slide", parent="base", translation=(0.5, 0.0, 0.0))
    fig.add_prismatic("slide", "x", 0.0, 0.4, name="reach")
    fig.add_segment("tip", parent="slide", translation=(0.2, 0.0, 0.0))
    seen: list[np.ndarray] = []
    # Reachable: the slide extends to 0.3 at a turn of 0.5 rad.
    target = fig.forward(np.array([0.5, 0.3]))["tip"][:3, 3]
    cons = [Constraint(EndEffector("tip"), PositionGoal(target))]
    result = solve(fig, cons, method=method, restarts=0, time_limit=None)
    assert result.status == Status.GOAL_REACHED
    assert result.x[1] == pytest.approx(0.3, abs=1e-5)
    # Too far along the slide: it stops at its upper limit, pointing at the target.
    cons = [Constraint(EndEffector("tip"), PositionGoal((0.0, 2.0, 0.0)))]
    fig.set_limits("turn", -2.0, 2.0)
    result = solve(
        fig,
        cons,
        callback=lambda c, f: seen.append(c.copy()),
        method=method,
        restarts=0,
        time_limit=None,
        max_iterations=2000,
    )
    assert max(max_violation(fig, c) for c in seen) <= 1e-9
    assert result.x[1] == pytest.approx(0.4, abs=1e-9)
    assert result.x[0] == pytest.approx(math.pi / 2, abs=1e-4)
    assert not result.success


@pytest.mark.parametrize("method", METHODS)
def test_time_limit_stops_the_run(method: str) -> None:
    fig = chain(6)
    cons = [Constraint(EndEffector("tip"), PositionGoal((0.2, 0.5, 0.3)))]
    result = solve(fig, cons, method=method, time_limit=1e-9)
    assert result.status == Status.TIME_LIMIT
    assert result.nit == 0


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("target", [(0.3, 0.6, 0.2), (0.2, 0.4, -0.6)])
def test_a_rigid_joint_moves_less(method: str, target: tuple[float, float, float]) -> None:
    fig = chain(4, limit=3.0)
    cons = [Constraint(EndEffector("tip"), PositionGoal(target))]
    options = {"method": method, "restarts": 0, "time_limit": None, "max_iterations": 1000}
    free = solve(fig, cons, np.zeros(4), **options)
    fig.set_rigidity("j1", 0.9)
    stiff = solve(fig, cons, np.zeros(4), **options)
    assert free.success and stiff.success
    assert abs(stiff.x[1]) < 0.9 * abs(free.x[1])


@pytest.mark.parametrize("method", METHODS)
def test_straight_chain_pointing_at_a_far_target_is_a_checked_kuhn_tucker_point(
    method: str,
) -> None:
    fig = chain(3)
    cons = [Constraint(EndEffector("tip"), PositionGoal((5.0, 0.0, 0.0)))]
    result = solve(fig, cons, np.zeros(3), method=method, restarts=0, time_limit=None)
    assert result.status == Status.KUHN_TUCKER
    assert result.nit == 0
    assert result.residuals[0].distance == pytest.approx(4.0)


def test_kuhn_tucker_test_sees_a_gradient_pushing_against_a_bound() -> None:
    fig = Figure()  # two hinges about z, unit links, both limited to 0.3 rad
    fig.add_segment("a")
    fig.add_revolute("a", "z", -0.3, 0.3)
    fig.add_segment("b", parent="a", translation=(1.0, 0.0, 0.0))
    fig.add_revolute("b", "z", -0.3, 0.3)
    fig.add_segment("tip", parent="b", translation=(1.0, 0.0, 0.0))
    cons = [Constraint(EndEffector("tip"), PlaneGoal((0.0, 5.0, 0.0), (0.0, 1.0, 0.0)))]
    at_limit = np.array([0.3, 0.3])
    problem = scaled(fig, cons, at_limit)
    z = problem.from_y(problem.problem.from_coordinates(at_limit))
    assert kuhn_tucker(problem.system, z, problem.evaluate(z))
    inside = problem.from_y(problem.problem.from_coordinates(np.array([0.1, 0.3])))
    assert not kuhn_tucker(problem.system, inside, problem.evaluate(inside))


def test_ccd_step_limit_bounds_each_sweep() -> None:
    fig = chain(3, limit=3.0)
    cons = [Constraint(EndEffector("tip"), PositionGoal((-0.5, 0.4, 0.0)))]
    seen: list[np.ndarray] = []
    solve(
        fig,
        cons,
        np.zeros(3),
        callback=lambda c, f: seen.append(c.copy()),
        method="ccd",
        restarts=0,
        time_limit=None,
        step_limit=0.25,
    )
    steps = np.abs(np.diff(np.array(seen), axis=0))
    assert len(steps) > 1 and steps.max() <= 0.25 + 1e-12


def test_ccd_reads_its_options() -> None:
    method = CyclicCoordinateDescent(MethodOptions(max_iterations=7, step_limit=0.1))
    assert (method.max_iterations, method.step_limit) == (7, 0.1)
    assert CyclicCoordinateDescent(MethodOptions()).step_limit == DEFAULT_STEP_LIMIT


def test_ccd_sweep_ends_at_the_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    fig = chain(6)
    cons = [Constraint(EndEffector("tip"), PositionGoal((0.2, 0.5, 0.3)))]
    problem = scaled(fig, cons, np.zeros(6))
    z = problem.from_y(problem.problem.from_coordinates(np.zeros(6)))
    ticks = itertools.count()  # a clock that advances one second per reading
    monkeypatch.setattr(ccd.time, "perf_counter", lambda: float(next(ticks)))
    calls: list[np.ndarray] = []

    def evaluate(v: np.ndarray):
        calls.append(v)
        return problem.evaluate(v)

    moved = Sweep(problem, 0.5, deadline=2.0)(evaluate, z, problem.evaluate(z))
    assert moved is not None
    assert len(calls) == 2 * 4  # two variables (three samples and the new point each)
    changed = np.flatnonzero(moved[0] != z)
    assert set(changed) <= set(sweep_order(problem)[:2]) and len(changed) == 2
