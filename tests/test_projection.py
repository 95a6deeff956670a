"""The exact feasibility projection against a brute-force enumeration of active sets."""

from itertools import combinations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solver import Constraint, EndEffector, Figure, InfeasibleError, PositionGoal, solve
from solver.assembly.projection import least_distance
from solver.model.linear import LinearSystem, only_point, project
from tests.solver_checks import planar_arm


def brute_force(system: LinearSystem, v: np.ndarray) -> np.ndarray:
    """Nearest feasible point by trying every set of rows held with equality.

    The projection onto a polyhedron is the projection of ``v`` onto the affine
    set of its active rows; among all row subsets (equalities always included)
    the feasible candidate nearest to ``v`` is the answer.
    """
    eq = list(np.flatnonzero(system.equality))
    ineq = list(np.flatnonzero(~system.equality))
    best, best_d = None, np.inf
    for size in range(len(v) + 1):
        for subset in combinations(ineq, size):
            rows = eq + list(subset)
            x = v.copy()
            if rows:
                a = system.A[rows]
                d, *_ = np.linalg.lstsq(a, system.b[rows] - a @ v, rcond=None)
                x = v + d
            if system.violation(x).max(initial=0.0) <= 1e-9:
                dist = float((x - v) @ (x - v))
                if dist < best_d - 1e-15:
                    best, best_d = x, dist
    assert best is not None
    return best


def random_system(seed: int, n: int, k: int, equalities: int) -> tuple[LinearSystem, np.ndarray]:
    """k random rows through the neighbourhood of a known feasible point, and a start."""
    rng = np.random.default_rng(seed)
    inside = rng.normal(size=n)
    a = rng.normal(size=(k, n))
    b = a @ inside + rng.uniform(0.0, 1.0, size=k)
    equality = np.zeros(k, dtype=bool)
    equality[:equalities] = True
    b[:equalities] = a[:equalities] @ inside
    system = LinearSystem(a, b, equality, [f"row {i}" for i in range(k)])
    return system, inside + rng.normal(scale=3.0, size=n)


@settings(max_examples=80, deadline=None)
@given(
    seed=st.integers(0, 100_000),
    n=st.integers(1, 4),
    k=st.integers(1, 6),
    equalities=st.integers(0, 2),
)
def test_projection_is_the_nearest_feasible_point(
    seed: int, n: int, k: int, equalities: int
) -> None:
    system, v = random_system(seed, n, k, min(equalities, n - 1, k))
    x = project(system, v)
    assert system.violation(x).max() <= 1e-12
    assert np.allclose(x, brute_force(system, v), atol=1e-9)


def test_thin_wedge_is_projected_exactly() -> None:
    """0 <= a - b <= 1e-3, 0.5 <= a + b <= 0.501: alternating projections stopped 5e-4 off."""
    a = np.array([[1, -1], [-1, 1], [1, 1], [-1, -1], [1, 0], [-1, 0], [0, 1], [0, -1.0]])
    b = np.array([1e-3, 0, 0.501, -0.5, 1, 1, 1, 1])
    system = LinearSystem(a, b, np.zeros(8, dtype=bool), [f"r{i}" for i in range(8)])
    v = np.array([3.0, -2.0])
    x = project(system, v)
    assert np.allclose(x, [0.251, 0.25], atol=1e-12)
    assert np.allclose(x, brute_force(system, v), atol=1e-12)


def test_acute_cone_is_not_reported_infeasible() -> None:
    """|x| <= 1e-4 y: the apex is the projection of a point below it (it used to raise)."""
    a = np.array([[1.0, -1e-4], [-1.0, -1e-4]])
    system = LinearSystem(a, np.zeros(2), np.zeros(2, dtype=bool), ["r1", "r2"])
    x = project(system, np.array([0.0, -5.0]))
    assert np.allclose(x, 0.0, atol=1e-15)


def _pair(tilt: float, lower: float) -> LinearSystem:
    """``a + b <= 0.5`` and ``a + (1 + tilt) b >= lower`` (issue 18's thin wedge)."""
    rows = np.array([[1.0, 1.0], [-1.0, -(1.0 + tilt)]])
    return LinearSystem(rows, np.array([0.5, -lower]), np.zeros(2, dtype=bool), ["hi", "lo"])


@pytest.mark.parametrize("start", [(0.0, 0.0), (1.0, -2.0), (3.0, 3.0), (-50.0, 40.0)])
def test_a_thin_wedge_of_nearly_parallel_rows_is_feasible(start: tuple[float, float]) -> None:
    """Rows 1e-7 apart in direction admit a wedge (b >= -0.01 on a + b = 0.5); the
    projection steps into it exactly (it used to call the rows conflicting)."""
    system = _pair(1e-7, 0.5 - 1e-9)
    x = project(system, np.array(start))
    assert system.violation(x).max() <= 1e-12
    assert np.allclose(x, brute_force(system, np.array(start)), atol=1e-6)


