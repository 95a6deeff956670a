"""Closed-form checks of the solver's small numerical routines."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solver.model.kinematics import Kinematics, cross
from solver.model.linear import LinearSystem, project
from solver.optimizer.line_search import DELTA1, DELTA2, cubic_minimiser, powell_search


@settings(max_examples=60, deadline=None)
@given(
    root=st.floats(-2.0, 2.0),
    curvature=st.floats(0.1, 5.0),
    cubic=st.floats(-0.5, 0.5),
)
def test_cubic_minimiser_is_exact_on_a_cubic(root: float, curvature: float, cubic: float) -> None:
    """For f(t) = c3 (t - r)^3 + k (t - r)^2 the interpolant is f itself; its minimiser is r."""

    def f(t: float) -> float:
        return cubic * (t - root) ** 3 + curvature * (t - root) ** 2

    def df(t: float) -> float:
        return 3 * cubic * (t - root) ** 2 + 2 * curvature * (t - root)

    a, b = root - 0.5, root + 0.7
    assert cubic_minimiser(a, f(a), df(a), b, f(b), df(b)) == pytest.approx(root, abs=1e-9)


class _Quadratic:
    """f(y) = 0.5 y^T Q y - c^T y, with an evaluation object the line search accepts."""

    def __init__(self, q: np.ndarray, c: np.ndarray) -> None:
        self.q, self.c = q, c

    def __call__(self, y: np.ndarray):
        class E:
            pass

        e = E()
        e.f = float(0.5 * y @ self.q @ y - self.c @ y)
        e.g = self.q @ y - self.c
        return e


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), t_max=st.floats(0.05, 1.0))
def test_powell_search_meets_its_conditions(seed: int, t_max: float) -> None:
    rng = np.random.default_rng(seed)
    m = rng.normal(size=(4, 4))
    fn = _Quadratic(m @ m.T + 0.5 * np.eye(4), rng.normal(size=4))
    y = rng.normal(size=4)
    start = fn(y)
    s = -start.g * rng.uniform(0.1, 10.0)  # a descent direction of any length
    t, e = powell_search(fn, y, s, start, t_max)
    assert e is not None and 0.0 < t <= t_max
    slope = float(start.g @ s)
    assert e.f <= start.f + DELTA1 * t * slope  # (31), first condition
    assert float(e.g @ s) >= DELTA2 * slope or t == t_max  # (31), second, unless capped


def test_projection_is_the_nearest_point_of_a_polygon() -> None:
    """Nearest point of {x <= 1, y <= 1, x + y <= 1.5} to (3, 1.8), against a grid search."""
    system = LinearSystem(
        np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]),
        np.array([1.0, 1.0, 1.5]),
        np.zeros(3, dtype=bool),
        ["x <= 1", "y <= 1", "x + y <= 1.5"],
    )
    v = np.array([3.0, 1.8])
    x = project(system, v)
    grid = np.stack(np.meshgrid(np.linspace(-1, 1.2, 441), np.linspace(-1, 1.2, 441)), -1)
    pts = grid.reshape(-1, 2)
    feasible = pts[(pts @ system.A.T <= system.b + 1e-12).all(axis=1)]
    best = feasible[np.argmin(((feasible - v) ** 2).sum(axis=1))]
    assert np.allclose(x, best, atol=6e-3)
    assert system.violation(x).max() <= 1e-9


def test_projection_onto_an_equality_is_orthogonal() -> None:
    system = LinearSystem(np.array([[1.0, 2.0, 2.0]]), np.array([3.0]), np.array([True]), ["e"])
    v = np.array([1.0, -1.0, 4.0])
    x = project(system, v)
    a = system.A[0]
    assert a @ x == pytest.approx(3.0, abs=1e-12)
    assert np.allclose(x, v - (a @ v - 3.0) / (a @ a) * a)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_rodrigues_matches_the_matrix_exponential(seed: int) -> None:
    """Joint rotations equal exp(q K), computed here by a long Taylor series."""
    from solver import Figure

    rng = np.random.default_rng(seed)
    axis = rng.normal(size=3)
    axis /= np.linalg.norm(axis)
    fig = Figure()
    fig.add_segment("s")
    fig.add_revolute("s", axis)
    kin: Kinematics = fig.kinematics
    q = rng.uniform(-3.0, 3.0)
    k = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    expm, term = np.eye(3), np.eye(3)
    for n in range(1, 40):
        term = term @ (q * k) / n
        expm = expm + term
    assert np.allclose(kin.forward(np.array([q])).rotations[0], expm, atol=1e-12)


def test_planar_chain_forward_kinematics_closed_form() -> None:
    from solver import Figure

    fig = Figure()
    fig.add_segment("a")
    fig.add_revolute("a", "z")
    fig.add_segment("b", "a", (1.0, 0.0, 0.0))
    fig.add_revolute("b", "z")
    fig.add_segment("tip", "b", (0.7, 0.0, 0.0))
    q = np.array([0.4, -1.1])
    tip = fig.forward(q)["tip"][:3, 3]
    expected = [np.cos(0.4) + 0.7 * np.cos(-0.7), np.sin(0.4) + 0.7 * np.sin(-0.7), 0.0]
    assert np.allclose(tip, expected, atol=1e-12)


def test_cross_matches_numpy() -> None:
    rng = np.random.default_rng(3)
    a, b = rng.normal(size=(5, 3)), rng.normal(size=(5, 3))
    assert np.allclose(cross(a, b), np.cross(a, b))


def test_set_rest_is_seen_by_the_next_forward_pass() -> None:
    """Rest changes are re-read lazily; forward kinematics must never use a stale rest."""
    from solver import Figure

    fig = Figure()
    fig.add_segment("a")
    fig.add_revolute("a", "z")
    fig.add_segment("tip", "a", (1.0, 0.0, 0.0))
    q = np.array([0.5])
    before = fig.forward(q)["tip"][:3, 3]
    quarter = np.array([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    fig.set_rest("a", rotation=quarter)
    fig.set_rest("tip", translation=(2.0, 0.0, 0.0))
    after = fig.forward(q)["tip"][:3, 3]
    assert np.allclose(before, [np.cos(0.5), np.sin(0.5), 0.0])
    assert np.allclose(after, 2.0 * np.array([np.cos(0.5 + np.pi / 2), np.sin(0.5 + np.pi / 2), 0]))


def test_parallel_orientation_directions_are_rejected() -> None:
    from solver import InvalidInputError, OrientationGoal, PositionOrientationGoal

    with pytest.raises(InvalidInputError, match="parallel"):
        OrientationGoal(x=(1, 0, 0), y=(-2, 0, 0))
    with pytest.raises(InvalidInputError, match="parallel"):
        PositionOrientationGoal((0, 0, 0), x=(0, 1, 0), y=(0, 3, 0))
