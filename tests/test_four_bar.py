"""The four-bar linkage as one system (seed 003): determinacy, a driven revolution, and
Newton-Raphson's quadratic convergence on the exactly-constrained loop.

Both closures of :mod:`bench.linkage`: the open chain pinned back to the base at D, and
the coupler held on the rocker's hinge (both sides of the loop moving).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from bench.linkage import CRANK_ROCKER, FourBar, four_bar, transmission
from solver import Constraint, PlaneGoal, Solver, solve
from solver.analysis.determinacy import EXACT, OVER, UNDER
from tests.solver_checks import Recorder

CLOSURES = ("ground", "rocker")
STEPS = 360
"""Crank steps of one revolution (1 degree each)."""


def at_pose(figure, constraints, coords):
    """A solve that takes no step: its result is the pose ``coords``."""
    return solve(figure, constraints, initial=coords, max_iterations=0, restarts=0)


def wrapped(difference: np.ndarray) -> np.ndarray:
    """Angle differences (n,) in (-pi, pi]."""
    return np.angle(np.exp(1j * difference))


def test_the_closed_form_closes_the_loop_in_both_assemblies() -> None:
    shortest, longest = min(CRANK_ROCKER), max(CRANK_ROCKER)
    others = sum(CRANK_ROCKER) - shortest - longest
    assert CRANK_ROCKER[0] == shortest and shortest + longest < others  # Grashof
    for closure in CLOSURES:
        linkage = four_bar(closure=closure)
        for crank in np.linspace(-math.pi, math.pi, 13):
            for branch in (1, -1):
                assert linkage.closure_residual(linkage.coords(crank, branch)) < 1e-14


# ------------------------------------------------------------------ determinacy
@pytest.mark.parametrize("closure", CLOSURES)
def test_free_crank_leaves_one_degree_of_freedom_the_crank(closure: str) -> None:
    linkage = four_bar(closure=closure)
    crank = 0.7
    report = at_pose(linkage.figure, [linkage.closure], linkage.coords(crank)).determinacy
    joints = len(linkage.figure.joints)
    assert (report.dof, report.rank, report.equations) == (joints, joints - 1, joints - 1)
    assert report.state == UNDER and report.dependent == ()
    (free,) = report.free_motions
    # The free motion is the mechanism's own: every joint at its closed-form rate.
    h = 1e-6
    velocity = wrapped(linkage.coords(crank + h) - linkage.coords(crank - h)) / (2 * h)
    velocity /= np.linalg.norm(velocity)
    assert abs(float(free.motion @ velocity)) == pytest.approx(1.0, abs=1e-8)
    assert report.summary.startswith("under-constrained: 3 DOF, 2 independent of 2 equations")


@pytest.mark.parametrize("closure", CLOSURES)
def test_held_crank_is_exactly_constrained(closure: str) -> None:
    linkage = four_bar(closure=closure, crank_rigidity=1.0)
    report = at_pose(linkage.figure, [linkage.closure], linkage.coords(0.7)).determinacy
    assert (report.dof, report.rank, report.equations) == (2, 2, 2)
    assert report.state == EXACT and report.dependent == () and report.free_motions == ()
    assert report.summary == "exactly constrained: 2 DOF, 2 independent of 2 equations"


@pytest.mark.parametrize("closure", CLOSURES)
def test_crank_pinned_by_equal_limits_is_exactly_constrained(closure: str) -> None:
    """The other way to hold a joint: limits (0.7, 0.7) make an equality row."""
    linkage = four_bar(closure=closure)
    linkage.figure.set_limits("crank", 0.7, 0.7)
    report = at_pose(linkage.figure, [linkage.closure], linkage.coords(0.7)).determinacy
    assert (report.dof, report.rank, report.equations, report.state) == (2, 2, 2, EXACT)


def _stop(linkage: FourBar, coords: np.ndarray, shift: float) -> Constraint:
    """The hinge C held on the plane ``x = x_C + shift`` (one equation), ``x_C`` its x at
    ``coords``."""
    x = float(linkage.point(linkage.joint_c, coords)[0]) + shift
    return Constraint(linkage.joint_c, PlaneGoal((x, 0, 0), (1, 0, 0)), name="stop")


@pytest.mark.parametrize("closure", CLOSURES)
def test_a_stop_on_a_held_crank_is_named_conflicting(closure: str) -> None:
    linkage = four_bar(closure=closure, crank_rigidity=1.0)
    start = linkage.coords(1.5)
    constraints = [linkage.closure, _stop(linkage, start, 0.1)]
    result = Solver(linkage.figure, constraints, time_limit=None, restarts=0).solve(start)
    report = result.determinacy
    assert not result.success
    assert report.state == OVER and (report.dof, report.rank, report.equations) == (2, 2, 3)
    assert report.conflicting == ("stop",)
    assert "conflicting 'stop'" in report.summary


@pytest.mark.parametrize("closure", CLOSURES)
def test_the_same_stop_drives_a_free_crank_exactly(closure: str) -> None:
    """With the crank free, the stop is the input: three equations, three joints (at crank
    1.5 rad the hinge C moves 0.35 units along x per radian of crank)."""
    linkage = four_bar(closure=closure)
    start = linkage.coords(1.5)
    constraints = [linkage.closure, _stop(linkage, start, 0.02)]
    result = Solver(linkage.figure, constraints, time_limit=None, method="newton").solve(start)
    assert result.success
    report = result.determinacy
    assert (report.dof, report.rank, report.equations, report.state) == (3, 3, 3, EXACT)


# ------------------------------------------------------------------ a revolution
@pytest.mark.parametrize("method", ["gauss-newton-hybrid", "newton"])
@pytest.mark.parametrize("closure", CLOSURES)
def test_a_driven_revolution_stays_closed_and_on_its_branch(closure: str, method: str) -> None:
    """The crank (held: an input) turned by 1 degree a step through one revolution, each
    solve warm-started from the last: the loop closes within 1e-6 of the linkage's size,
    every goal is met, and no joint moves more than the crank step times the largest
    transmission ratio of the closed form (a branch change would move the coupler and the
    rocker by radians)."""
    linkage = four_bar(closure=closure, crank_rigidity=1.0)
    size = linkage.size
    ratio = transmission(linkage)
    assert 1.0 < ratio < 3.0  # the crank itself moves at ratio 1
    solver = Solver(
        linkage.figure, [linkage.closure], method=method, tolerance=1e-6 * size, time_limit=None
    )
    step = 2.0 * math.pi / STEPS
    q = linkage.coords(0.0)
    for k in range(1, STEPS + 1):
        start = q.copy()
        start[0] = k * step
        result = solver.solve(start)
        assert result.success, (k, result.message)
        assert linkage.closure_residual(result.x) <= 1e-6 * size, k
        assert np.abs(wrapped(result.x - q)).max() <= 1.05 * step * ratio, k
        assert np.abs(wrapped(result.x - linkage.coords(k * step))).max() < 1e-4, k
        q = result.x


# ------------------------------------------------------------------ Newton-Raphson
@pytest.mark.parametrize("closure", CLOSURES)
def test_newton_converges_quadratically_on_the_exactly_constrained_loop(closure: str) -> None:
    """From a start 0.06-0.08 rad off the closed form: at most 4 iterations to 1e-10 of the
    size, each residual at most 2 |F|^2 / size (quadratic convergence; a linearly convergent
    method such as ``"jt"`` keeps a fixed ratio)."""
    linkage = four_bar(closure=closure, crank_rigidity=1.0)
    size = linkage.size
    start = linkage.coords(0.9) + np.array([0.0, 0.08, -0.06])
    iterates = Recorder()
    result = Solver(
        linkage.figure,
        [linkage.closure],
        method="newton",
        tolerance=1e-10 * size,
        restarts=0,
        time_limit=None,
    ).solve(start, callback=iterates)
    assert result.success and result.nit <= 4
    residual = np.sqrt(iterates.fs)  # G = |F|^2 (weight 1)
    assert residual[0] > 0.05
    for before, after in itertools.pairwise(residual):
        assert after <= 2.0 * before**2 / size, residual
    assert np.abs(wrapped(result.x - linkage.coords(0.9))).max() < 1e-9