def test_parallel_rows_conflict_only_beyond_the_feasibility_tolerance() -> None:
    """Exactly parallel rows 1e-10 apart (round-off of a user's numbers) are feasible within
    the tolerance; 1e-6 apart, or 1e-12 apart in direction with no wedge near, they
    conflict and are named."""
    x = project(_pair(0.0, 0.5 + 1e-10), np.array([1.0, -2.0]))
    assert _pair(0.0, 0.5 + 1e-10).violation(x).max() <= 1e-9
    for system in (_pair(0.0, 0.5 + 1e-6), _pair(1e-12, 0.5 + 1e-6)):
        for start in ((0.0, 0.0), (3.0, 3.0)):
            with pytest.raises(InfeasibleError, match=r"conflicting: (hi, lo|lo, hi)"):
                project(system, np.array(start))


def test_a_solve_in_a_thin_wedge_goes_on() -> None:
    """Issue 18: the planar 2-link arm with a + b <= 0.5 and a + (1 + 1e-7) b >= 0.5 - 1e-9
    raised InfeasibleError; it is solved: the tip's closest point on the circle that
    a + b = 0.5 leaves it, the rows held."""
    fig = planar_arm()
    fig.add_linear_constraint({"a": 1.0, "b": 1.0}, upper=0.5)
    fig.add_linear_constraint({"a": 1.0, "b": 1.0 + 1e-7}, lower=0.5 - 1e-9)
    target = np.array([1.0, 1.0, 0.0])
    goal = Constraint(EndEffector("lower", (1.0, 0.0, 0.0)), PositionGoal(target), name="tip")
    for start in ((0.0, 0.0), (1.0, -2.0)):
        result = solve(fig, [goal], initial=start)
        assert result.converged and not result.success
        # The forearm points along a + b = 0.5: the tip is on a unit circle about its elbow.
        centre = np.array([np.cos(0.5), np.sin(0.5), 0.0])
        closest = 1.0 - float(np.linalg.norm(target - centre))
        assert abs(result.residuals[0].distance - closest) <= 1e-6
        a, b = result.x
        assert a + b <= 0.5 + 1e-12 and a + (1.0 + 1e-7) * b >= 0.5 - 1e-9 - 1e-12


@pytest.mark.parametrize(
    ("rows", "equality", "alone"),
    [
        ([[1, 0], [0, 1]], [False, False], False),  # a corner of a quadrant: (-1, -1) is free
        ([[1, 0], [0, 1], [-1, -1]], [False, False, False], True),
        ([[1, 1], [1, 0]], [True, False], False),  # along the equality, x decreasing
        ([[1, 1], [1, 0], [-1, 0]], [True, False, False], True),
        ([[1, 0], [0, 1], [-1, -1], [1, 1]], [False, False, False, False], True),
    ],
)
def test_only_point_is_decided_by_the_rows_through_it(
    rows: list[list[float]], equality: list[bool], alone: bool
) -> None:
    """``only_point``: no feasible direction at the point, so no other start leads elsewhere."""
    a = np.array(rows, dtype=float)
    unit = a / np.linalg.norm(a, axis=1)[:, None]
    system = LinearSystem(unit, np.zeros(len(a)), np.array(equality), ["r"] * len(a))
    assert only_point(system, np.zeros(2)) is alone


def test_infeasible_rows_are_named() -> None:
    a = np.array([[1.0, 1.0], [-1.0, -1.0], [1.0, 0.0]])
    system = LinearSystem(a, np.array([1.0, -2.0, 5.0]), np.zeros(3, dtype=bool), ["lo", "hi", "x"])
    with pytest.raises(InfeasibleError, match=r"conflicting: .*(lo.*hi|hi.*lo)"):
        project(system, np.array([0.0, 0.0]))


def test_inconsistent_equalities_are_infeasible() -> None:
    result = least_distance(
        np.array([[1.0, 0.0], [2.0, 0.0]]),
        np.array([1.0, 1.0]),
        np.array([True, True]),
        np.zeros(2),
    )
    assert not result.feasible and sorted(result.conflict) == [0, 1]


def test_equal_limits_fix_the_joint() -> None:
    fig = Figure()
    fig.add_segment("a")
    fig.add_revolute("a", "z", 0.3, 0.3, name="j0")
    fig.add_revolute("a", "x", -1, 1, name="j1")
    assert np.array_equal(fig.neutral(), [0.3, 0.0])


def test_locked_joint_is_moved_into_its_limits() -> None:
    """A rigid (rigidity 1) joint starting outside its limits is projected, not kept."""
    f = Figure()
    f.add_segment("a")
    f.add_revolute("a", "z", -1, 1, name="j0")
    f.add_segment("b", parent="a", translation=(1, 0, 0))
    f.add_revolute("b", "z", -1, 1, name="j1", rigidity=1.0)
    f.add_segment("tip", parent="b", translation=(1, 0, 0))
    r = solve(f, [Constraint(EndEffector("tip"), PositionGoal((1, 1, 0)))], initial=[0.0, 3.0])
    assert r.values()["j1"] == 1.0


def test_joint_outside_the_chain_is_moved_into_its_limits() -> None:
    f = Figure()
    f.add_segment("a")
    f.add_revolute("a", "z", -1, 1, name="j0")
    f.add_segment("side", parent="a", translation=(0, 1, 0))
    f.add_revolute("side", "z", -0.5, 0.5, name="off")
    f.add_segment("tip", parent="a", translation=(1, 0, 0))
    r = solve(f, [Constraint(EndEffector("tip"), PositionGoal((0, 1, 0)))], initial=[0.0, -2.0])
    assert r.values()["off"] == -0.5
