"""The linearised task of the Jacobian methods: identities with G and g, finite differences."""

import numpy as np

from solver import Constraint, EndEffector, Figure, PositionGoal, PositionOrientationGoal
from solver.assembly.problem import Problem
from solver.assembly.scale import ScaledProblem
from solver.methods.jacobian_step import feasible_point, on_bound, task


def _scaled_problem() -> ScaledProblem:
    """A 2-m chain (revolute, prismatic, revolute) with a position and a pose goal."""
    fig = Figure()
    fig.add_segment("a")
    fig.add_revolute("a", (0.3, 0.2, 1.0), -1.0, 1.0, name="r0")
    fig.add_segment("b", parent="a", translation=(1.0, 0.0, 0.0))
    fig.add_prismatic("b", (1.0, 0.0, 0.0), -0.5, 0.5, name="p1")
    fig.add_segment("c", parent="b", translation=(1.0, 0.0, 0.0))
    fig.add_revolute("c", (0.0, 1.0, 0.0), -2.0, 2.0, name="r2")
    fig.set_rigidity("r0", 0.4)
    constraints = [
        Constraint(EndEffector("c", (0.5, 0.0, 0.0)), PositionGoal((1.0, 1.2, 0.3)), weight=2.0),
        Constraint(
            EndEffector("b", x=(1, 0, 0), y=(0, 1, 0)),
            PositionOrientationGoal((0.5, 0.5, 0.0), x=(0, 1, 0), y=(-1, 0, 0)),
            weight=0.5,
        ),
        Constraint(EndEffector("c"), PositionGoal((9.0, 9.0, 9.0)), weight=0.0),
    ]
    problem = Problem(fig, constraints, np.zeros(3))
    return ScaledProblem(problem, 2.0)


def test_error_squared_is_the_scaled_objective_and_jacobian_gives_the_gradient() -> None:
    scaled = _scaled_problem()
    z = np.array([0.3, 0.1, -0.7])
    evaluation = scaled.evaluate(z)
    jac, err = task(scaled, evaluation)
    assert jac.shape == (len(err), 3)
    assert np.isclose(err @ err, evaluation.f, rtol=1e-12)
    np.testing.assert_allclose(jac.T @ err, -0.5 * evaluation.g, rtol=1e-10, atol=1e-14)
    factor = evaluation.gauss_newton_factor()
    np.testing.assert_allclose(np.sqrt(2.0) * jac, factor, rtol=1e-12, atol=1e-15)


def test_jacobian_matches_finite_differences_of_the_error() -> None:
    scaled = _scaled_problem()
    z = np.array([-0.2, 0.05, 0.4])
    jac, _ = task(scaled, scaled.evaluate(z))
    h = 1e-6
    for k in range(3):
        dz = np.zeros(3)
        dz[k] = h
        _, plus = task(scaled, scaled.evaluate(z + dz))
        _, minus = task(scaled, scaled.evaluate(z - dz))
        # e = -r: its derivative is -J.
        np.testing.assert_allclose(-(plus - minus) / (2 * h), jac[:, k], atol=1e-7)


def test_on_bound_and_feasible_point() -> None:
    scaled = _scaled_problem()
    _, upper = scaled.problem.bounds
    z = np.array([upper[0] / scaled.unit[0], 0.0, 0.0])
    rows = on_bound(scaled.system, z)
    assert [scaled.system.labels[i] for i in rows] == ["r0 <= 1"]
    moved = feasible_point(scaled, z, np.array([0.5, 10.0, 0.1]))
    assert scaled.system.violation(moved).max() <= 1e-12
    np.testing.assert_allclose(moved, [z[0], upper[1] / scaled.unit[1], 0.1], atol=1e-12)
