"""The exact feasibility projection against a brute-force enumeration of active sets."""

from itertools import combinations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solver import Constraint, EndEffector, Figure, InfeasibleError, PositionGoal, solve
from solver.linear import LinearSystem, project
from solver.projection import least_distance


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
