"""Invariants of the optimiser (§7, Appendix) on random constrained problems.

Monotonic: the objective never increases between iterates. Feasible: every
iterate satisfies the joint limits, group limits, polygons and equalities.
A KUHN_TUCKER stop is a Kuhn-Tucker point: the gradient lies in the span of
the active constraints' normals, with inequality multipliers of the right sign.
"""

import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solver import (
    Constraint,
    EndEffector,
    Figure,
    InvalidInputError,
    PositionGoal,
    Solver,
    Status,
    solve,
)
from solver.optimizer import HESSIANS, make_strategy, minimize
from tests.solver_checks import (
    FigureCase,
    Recorder,
    coordinate_gradient,
    figure_cases,
    kt_residual,
    linear_system,
    max_violation,
    planar_arm,
    random_effector,
    random_goal,
)

FEASIBLE = 1e-8  # largest tolerated violation of a linear constraint
KT_PROJECTED = 3e-4  # projected gradient relative to the starting gradient
KT_SIGN = 1e-6  # wrong-sign multiplier relative to the starting gradient
KT_FLOOR = 1e-6  # absolute floor, times sqrt(1 + G) at the start


def _add_polygon(case: FigureCase, rng: np.random.Generator, sides: int) -> None:
    """A convex polygon around zero on two joint values (§6's shoulder limits)."""
    joints = rng.choice(list(case.figure.joint_names), size=2, replace=False)
    for k in range(sides):
        angle = 2.0 * np.pi * (k + rng.uniform(0.0, 0.5)) / sides
        a = np.cos(angle), np.sin(angle)
        case.figure.add_linear_constraint(
            dict(zip(joints, a, strict=True)), upper=float(rng.uniform(0.2, 0.8))
        )


def _add_equality(case: FigureCase, rng: np.random.Generator) -> None:
    joints = rng.choice(list(case.figure.joint_names), size=2, replace=False)
    coefficients = dict(zip(joints, rng.uniform(0.5, 1.5, 2) * [1.0, -1.0], strict=True))
    case.figure.add_equality(coefficients, 0.0)


@st.composite
def constrained_problems(draw: st.DrawFn, kind: str):
    """A chain with finite limits, extra linear constraints of ``kind`` and goals.

    ``kind``: "bounds" (limits only), "equality" or "polygon". Targets are drawn
    both near and far, so some solves end at a Kuhn-Tucker point, not at the goal.
    """
    case = draw(figure_cases(chain=True, limits=True, max_segments=4))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    if len(case.figure.joint_names) >= 2:
        if kind == "equality":
            _add_equality(case, rng)
        elif kind == "polygon":
            _add_polygon(case, rng, int(rng.integers(3, 6)))
    last = list(case.parents)[-1]
    start = case.figure.neutral()
    constraints = []
    for i in range(draw(st.integers(1, 2))):
        effector = random_effector(rng, last)
        goal_type = draw(st.sampled_from(["position", "position_orientation", "line", "aim"]))
        goal = random_goal(rng, goal_type, case, effector, start, None)
        if goal_type == "position" and draw(st.booleans()):
            goal.point = np.asarray(goal.point) * 4.0  # likely out of reach
        constraints.append(Constraint(effector, goal, float(rng.uniform(0.5, 2.0)), name=f"c{i}"))
    return case, constraints


