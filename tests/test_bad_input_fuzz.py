"""Fuzz every public entry with arbitrary values: it accepts them or raises a ReachError.

Never a raw numpy or builtin exception (TypeError, IndexError, a numpy ValueError):
whatever a user passes, the error is ours and names the argument.
"""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import solver
from tests.test_bad_input import arm, tip

SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.floats(allow_nan=True, allow_infinity=True),
    st.complex_numbers(max_magnitude=2.0),
    st.text(max_size=3),
    st.sampled_from(["x", "-y", "hinge", "elbow", "lower"]),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.text(max_size=2), inner, max_size=2),
    ),
    max_leaves=10,
)
FLOATS = st.floats(allow_nan=True, allow_infinity=True)
ARRAYS = st.sampled_from([(3,), (4,), (3, 3), (4, 4), (2, 1), (0,)]).flatmap(
    lambda shape: st.lists(FLOATS, min_size=int(np.prod(shape)), max_size=int(np.prod(shape))).map(
        lambda values, shape=shape: np.array(values, dtype=float).reshape(shape)
    )
)

ENTRIES = {
    "add_segment translation": lambda v: arm().add_segment("s", "lower", translation=v),
    "add_segment rotation": lambda v: arm().add_segment("s", "lower", rotation=v),
    "add_segment quaternion": lambda v: arm().add_segment("s", "lower", quaternion=v),
    "add_segment rpy": lambda v: arm().add_segment("s", "lower", rpy=v),
    "add_segment parent": lambda v: arm().add_segment("s", v),
    "add_revolute axis": lambda v: arm().add_revolute("lower", v),
    "add_revolute limits": lambda v: arm().add_revolute("lower", "x", v, v),
    "add_prismatic rigidity": lambda v: arm().add_prismatic("lower", "x", rigidity=v),
    "add_ball lower": lambda v: arm().add_ball("lower", lower=v),
    "add_group matrix": lambda v: arm().add_group("g", ["hinge", "elbow"], v),
    "add_group joints": lambda v: arm().add_group("g", v, [[1.0]]),
    "add_linear_constraint": lambda v: arm().add_linear_constraint(v, upper=1.0),
    "add_equality value": lambda v: arm().add_equality({"hinge": 1.0}, v),
    "set_limits": lambda v: arm().set_limits("hinge", v, 1.0),
    "set_rigidity name": lambda v: arm().set_rigidity(v, 0.5),
    "set_rest": lambda v: arm().set_rest("lower", translation=v),
    "forward": lambda v: arm().forward(v),
    "EndEffector point": lambda v: solver.EndEffector("lower", v),
    "EndEffector segment": lambda v: solver.EndEffector(v),
    "EndEffector.from_matrix": lambda v: solver.EndEffector.from_matrix("lower", v),
    "Constraint weight": lambda v: tip(weight=v),
    "Constraint chain_root": lambda v: tip(chain_root=v),
    "constraint.weight =": lambda v: setattr(tip(), "weight", v),
    "constraint.enabled =": lambda v: setattr(tip(), "enabled", v),
    "PositionGoal": lambda v: solver.PositionGoal(v),
    "goal.point =": lambda v: setattr(solver.PositionGoal((0, 0, 0)), "point", v),
    "AimGoal degrees": lambda v: solver.AimGoal((1, 0, 0), degrees=v),
    "LineGoal direction": lambda v: solver.LineGoal((0, 0, 0), v),
    "PlaneGoal normal": lambda v: solver.PlaneGoal((0, 0, 0), v),
    "OrientationGoal degrees": lambda v: solver.OrientationGoal(x=(1, 0, 0), degrees=v),
    "OrientationGoal.from_matrix": lambda v: solver.OrientationGoal.from_matrix(v),
    "PositionOrientationGoal weight": lambda v: solver.PositionOrientationGoal(
        (0, 0, 0), x=(1, 0, 0), position_weight=v
    ),
    "set_target": lambda v: solver.PositionOrientationGoal.from_matrix(np.eye(4)).set_target(v),
    "Disjunction": lambda v: solver.Disjunction(v),
    "solve constraints": lambda v: solver.solve(arm(), v, max_iterations=3),
    "solve initial": lambda v: solver.solve(arm(), [tip()], initial=v, max_iterations=3),
    "Solver tolerance": lambda v: solver.Solver(arm(), [tip()], tolerance=v),
    "Solver damping": lambda v: solver.Solver(arm(), [tip()], damping=v),
    "Solver max_iterations": lambda v: solver.Solver(arm(), [tip()], max_iterations=v),
    "Solver method": lambda v: solver.Solver(arm(), [tip()], method=v),
    "Solver time_limit": lambda v: solver.Solver(arm(), [tip()], time_limit=v),
    "Solver restarts": lambda v: solver.Solver(arm(), [tip()], restarts=v),
    "Solver seed": lambda v: solver.Solver(arm(), [tip()], seed=v),
}


@settings(max_examples=300, deadline=None)
@given(entry=st.sampled_from(sorted(ENTRIES)), value=st.one_of(VALUES, ARRAYS))
def test_any_value_is_accepted_or_named(entry: str, value: object) -> None:
    try:
        ENTRIES[entry](value)
    except solver.ReachError:
        pass
