"""Analytic gradients (eqs. 3-4, 7-21, 24-27) against central differences.

Every goal type is checked on random trees for every joint kind (revolute,
prismatic, grouped), with segments that do not inherit rotation, with goals carried
by segments and with disjunctions; the
assembled sum (eq. 25), rigidity scaling (§11) and joint groups flow through
the same check.
"""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solver import Constraint, Figure, PositionGoal, Solver
from solver.assembly.problem import Problem
from tests.solver_checks import (
    GOAL_TYPES,
    JOINT_KINDS,
    FigureCase,
    central_difference,
    figure_cases,
    gradient_error,
    problem_at,
    random_effector,
    random_goal,
    random_rotation,
    random_unit,
)

EXAMPLES = settings(max_examples=25, deadline=None)


def _descendants(case: FigureCase, segment: str) -> list[str]:
    return [s for s in case.parents if segment in case.ancestors(s)]


def _joints_of_kind(case: FigureCase, kind: str) -> list[str]:
    if kind == "grouped":
        return list(case.grouped)
    return [j for j, k in case.kinds.items() if k == kind and j not in case.grouped]


def _segment_of(joint: str) -> str:
    return joint.split(".")[0]


@st.composite
def single_constraint_cases(draw: st.DrawFn, goal_type: str, joint_kind: str):
    """A figure, one constraint moved by a joint of ``joint_kind``, and coordinates."""
    case = draw(figure_cases(require_kind=joint_kind, hinges=draw(st.booleans())))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    joints = _joints_of_kind(case, joint_kind)
    host = _segment_of(draw(st.sampled_from(joints)))
    segment = draw(st.sampled_from(_descendants(case, host)))
    carrier = draw(st.sampled_from([None, *case.parents]))
    chain_root = draw(st.sampled_from([None, host]))
    coords = rng.uniform(-1.0, 1.0, len(case.figure.coordinate_names))
    effector = random_effector(rng, segment)
    goal = random_goal(rng, goal_type, case, effector, coords, carrier)
    weight = float(rng.uniform(0.1, 5.0))
    constraint = Constraint(effector, goal, weight=weight, chain_root=chain_root, name="c")
    return case, constraint, coords


@pytest.mark.parametrize("joint_kind", JOINT_KINDS)
@pytest.mark.parametrize("goal_type", GOAL_TYPES)
@EXAMPLES
@given(data=st.data())
def test_gradient_matches_central_differences(goal_type: str, joint_kind: str, data) -> None:
    case, constraint, coords = data.draw(single_constraint_cases(goal_type, joint_kind))
    problem = problem_at(case.figure, [constraint], coords)
    y = problem.from_coordinates(coords)
    error, allowed = gradient_error(problem, y)
    assert error <= allowed, f"{goal_type}/{joint_kind}: |g - fd| = {error:.3e} > {allowed:.3e}"


@st.composite
def multi_constraint_cases(draw: st.DrawFn):
    """A figure with random rigidities and 2-4 weighted constraints of any type."""
    case = draw(figure_cases(max_segments=6, hinges=draw(st.booleans())))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    fig = case.figure
    for name in fig.coordinate_names:
        if draw(st.booleans()):
            fig.set_rigidity(name, float(rng.uniform(0.0, 0.9)))
    coords = rng.uniform(-1.0, 1.0, len(fig.coordinate_names))
    constraints = []
    for i in range(draw(st.integers(2, 4))):
        segment = draw(st.sampled_from(list(case.parents)))
        carrier = draw(st.sampled_from([None, *case.parents]))
        chain_root = draw(st.sampled_from([None, *case.ancestors(segment)]))
        effector = random_effector(rng, segment)
        goal = random_goal(rng, draw(st.sampled_from(GOAL_TYPES)), case, effector, coords, carrier)
        weight = float(rng.uniform(0.1, 5.0))
        constraints.append(Constraint(effector, goal, weight, chain_root, name=f"c{i}"))
    return case, constraints, coords


@settings(max_examples=40, deadline=None)
@given(multi_constraint_cases())
def test_assembled_gradient_with_rigidities(args) -> None:
    case, constraints, coords = args
    problem = problem_at(case.figure, constraints, coords)
    y = problem.from_coordinates(coords)
    error, allowed = gradient_error(problem, y)
    assert error <= allowed, f"|g - fd| = {error:.3e} > {allowed:.3e}"


@settings(max_examples=30, deadline=None)
@given(multi_constraint_cases())
def test_objective_is_weighted_sum_of_constraints(args) -> None:
    """Eq. (25): the objective is the sum of each constraint's weighted potential."""
    case, constraints, coords = args
    total = problem_at(case.figure, constraints, coords)
    parts = [problem_at(case.figure, [c], coords) for c in constraints]
    expected = sum(p.value(p.from_coordinates(coords)) for p in parts)
    got = total.value(total.from_coordinates(coords))
    assert np.isclose(got, expected, rtol=1e-10, atol=1e-12)


