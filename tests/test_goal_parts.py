"""Goals and the problem talk through typed parts (:class:`solver.goals.Part`), never string
keys: every vector and derivative block of every goal kind, carried or not, names its part."""

import numpy as np
import pytest

from solver import Constraint
from solver.assembly.problem import Problem
from solver.goals import Part
from tests.solver_checks import FigureCase, random_effector, random_goal, spatial_arm

KINDS = ["position", "orientation", "position_orientation", "aim", "line", "plane",
         "half_space", "disjunction"]  # fmt: skip


@pytest.mark.parametrize("carrier", [None, "upper"])
@pytest.mark.parametrize("kind", KINDS)
def test_every_block_is_keyed_by_a_part(kind: str, carrier: str | None) -> None:
    rng = np.random.default_rng([3, KINDS.index(kind)])
    fig = spatial_arm()
    case = FigureCase(fig, {"upper": None, "lower": "upper", "hand": "lower"})
    coords = rng.uniform(-1.0, 1.0, len(fig.coordinate_names))
    effector = random_effector(rng, "hand")
    goal = random_goal(rng, kind, case, effector, coords, carrier)
    problem = Problem(fig, [Constraint(effector, goal)], coords)  # type: ignore[arg-type]
    (term,) = problem.evaluate(problem.from_coordinates(coords)).terms
    parts = [part for part, _ in term.blocks]
    assert parts and all(isinstance(part, Part) for part in parts)
    assert all(isinstance(p, Part) for p in [*term.effector, *term.geometry, *goal.needs])
    goal_parts = {part for part in parts if part.value.startswith("goal ")}
    assert goal_parts  # every goal kind's residual depends on its own target
    assert goal_parts <= set(term.goal.geometry_parts)
