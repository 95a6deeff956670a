"""Constraints and end-effectors are fixed after construction; goal targets move.

A :class:`Solver` keeps its assembled problem between solves, so anything the
problem was built from must not change under it (a replaced goal was once
silently ignored and the old goal reported as reached).
"""

import numpy as np
import pytest

from solver import (
    Constraint,
    Disjunction,
    EndEffector,
    Figure,
    InvalidInputError,
    OrientationGoal,
    PositionGoal,
    PositionOrientationGoal,
    Solver,
)
from solver.errors import FrozenError
from tests.solver_checks import spatial_arm


def two_link() -> Figure:
    return spatial_arm(2.5, wrist=False)


def reach(goal: object = None, **kwargs: object) -> Constraint:
    goal = goal if goal is not None else PositionGoal((1.0, 1.0, 0.0))
    return Constraint(EndEffector("hand", x=(1, 0, 0), y=(0, 1, 0)), goal, name="reach", **kwargs)


@pytest.mark.parametrize(
    ("attribute", "value"),
    [
        ("goal", PositionGoal((0.0, 1.0, 0.0))),
        ("effector", EndEffector("lower")),
        ("chain_root", "lower"),
        ("name", "other"),
    ],
)
def test_replacing_a_constraint_part_raises_a_clear_error(attribute: str, value: object) -> None:
    c = reach()
    before = getattr(c, attribute)
    with pytest.raises(FrozenError, match=f"reach.*{attribute}"):
        setattr(c, attribute, value)
    assert getattr(c, attribute) is before


def test_frozen_error_is_an_invalid_input_and_an_attribute_error() -> None:
    with pytest.raises(InvalidInputError):
        reach().goal = PositionGoal((0, 0, 0))
    with pytest.raises(AttributeError):
        reach().goal = PositionGoal((0, 0, 0))


@pytest.mark.parametrize("attribute", ["segment", "point", "x", "y"])
def test_end_effector_geometry_is_fixed(attribute: str) -> None:
    effector = EndEffector("hand", (1, 0, 0), x=(1, 0, 0))
    with pytest.raises(FrozenError, match=attribute):
        setattr(effector, attribute, (np.nan, 0.0, 0.0))
    assert np.array_equal(effector.point, (1, 0, 0))


def test_end_effector_arrays_are_read_only() -> None:
    effector = EndEffector("hand", (1, 0, 0))
    with pytest.raises(ValueError):
        effector.point[0] = 5.0


def test_goal_carrier_and_disjunction_members_are_fixed() -> None:
    goal = PositionGoal((0, 0, 0), carrier="upper")
    with pytest.raises(FrozenError, match="carrier"):
        goal.carrier = "lower"
    either = Disjunction([PositionGoal((0, 0, 0)), PositionGoal((1, 0, 0))])
    with pytest.raises(FrozenError, match="Disjunction"):
        either.goals = (PositionGoal((2, 0, 0)),)


@pytest.mark.parametrize("make", [OrientationGoal, PositionOrientationGoal])
def test_a_direction_cannot_be_suppressed_or_added_later(make) -> None:
    goal = make(x=(1, 0, 0)) if make is OrientationGoal else make((1, 0, 0), x=(1, 0, 0))
    with pytest.raises(FrozenError, match="y"):
        goal.y = (0, 1, 0)  # the effector may not have a y: the problem would go stale
    with pytest.raises(FrozenError, match="x"):
        goal.x = None
    goal.x = (0, 1, 0)  # retargeting a present direction is fine
    assert np.allclose(goal.x, (0, 1, 0))


def _tip(fig: Figure, coords: np.ndarray) -> np.ndarray:
    return fig.forward(coords)["hand"][:3, 3]


def test_the_solver_keeps_its_own_unchangeable_constraint_list() -> None:
    constraints = [reach()]
    solver = Solver(two_link(), constraints)
    constraints.append(reach(PositionGoal((0.0, 0.0, 2.0))))  # the caller's list is theirs
    assert len(solver.constraints) == 1
    with pytest.raises(AttributeError):
        solver.constraints.append(reach())  # type: ignore[attr-defined]


def test_retargeting_between_solves_is_honoured_and_warm_started() -> None:
    fig = two_link()
    goal = PositionGoal((1.0, 1.0, 0.0))
    solver = Solver(fig, [reach(goal)])
    first = solver.solve()
    assert first.success
    problem = solver.problem
    goal.point = (0.5, 0.5, 1.0)
    starts: list[np.ndarray] = []
    second = solver.solve(callback=lambda x, f: starts.append(x))
    assert solver.problem is problem, "a retarget must not rebuild the problem"
    assert np.array_equal(starts[0], first.x), "not warm-started"
    assert second.success
    assert np.allclose(_tip(fig, second.x), (0.5, 0.5, 1.0), atol=1e-5)


def test_reweighting_between_solves_is_honoured() -> None:
    """Two goals pull apart; raising one weight moves the answer towards it."""
    fig = two_link()
    a = Constraint(EndEffector("hand"), PositionGoal((2.5, 0.0, 0.0)), name="a")
    b = Constraint(EndEffector("hand"), PositionGoal((-2.5, 0.0, 0.0)), name="b")
    solver = Solver(fig, [a, b])
    solver.solve(initial=[0.0, 0.0, 0.3, 0.3])
    a.weight = 100.0
    heavy = solver.solve(initial=[0.0, 0.0, 0.3, 0.3])
    assert _tip(fig, heavy.x)[0] > 1.5
