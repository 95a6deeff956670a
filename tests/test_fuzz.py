"""Fuzz of whole solves on random figures: the answer's guarantees hold for any input.

Random trees of 1-15 segments with revolute, prismatic and ball joints (some
segments not inheriting their parent's rotation), random
(sometimes equal or one-sided) limits, rigidities up to 1, starts outside the
limits and every goal type. For every solve: no limit is violated (locked and
out-of-chain joints included), nothing is NaN, ``success`` holds exactly when
every residual is within tolerance, and the objective is never above the
start's.
"""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from solver import Constraint, Figure, Solver
from solver.model.figure import coordinate_system
from tests.solver_checks import FigureCase, random_effector, random_goal, random_rotation

GOALS = ("position", "orientation", "position_orientation", "aim", "line", "plane", "half_space")


def _limits(rng: np.random.Generator) -> tuple[float, float]:
    """Limits around zero; sometimes equal (a fixed joint) or one-sided."""
    roll = rng.random()
    if roll < 0.1:
        value = rng.uniform(-0.5, 0.5)
        return value, value
    if roll < 0.2:
        return 0.0, rng.uniform(0.3, 2.0)
    return -rng.uniform(0.1, 2.0), rng.uniform(0.1, 2.0)


def _rigidity(rng: np.random.Generator) -> float:
    roll = rng.random()
    return 1.0 if roll < 0.1 else (0.0 if roll < 0.6 else rng.uniform(0.0, 0.95))


@st.composite
def random_task(draw: st.DrawFn) -> tuple[FigureCase, list[Constraint], np.ndarray]:
    """A random tree, constraints on some of its segments and a start (maybe infeasible)."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n = draw(st.integers(1, 15))
    fig = Figure()
    parents: dict[str, str | None] = {}
    case = FigureCase(fig, parents)
    for i in range(n):
        name = f"s{i}"
        parent = None if i == 0 else f"s{int(rng.integers(0, i))}"
        translation = rng.normal(0.0, 0.4, 3) if parent else np.zeros(3)
        inherit = parent is None or rng.random() > 0.25
        rest = random_rotation(rng)
        fig.add_segment(name, parent, translation, rest, inherit_rotation=inherit)
        parents[name] = parent
        kind = ("revolute", "revolute", "prismatic", "ball", "none")[int(rng.integers(5))]
        if i == 0 and kind == "none":
            kind = "revolute"
        if kind == "ball":
            lower, upper = zip(*(_limits(rng) for _ in range(3)), strict=True)
            for joint in fig.add_ball(name, lower, upper, [_rigidity(rng) for _ in range(3)]):
                case.kinds[joint] = "revolute"
        elif kind != "none":
            add = fig.add_revolute if kind == "revolute" else fig.add_prismatic
            axis = rng.normal(size=3)
            joint = add(name, axis / np.linalg.norm(axis), *_limits(rng), _rigidity(rng))
            case.kinds[joint] = kind
    lower, upper = fig.coordinate_bounds()
    start = rng.uniform(lower - 1.0, upper + 1.0)  # partly outside the limits
    constraints = []
    for k in range(int(rng.integers(1, 4))):
        segment = f"s{int(rng.integers(0, n))}"
        effector = random_effector(rng, segment)
        kind = GOALS[int(rng.integers(len(GOALS)))]
        goal = random_goal(rng, kind, case, effector, np.clip(start, lower, upper), None)
        constraints.append(Constraint(effector, goal, float(rng.uniform(0.2, 2.0)), name=f"c{k}"))
    return case, constraints, start


@settings(max_examples=60, deadline=None)
@given(task=random_task())
def test_any_solve_keeps_its_guarantees(task) -> None:
    case, constraints, start = task
    fig = case.figure
    solver = Solver(fig, constraints, max_iterations=60, restarts=2, time_limit=None)
    result = solver.solve(initial=start)
    assert np.all(np.isfinite(result.x)) and np.isfinite(result.fun)
    assert coordinate_system(fig).violation(result.x).max(initial=0.0) <= 1e-9
    assert result.success == all(r.satisfied for r in result.residuals)
    at_start = Solver(fig, constraints, max_iterations=0, restarts=0).solve(initial=start)
    assert result.fun <= at_start.fun * (1.0 + 1e-12) + 1e-15