def _check_run(case: FigureCase, constraints: list[Constraint]) -> None:
    fig = case.figure
    record = Recorder()
    # One optimiser run (no restarts, no clock): every iterate of it is recorded.
    solver = Solver(fig, constraints, max_iterations=400, restarts=0, time_limit=None)
    result = solver.solve(callback=record)
    problem = solver.problem

    assert record.xs, "the callback was never called"
    assert np.allclose(record.xs[0], fig.neutral(), atol=1e-12), "first iterate is not the start"
    system = linear_system(fig)
    for i, (x, f) in enumerate(zip(record.xs, record.fs, strict=True)):
        assert max_violation(fig, x, system) <= FEASIBLE, f"iterate {i} infeasible"
        assert np.isclose(problem.value(problem.from_coordinates(x)), f, rtol=1e-9, atol=1e-12)
    for i in range(1, len(record.fs)):
        previous = record.fs[i - 1]
        assert record.fs[i] <= previous + 1e-12 * max(1.0, previous), f"objective rose at {i}"
    assert result.fun == pytest.approx(record.fs[-1], rel=1e-12, abs=1e-15)
    assert max_violation(fig, result.x) <= FEASIBLE

    if result.status == Status.KUHN_TUCKER:
        _, g0 = coordinate_gradient(problem, record.xs[0])
        # Relative to the starting gradient, with a floor at the round-off level
        # of the objective (a start that is already nearly optimal).
        scale = float(np.linalg.norm(g0))
        floor = KT_FLOOR * np.sqrt(1.0 + record.fs[0]) + _gradient_roundoff(problem, result.x)
        projected, worst_sign, _ = kt_residual(fig, problem, result.x)
        assert projected <= KT_PROJECTED * scale + floor, f"projected gradient {projected:.3e}"
        assert worst_sign <= KT_SIGN * scale + floor, f"multiplier of wrong sign {worst_sign:.3e}"


def _gradient_roundoff(problem, coords: np.ndarray) -> float:
    """How much the gradient changes when the point moves by one rounding error.

    ``|dg| ~ |H| eps |y|``: near a singular goal (an aim target almost at the
    effector) the Gauss-Newton curvature reaches 1e19 and a gradient in the
    thousands is round-off; no representable step decreases ``G`` there.
    """
    y = problem.from_coordinates(coords)
    curvature = float(np.linalg.eigvalsh(problem.evaluate(y).gauss_newton())[-1])
    return 10.0 * np.finfo(float).eps * max(curvature, 0.0) * (1.0 + float(np.abs(y).max()))


@pytest.mark.parametrize("kind", ["bounds", "equality", "polygon"])
@settings(max_examples=80, deadline=None)
@given(data=st.data())
def test_monotone_feasible_and_kuhn_tucker(kind: str, data) -> None:
    case, constraints = data.draw(constrained_problems(kind))
    _check_run(case, constraints)


# ------------------------------------------------------ deterministic cases


def test_bound_becomes_active_with_positive_multiplier() -> None:
    """Target behind a joint limit: the limit is active and holds the arm back."""
    fig = planar_arm(limits=(-0.2, 0.2))
    c = Constraint(EndEffector("lower", (1, 0, 0)), PositionGoal((0.0, 2.0, 0.0)), name="reach")
    record = Recorder()
    solver = Solver(fig, [c], restarts=0)
    result = solver.solve(callback=record)
    assert result.values()["a"] == pytest.approx(0.2, abs=1e-9)
    assert result.status in (Status.KUHN_TUCKER, Status.NO_PROGRESS)
    assert not result.success
    projected, worst_sign, g = kt_residual(fig, solver.problem, result.x)
    assert projected <= 1e-4 * g + 1e-6
    assert worst_sign <= 0.0
    assert any("a" in name for name in result.active_set)


def test_equality_couples_joints() -> None:
    """add_equality keeps ``a == b`` at every iterate."""
    fig = planar_arm()
    fig.add_equality({"a": 1.0, "b": -1.0}, 0.0)
    c = Constraint(EndEffector("lower", (1, 0, 0)), PositionGoal((0.3, 1.2, 0.0)), name="reach")
    record = Recorder()
    result = solve(fig, [c], callback=record)
    for x in record.xs:
        q = fig.joint_values(x)
        assert abs(q[0] - q[1]) <= 1e-10
    # With a == b the tip is at (cos a + cos 2a, sin a + sin 2a): check we are at
    # the closest such point (a KT point of the one-dimensional problem).
    a = result.values()["a"]
    tip = np.array([np.cos(a) + np.cos(2 * a), np.sin(a) + np.sin(2 * a)])
    tangent = np.array([-np.sin(a) - 2 * np.sin(2 * a), np.cos(a) + 2 * np.cos(2 * a)])
    assert abs((tip - [0.3, 1.2]) @ tangent) <= 1e-4


