"""``max_change``: the box rows of one solve around its start
(:mod:`solver.assembly.step_bound`)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solver import Constraint, EndEffector, Figure, InvalidInputError, PositionGoal, Solver
from solver.assembly.problem import Problem
from solver.assembly.scale import ScaledProblem
from solver.assembly.step_bound import LABEL, bounded, change_limits, held, per_kind
from solver.methods import METHODS
from solver.model.figure import project_feasible
from solver.search.restarts import StartSampler
from tests.solver_checks import figure_cases, spatial_arm


def slider_arm(length: float = 1.0) -> Figure:
    """A hinge ``turn`` about z at the root, then a slide ``reach`` along the arm (x)."""
    fig = Figure()
    fig.add_segment("base")
    fig.add_revolute("base", "z", -3.0, 3.0, name="turn")
    fig.add_segment("arm", parent="base", translation=(length, 0.0, 0.0))
    fig.add_prismatic("arm", "x", -2.0 * length, 2.0 * length, name="reach")
    return fig


def tip(fig: Figure, coords: np.ndarray) -> np.ndarray:
    return fig.forward(coords)["arm"][:3, 3]


def tip_constraint(target: object) -> list[Constraint]:
    return [Constraint(EndEffector("arm"), PositionGoal(target), name="tip")]


@pytest.mark.parametrize("length", [1.0, 100.0, 1e-3])
def test_the_limits_in_scaled_variables_bound_the_coordinates(length: float) -> None:
    """Closed form: ``z_i`` may move ``max_change / ((1 - rigidity_i) * unit_i)``, with
    ``unit`` the characteristic length for the slide and 1 for the hinge."""
    fig = slider_arm(length)
    fig.set_rigidity("turn", 0.5)
    fig.set_rigidity("reach", 0.75)
    constraints = tip_constraint((0.0, length, 0.0))
    problem = Problem(fig, constraints, fig.neutral())
    scaled = ScaledProblem(problem, length)
    limits = change_limits(scaled, 0.1)
    assert limits == pytest.approx([0.1 / 0.5, 0.1 / (0.25 * length)])


@pytest.mark.parametrize("length", [1.0, 100.0, 1e-3])
def test_a_far_target_moves_each_coordinate_by_the_bound_exactly(length: float) -> None:
    """The target is out of reach in one step: the hinge turns by ``bound`` radians and the
    slide moves ``bound`` scene units (not ``bound * L``), whatever the rigidity (the bound
    is on coordinates, not on ``y``)."""
    fig = slider_arm(length)
    fig.set_rigidity("turn", 0.5)
    target = (0.0, 3.0 * length, 0.0)
    bound = 0.2 * min(length, 1.0)  # within the slide's travel of +-2 L
    ik = Solver(fig, tip_constraint(target), max_change=bound)
    result = ik.solve(fig.neutral())
    assert not result.success
    assert np.abs(result.x) == pytest.approx([bound, bound], rel=1e-9)
    assert held(fig.neutral(), result.x, bound)
    assert sum(label.endswith(LABEL) for label in result.active_set) == 2


def test_a_bound_the_answer_stays_within_changes_nothing() -> None:
    fig = spatial_arm()
    target = (1.2, 0.6, 0.4)
    free = Solver(fig, tip_constraint_hand(target)).solve(fig.neutral())
    wide = float(np.abs(free.x - fig.neutral()).max()) + 0.1
    result = Solver(fig, tip_constraint_hand(target), max_change=wide).solve(fig.neutral())
    assert free.success and result.success
    assert result.x == pytest.approx(free.x, abs=1e-9)
    assert not held(fig.neutral(), result.x, wide)


def tip_constraint_hand(target: object) -> list[Constraint]:
    return [Constraint(EndEffector("hand", (1.0, 0.0, 0.0)), PositionGoal(target), name="tip")]


@pytest.mark.parametrize("method", METHODS)
def test_every_method_keeps_every_coordinate_within_the_bound(method: str) -> None:
    fig = spatial_arm()
    start = np.array([0.3, -0.2, 0.1, 0.5, 0.0, 0.2, -0.1])
    for target in ((-1.0, 1.0, 0.5), (0.2, -1.5, -0.8), (-1.9, 0.1, 0.0)):
        ik = Solver(fig, tip_constraint_hand(target), method=method, max_change=0.05)
        result = ik.solve(start)
        assert np.abs(result.x - start).max() <= 0.05 * (1.0 + 1e-9)
        assert held(start, result.x, 0.05)


def test_a_side_the_joint_limit_already_bounds_gets_no_row() -> None:
    """The hinge starts 0.05 below its upper limit 3.0: with a bound of 0.1 only its lower
    side gets a row; the slide (travel +-2) gets both."""
    fig = slider_arm()
    start = np.array([2.95, 0.0])
    problem = Problem(fig, tip_constraint((0.0, 1.0, 0.0)), start)
    scaled = ScaledProblem(problem, 1.0)
    z0 = scaled.from_y(problem.from_coordinates(start))
    rows = bounded(scaled, z0, 0.1).system
    added = [label for label in rows.labels if label.endswith(LABEL)]
    assert added == ["turn change <= 0.1 (max_change)"] + ["reach change <= 0.1 (max_change)"] * 2
    new = rows.A[len(scaled.system.labels) :]
    assert new == pytest.approx(np.array([[-1.0, 0.0], [0.0, 1.0], [0.0, -1.0]]))
    assert len(scaled.system.labels) + 3 == len(rows.labels)  # the original is unchanged


def test_restart_starts_are_projected_into_the_bound() -> None:
    """Every start the restarts try, near or anywhere within the limits, lies in the box."""
    fig = spatial_arm()
    start = np.array([0.3, -0.2, 0.1, 0.5, 0.0, 0.2, -0.1])
    problem = Problem(fig, tip_constraint_hand((0.5, 0.5, 0.5)), start)
    scaled = ScaledProblem(problem, 2.0)
    z0 = scaled.from_y(problem.from_coordinates(start))
    box = bounded(scaled, z0, 0.05)
    sampler = StartSampler(box, z0, seed=3)
    starts = [sampler.nudge(z0)] + [sampler.next() for _ in range(20)]
    for z in starts:
        coords = problem.to_coordinates(scaled.to_y(z))
        assert np.abs(coords - start).max() <= 0.05 + 1e-9


def test_held_compares_the_largest_change_with_the_bound() -> None:
    start = np.array([0.0, 1.0])
    assert held(start, np.array([0.1, 1.0]), 0.1)
    assert held(start, np.array([0.0, 1.0 - 0.1 * (1.0 - 1e-9)]), 0.1)
    assert not held(start, np.array([0.09, 1.05]), 0.1)
    assert not held(start, np.array([5.0, 1.0]), None)


def test_one_bound_per_coordinate_an_angle_and_a_distance() -> None:
    """``per_kind``: the hinge gets the angle, the slide the distance; the far target then
    turns the hinge by 0.1 rad and slides by 0.3 scene units, exactly."""
    fig = slider_arm()
    bounds = per_kind(fig, 0.1, 0.3)
    assert bounds == pytest.approx([0.1, 0.3])
    result = Solver(fig, tip_constraint((0.0, 3.0, 0.0)), max_change=bounds).solve(fig.neutral())
    assert np.abs(result.x) == pytest.approx([0.1, 0.3], rel=1e-9)
    assert held(fig.neutral(), result.x, bounds)
    assert not held(fig.neutral(), np.array([0.1, 0.2]) * 0.9, bounds)
    assert "reach change <= 0.3 (max_change)" in result.active_set


def test_a_bound_per_coordinate_must_match_the_figure() -> None:
    ik = Solver(slider_arm(), tip_constraint((0.0, 1.0, 0.0)), max_change=np.array([0.1] * 3))
    with pytest.raises(InvalidInputError, match=r"max_change must have one bound per coordinate"):
        ik.solve()


@pytest.mark.parametrize(
    "value",
    [0.0, -0.1, float("nan"), float("inf"), "0.1", True, [0.1, -0.1], [[0.1, 0.1]], [0.1, None]],
)
def test_a_bad_max_change_is_named(value: object) -> None:
    with pytest.raises(InvalidInputError, match="max_change"):
        Solver(slider_arm(), tip_constraint((0.0, 1.0, 0.0)), max_change=value)  # type: ignore[arg-type]


def test_the_analytic_start_is_taken_within_the_bound() -> None:
    """The two-bone analytic start (a pose far from the start) is projected onto the bound
    as well: the answer moves no coordinate by more than it."""
    fig = spatial_arm(wrist=False)
    start = np.array([0.3, -0.2, 0.1, 0.5])
    target = (-1.0, 1.0, 0.5)
    free = Solver(fig, tip_constraint_hand(target), analytic_start=True).solve(start)
    assert np.abs(free.x - start).max() > 0.5
    ik = Solver(fig, tip_constraint_hand(target), analytic_start=True, max_change=0.05)
    result = ik.solve(start)
    assert np.abs(result.x - start).max() <= 0.05 * (1.0 + 1e-9)


@settings(max_examples=25)
@given(case=figure_cases(limits=True), data=st.data())
def test_random_figures_keep_every_coordinate_within_per_kind_bounds(
    case: object, data: st.DataObject
) -> None:
    """Random trees with revolute, prismatic and grouped joints, random rigidity and a far
    target: the answer moves no coordinate by more than its bound (0.05 rad, 0.02 scene
    units), for every method."""
    fig = case.figure  # type: ignore[attr-defined]
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    for name in fig.coordinate_names:
        fig.set_rigidity(name, float(rng.choice([0.0, 0.3, 0.8])))
    leaf = fig.segment_names[-1]
    target = rng.normal(0.0, 2.0, 3)
    bounds = per_kind(fig, 0.05, 0.02)
    start = project_feasible(fig, rng.uniform(-0.2, 0.2, len(fig.coordinate_names)))
    method = data.draw(st.sampled_from(METHODS))
    constraint = Constraint(EndEffector(leaf, (0.1, 0.0, 0.0)), PositionGoal(target))
    ik = Solver(fig, [constraint], method=method, max_change=bounds, time_limit=None)
    result = ik.solve(start)
    assert np.all(np.abs(result.x - start) <= bounds * (1.0 + 1e-9) + 1e-12)