def test_a_problem_without_variables_evaluates() -> None:
    """Every joint locked: the objective is still the weighted sum and the gradient empty."""
    from solver import EndEffector

    fig = Figure()
    fig.add_segment("s0")
    fig.add_revolute("s0", "z", -1.0, 1.0, rigidity=1.0, name="locked")
    fig.add_segment("s1", "s0", (1.0, 0.0, 0.0))
    c = Constraint(EndEffector("s1"), PositionGoal((0.0, 2.0, 0.0)), weight=3.0)
    problem = problem_at(fig, [c], np.array([0.5]))
    e = problem.evaluate(np.zeros(0))
    tip = np.array([np.cos(0.5), np.sin(0.5), 0.0])
    assert e.g.shape == (0,)
    assert np.isclose(e.f, 3.0 * float((tip - (0.0, 2.0, 0.0)) @ (tip - (0.0, 2.0, 0.0))))


def _unscaled_twin(fig: Figure) -> Figure:
    """The same tree and joints with every rigidity zero."""
    twin = Figure()
    for seg in fig.segments:
        parent = None if seg.parent < 0 else fig.segments[seg.parent].name
        twin.add_segment(
            seg.name, parent, seg.translation, seg.rotation, inherit_rotation=seg.inherit_rotation
        )
    for joint in fig.joints:
        add = twin.add_revolute if joint.kind == 0 else twin.add_prismatic
        add(fig.segments[joint.segment].name, joint.axis, joint.lower, joint.upper, name=joint.name)
    for group in fig.groups:
        names = [fig.joints[j].name for j in group.joints]
        twin.add_group(group.name, names, group.matrix, group.lower, group.upper)
    return twin


@settings(max_examples=30, deadline=None)
@given(multi_constraint_cases())
def test_rigidity_changes_units_not_the_objective(args) -> None:
    """§11: rigidity rescales the variables; the objective at a pose is unchanged."""
    case, constraints, coords = args
    stiff = problem_at(case.figure, constraints, coords)
    free = problem_at(_unscaled_twin(case.figure), constraints, coords)
    y = stiff.from_coordinates(coords)
    assert np.allclose(stiff.to_coordinates(y), coords, atol=1e-12)
    assert np.isclose(stiff.value(y), free.value(free.from_coordinates(coords)), rtol=1e-10)
    # The same pose, so the same objective; the gradients differ by the units.
    _, g_stiff = stiff.value_and_gradient(y)
    _, g_free = free.value_and_gradient(free.from_coordinates(coords))
    unit = stiff.to_coordinates(y + 1.0) - stiff.to_coordinates(y)  # d coords / d y
    moved = unit != 0.0
    assert np.allclose(
        g_stiff,
        g_free * unit[moved],
        rtol=1e-9,
        atol=1e-9 * (1 + np.max(np.abs(g_free), initial=0.0)),
    )


def _one_joint_figure(rigidity: float) -> Figure:
    fig = Figure()
    fig.add_segment("base")
    fig.add_revolute("base", (0, 0, 1), rigidity=rigidity, name="hinge")
    return fig


def test_rigidity_scale_decreases_from_one() -> None:
    """The change of units is the identity at rigidity 0 and shrinks as it grows."""
    from solver import EndEffector

    scales = []
    for rigidity in (0.0, 0.25, 0.5, 0.75, 0.95):
        fig = _one_joint_figure(rigidity)
        c = Constraint(EndEffector("base", (1, 0, 0)), PositionGoal((0, 1, 0)))
        problem = Solver(fig, [c]).problem
        assert problem.n == 1
        step = problem.to_coordinates(np.ones(1)) - problem.to_coordinates(np.zeros(1))
        scales.append(float(step[0]))
    assert scales[0] == pytest.approx(1.0)
    assert all(a > b > 0.0 for a, b in itertools.pairwise(scales))