def test_polygon_limit_holds_and_is_active() -> None:
    """A diamond |a| + |b| <= 0.5 stops a reach that needs more."""
    fig = planar_arm()
    for sa in (1.0, -1.0):
        for sb in (1.0, -1.0):
            fig.add_linear_constraint({"a": sa, "b": sb}, upper=0.5)
    c = Constraint(EndEffector("lower", (1, 0, 0)), PositionGoal((0.0, 2.0, 0.0)), name="reach")
    record = Recorder()
    solver = Solver(fig, [c])
    result = solver.solve(callback=record)
    for x in record.xs:
        assert max_violation(fig, x) <= FEASIBLE
    q = result.values()
    assert abs(q["a"]) + abs(q["b"]) == pytest.approx(0.5, abs=1e-7)
    projected, worst_sign, g = kt_residual(fig, solver.problem, result.x)
    assert projected <= 1e-4 * g + 1e-6
    assert worst_sign <= 0.0


def test_rigidity_one_locks_a_joint() -> None:
    """Rigidity 1 is a locked joint: it never moves, the others do the work."""
    fig = planar_arm()
    fig.set_rigidity("a", 1.0)
    c = Constraint(EndEffector("lower", (1, 0, 0)), PositionGoal((1.0, 1.0, 0.0)), name="reach")
    result = solve(fig, [c])
    assert result.values()["a"] == 0.0
    assert result.values()["b"] == pytest.approx(np.pi / 2, abs=1e-4)
    assert result.success


def test_fulfilled_task_does_not_move() -> None:
    """A start that already satisfies every goal is returned unchanged."""
    fig = planar_arm()
    c = Constraint(EndEffector("lower", (1, 0, 0)), PositionGoal((2.0, 0.0, 0.0)), name="reach")
    result = solve(fig, [c])
    assert result.status == Status.GOAL_REACHED
    assert np.array_equal(result.x, fig.neutral())
    assert result.nit == 0


# ------------------------------------------------------ strategies and deadline
def test_deadline_in_the_past_stops_before_any_iteration() -> None:
    """A deadline that has passed stops the run at once with TIME_LIMIT."""
    fig = planar_arm()
    c = Constraint(EndEffector("lower", (1, 0, 0)), PositionGoal((0.3, 1.2, 0.0)), name="reach")
    solver = Solver(fig, [c])
    problem = solver.problem
    y0 = problem.from_coordinates(fig.neutral())
    outcome = minimize(
        problem.evaluate, y0, problem.system, make_strategy("bfgs"), deadline=time.perf_counter()
    )
    assert outcome.status == Status.TIME_LIMIT
    assert outcome.nit == 0 and outcome.nfev == 1
    assert np.array_equal(outcome.y, y0)
    free = minimize(problem.evaluate, y0, problem.system, make_strategy("bfgs"), deadline=None)
    assert free.status == Status.GOAL_REACHED and free.nit > 0


@pytest.mark.parametrize("hessian", HESSIANS)
def test_both_strategies_reach_a_reachable_target(hessian: str) -> None:
    fig = planar_arm()
    c = Constraint(EndEffector("lower", (1, 0, 0)), PositionGoal((0.3, 1.2, 0.0)), name="reach")
    result = Solver(fig, [c], method=hessian).solve()
    assert result.status == Status.GOAL_REACHED


def test_bfgs_never_reseeds_and_hybrid_does() -> None:
    """The paper's strategy keeps one H for the whole run; the hybrid rebuilds it."""
    fig = planar_arm()
    c = Constraint(EndEffector("lower", (1, 0, 0)), PositionGoal((0.3, 1.2, 0.0)), name="reach")
    problem = Solver(fig, [c]).problem
    y0 = problem.from_coordinates(fig.neutral())
    runs = {
        name: minimize(problem.evaluate, y0, problem.system, make_strategy(name))
        for name in HESSIANS
    }
    assert runs["bfgs"].reseeds == 0
    assert runs["gauss-newton-hybrid"].reseeds > 0


