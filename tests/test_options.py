"""Solver options: one frozen, validated value; a per-solve change is an argument."""

import dataclasses
import inspect

import numpy as np
import pytest

from solver import (
    Constraint,
    EndEffector,
    FrozenError,
    InvalidInputError,
    Options,
    PositionGoal,
    Solver,
    solve,
)
from solver.methods import MethodOptions, make_method
from solver.options import NAMES
from tests.solver_checks import planar_arm

#: A reachable target off the arm's start: the default solve takes several iterations.
TARGET = (0.6, 1.2, 0.0)
START = np.array([0.1, 0.2])


def reach(**options: object) -> Solver:
    """A planar arm's hand to :data:`TARGET`, one local run, no time limit."""
    constraint = Constraint(EndEffector("lower", (1.0, 0.0, 0.0)), PositionGoal(TARGET))
    return Solver(planar_arm(), [constraint], restarts=0, time_limit=None, **options)


@pytest.mark.parametrize(
    ("name", "value"),
    [("max_iterations", 1), ("method", "ccd"), ("restarts", -5), ("time_limit", 0.01),
     ("max_change", 0.1), ("tolerance", 1.0), ("options", Options())],
)  # fmt: skip
def test_an_option_assigned_after_construction_is_refused(name: str, value: object) -> None:
    """Assigning ``max_iterations = 1`` used to be accepted and ignored (8 iterations ran),
    ``method = "ccd"`` ran the projected optimiser and reported "ccd"."""
    ik = reach()
    with pytest.raises(FrozenError, match=f"{name}.*options.replace"):
        setattr(ik, name, value)
    assert ik.options.max_iterations == 200 and ik.options.method == "gauss-newton-hybrid"
    assert ik.solve(START).nit > 1


def test_a_negative_restart_count_is_refused_everywhere() -> None:
    with pytest.raises(InvalidInputError, match="restarts"):
        reach().options.replace(restarts=-5)
    with pytest.raises(InvalidInputError, match="restarts"):
        Options(restarts=-5)
    with pytest.raises(InvalidInputError, match="restarts"):
        Solver(planar_arm(), [Constraint(EndEffector("lower"), PositionGoal(TARGET))], restarts=-5)


def test_options_are_frozen_and_replace_validates_again() -> None:
    options = Options(max_iterations=7)
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.max_iterations = 1  # type: ignore[misc]
    changed = options.replace(time_limit=0.5)
    assert (changed.max_iterations, changed.time_limit, options.time_limit) == (7, 0.5, 1.0)
    with pytest.raises(InvalidInputError, match="time_limit"):
        options.replace(time_limit=-1.0)
    with pytest.raises(TypeError, match="restart"):
        options.replace(restart=3)


def test_a_per_solve_override_takes_effect_for_that_solve_only() -> None:
    ik = reach()
    once = ik.solve(START, options=ik.options.replace(max_iterations=1))
    assert once.nit == 1
    assert ik.options.max_iterations == 200
    assert ik.solve(START).nit > 1


def test_a_per_solve_method_runs_that_method() -> None:
    """The override builds its own run: the answer is the named method's, bit for bit."""
    ik = reach()
    overridden = ik.solve(START, options=ik.options.replace(method="ccd", max_iterations=5))
    own = reach(method="ccd", max_iterations=5).solve(START)
    assert np.array_equal(overridden.x, own.x) and overridden.nit == own.nit == 5
    assert not np.array_equal(ik.solve(START).x, own.x)


def test_a_method_object_is_accepted_and_run() -> None:
    runs = []
    ccd = make_method("ccd", MethodOptions(max_iterations=5))

    class Counted:
        def run(self, problem, z0, callback, deadline):
            runs.append(z0)
            return ccd.run(problem, z0, callback, deadline)

    result = reach(method=Counted()).solve(START)
    assert len(runs) == 1
    assert np.array_equal(result.x, reach(method="ccd", max_iterations=5).solve(START).x)
    assert reach(method=Counted()).options.method_name == "Counted"
    with pytest.raises(InvalidInputError, match="method"):
        reach(method=object())


def test_solve_keywords_and_solver_keywords_are_the_option_fields() -> None:
    """One declaration: the options' fields; an unknown keyword is a TypeError naming it."""
    assert set(NAMES) == {f.name for f in dataclasses.fields(Options)}
    keywords = inspect.signature(solve).parameters["options"]
    assert keywords.kind == inspect.Parameter.VAR_KEYWORD
    constraint = Constraint(EndEffector("lower"), PositionGoal(TARGET))
    with pytest.raises(TypeError, match="restart"):
        solve(planar_arm(), [constraint], restart=3)
    with pytest.raises(TypeError, match="restart"):
        Solver(planar_arm(), [constraint], restart=3)
    with pytest.raises(InvalidInputError, match="options"):
        reach().solve(START, options={"max_iterations": 1})  # type: ignore[arg-type]


def test_an_options_value_and_keywords_combine() -> None:
    constraint = Constraint(EndEffector("lower"), PositionGoal(TARGET))
    ik = Solver(planar_arm(), [constraint], Options(max_iterations=3), restarts=0)
    assert (ik.options.max_iterations, ik.options.restarts) == (3, 0)