@settings(max_examples=30, deadline=None)
@given(figure_cases(require_kind="grouped"), st.integers(0, 2**32 - 1))
def test_group_parameters_drive_joint_values(case: FigureCase, seed: int) -> None:
    """q[joints] = matrix @ params, and the grouped objective is the twin's at q."""
    rng = np.random.default_rng(seed)
    fig = case.figure
    coords = rng.uniform(-1.0, 1.0, len(fig.coordinate_names))
    q = fig.joint_values(coords)
    group = fig.groups[0]
    first = fig.coordinate_names.index(f"{group.name}[0]")
    params = coords[first : first + group.matrix.shape[1]]
    assert np.allclose(q[group.joints], group.matrix @ params, atol=1e-12)

    twin = Figure()
    for seg in fig.segments:
        parent = None if seg.parent < 0 else fig.segments[seg.parent].name
        twin.add_segment(
            seg.name, parent, seg.translation, seg.rotation, inherit_rotation=seg.inherit_rotation
        )
    for joint in fig.joints:
        add = twin.add_revolute if joint.kind == 0 else twin.add_prismatic
        add(fig.segments[joint.segment].name, joint.axis, name=joint.name)
    twin_coords = np.array([q[fig.joint_names.index(name)] for name in twin.coordinate_names])
    frames, twin_frames = fig.forward(coords), twin.forward(twin_coords)
    for name in fig.segment_names:
        assert np.allclose(frames[name], twin_frames[name], atol=1e-12)


def assert_term_jacobians(
    figure: Figure, constraints: list[Constraint], coords: np.ndarray
) -> None:
    """Every single-goal term's Jacobian against central differences of its residual, at a
    problem's first evaluation (derivative blocks multiplied one by one) and again at the
    same point (constant blocks stacked once; a position goal's identity skipped)."""
    problem = Problem(figure, constraints, coords)  # fresh: no evaluation yet
    y = problem.from_coordinates(coords)
    first = problem.evaluate(y)
    again = problem.evaluate(y)
    for k, term in enumerate(problem.terms):
        assert np.allclose(first.terms[k].jacobian, again.terms[k].jacobian, rtol=1e-12, atol=1e-14)
        if len(term.members) > 1:
            continue  # the closest member may change within a difference step
        rows = len(first.terms[k].residual)
        numeric = np.array(
            [
                central_difference(
                    lambda yy, k=k, i=i: problem.evaluate(yy).terms[k].residual[i], y
                )
                for i in range(rows)
            ]
        ).reshape(rows, len(y))
        jacobian = first.terms[k].jacobian
        scale = max(np.max(np.abs(jacobian), initial=0.0), 1.0)
        assert np.allclose(jacobian, numeric, atol=1e-6 * scale), f"term {k}"
    stacked = np.concatenate([t.jacobian for t in again.terms])
    assert np.array_equal(again.jacobian, stacked)


@settings(max_examples=30, deadline=None)
@given(multi_constraint_cases())
def test_each_term_jacobian_matches_central_differences(args) -> None:
    """See :func:`assert_term_jacobians`."""
    case, constraints, coords = args
    assert_term_jacobians(case.figure, constraints, coords)


@st.composite
def loop_cases(draw: st.DrawFn, goal_type: str):
    """A loop constraint: a random tree with two new branches ``side_a`` and ``side_b``
    (each with its own revolute or prismatic joint, hung from random segments), the
    effector on ``side_a`` and a goal of ``goal_type`` carried by ``side_b``, so both sides
    of the loop move (and the joints they share, when they hang from one chain)."""
    case = draw(figure_cases(max_segments=4, hinges=draw(st.booleans())))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    fig = case.figure
    for side in ("side_a", "side_b"):
        parent = draw(st.sampled_from(list(case.parents)))
        fig.add_segment(side, parent, rng.normal(0.0, 0.4, 3), rotation=random_rotation(rng))
        case.parents[side] = parent
        kind = draw(st.sampled_from(("revolute", "prismatic")))
        add = fig.add_revolute if kind == "revolute" else fig.add_prismatic
        case.kinds[add(side, random_unit(rng), name=f"{side}.j")] = kind
    coords = rng.uniform(-1.0, 1.0, len(fig.coordinate_names))
    effector = random_effector(rng, "side_a")
    goal = random_goal(rng, goal_type, case, effector, coords, "side_b")
    weight = float(rng.uniform(0.1, 5.0))
    return case, [Constraint(effector, goal, weight, name="loop")], coords


@pytest.mark.parametrize("goal_type", GOAL_TYPES)
@EXAMPLES
@given(data=st.data())
def test_loop_constraint_jacobian_matches_central_differences(goal_type: str, data) -> None:
    """A goal carried by a moving segment of the same figure (a closed loop, seed 003's
    four-bar in general): both sides' joints are variables and the analytic Jacobian and
    gradient match central differences, for every goal kind a segment can carry."""
    case, constraints, coords = data.draw(loop_cases(goal_type))
    problem = problem_at(case.figure, constraints, coords)
    names = problem.figure.coordinate_names
    moved = {names[i] for i in problem.variables}
    assert {"side_a.j", "side_b.j"} <= moved  # both sides of the loop are solved for
    error, allowed = gradient_error(problem, problem.from_coordinates(coords))
    assert error <= allowed, f"{goal_type}: |g - fd| = {error:.3e} > {allowed:.3e}"
    assert_term_jacobians(case.figure, constraints, coords)