class _Counting:
    """The hybrid strategy, noting ``G`` at every point where it builds a seed."""

    def __init__(self, seeds: list[float]) -> None:
        self.base = make_strategy("gauss-newton-hybrid")
        self.reseeds = self.base.reseeds
        self.seeds = seeds

    def initial(self, e):  # type: ignore[no-untyped-def]
        self.seeds.append(e.f)
        return self.base.initial(e)

    def reseed_after(self, e_old, sigma, f_new):  # type: ignore[no-untyped-def]
        return self.base.reseed_after(e_old, sigma, f_new)


def test_no_hessian_is_built_after_the_goal_is_met() -> None:
    """A run that meets its goal stops without seeding an ``H`` it would never use."""
    fig = planar_arm()
    c = Constraint(EndEffector("lower", (1, 0, 0)), PositionGoal((0.3, 1.2, 0.0)), name="reach")
    problem = Solver(fig, [c]).problem
    y0 = problem.from_coordinates(fig.neutral())
    seeds: list[float] = []
    outcome = minimize(problem.evaluate, y0, problem.system, _Counting(seeds))  # type: ignore[arg-type]
    assert outcome.status == Status.GOAL_REACHED
    assert outcome.evaluation.reached
    assert not problem.satisfied(problem.evaluate(y0).reports[0])
    # One seed at the start and one per re-seed; none at the final, goal-meeting point.
    assert len(seeds) == 1 + outcome.reseeds
    assert seeds[-1] > outcome.evaluation.f


def test_a_start_that_meets_the_goal_builds_no_hessian_and_keeps_its_equalities() -> None:
    """Met at the start: the run stops at once without a seed, and the equality rows still
    enter the active set (as they do when the run has work to do)."""
    fig = planar_arm()
    fig.add_equality({"a": 1.0, "b": -1.0}, 0.0)
    c = Constraint(EndEffector("lower", (1, 0, 0)), PositionGoal((2.0, 0.0, 0.0)), name="reach")
    problem = Solver(fig, [c]).problem
    y0 = problem.from_coordinates(fig.neutral())
    seeds: list[float] = []
    met = minimize(problem.evaluate, y0, problem.system, _Counting(seeds))  # type: ignore[arg-type]
    assert seeds == []
    assert met.status == Status.GOAL_REACHED and met.nit == 0 and met.nfev == 1
    assert np.array_equal(met.y, y0)
    equalities = list(np.flatnonzero(problem.system.equality))
    assert equalities and met.active == equalities
    assert met.multipliers.shape == (len(equalities),)
    # The same rows with work to do (the goal moved off the start).
    c.goal.point = (0.3, 1.2, 0.0)
    moved = minimize(problem.evaluate, y0, problem.system, _Counting(seeds))  # type: ignore[arg-type]
    assert seeds and moved.active[: len(equalities)] == equalities


def test_removing_a_polygon_replaces_it_in_the_next_solve() -> None:
    """Rows removed by label no longer hold the pose; the solver re-assembles."""
    fig = Figure()
    fig.add_segment("arm")
    fig.add_revolute("arm", "z", name="hinge")
    fig.add_segment("tip", "arm", (1.0, 0.0, 0.0))
    fig.add_linear_constraint({"hinge": 1.0}, upper=0.2, label="stop")
    fig.add_linear_constraint({"hinge": -1.0}, upper=0.2, label="stop")
    target = (np.cos(0.5), np.sin(0.5), 0.0)
    ik = Solver(fig, [Constraint(EndEffector("tip"), PositionGoal(target))])
    assert ik.solve(np.zeros(1)).x == pytest.approx([0.2])
    assert fig.remove_linear_constraints("stop") == 2
    assert fig.remove_linear_constraints("stop") == 0
    assert ik.solve(np.zeros(1)).x == pytest.approx([0.5], abs=1e-5)
    with pytest.raises(InvalidInputError, match="label"):
        fig.remove_linear_constraints(3)  # type: ignore[arg-type]
