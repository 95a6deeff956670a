"""Batch fuzz (issue 21): the batched kinematics is the single one row by row, and a batch on
random figures holds every joint limit, its verdicts measured apart from the solver."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from solver import Constraint, InvalidInputError
from solver.batch import BatchSolver
from solver.model.kinematics import Kinematics
from solver.model.linear import FEASIBILITY_TOLERANCE
from tests.solver_checks import figure_cases, max_violation, random_effector, random_goal


@settings(max_examples=40, deadline=None)
@given(case=figure_cases(hinges=True, max_segments=6), seed=st.integers(0, 2**32 - 1))
def test_batched_kinematics_is_the_single_pass_row_by_row(case, seed):
    """Frames and Jacobian columns of (B, n_joints) values equal B single passes, bit for
    bit (revolute and prismatic joints, hinges, groups)."""
    fig = case.figure
    kinematics = fig.kinematics
    rng = np.random.default_rng(seed)
    count, n_joints = 4, len(fig.joints)
    q = rng.normal(0.0, 1.0, (count, n_joints))
    segments = rng.integers(0, len(fig.segments), 5)
    points = np.array([True, False, True, True, False])
    joints = np.arange(n_joints)
    carried = kinematics.carried(segments, points, joints, fig.coupling)
    vectors = rng.normal(0.0, 1.0, (count, 5, 3))
    batch = kinematics.forward(q)
    columns = Kinematics.columns(batch, vectors, carried)
    for b in range(count):
        single = kinematics.forward(q[b])
        for name in ("rotations", "origins", "axes", "pivots", "turning", "moving"):
            assert np.array_equal(getattr(batch, name)[b], getattr(single, name)), name
        assert np.array_equal(batch.hinge_origins[b], single.hinge_origins)
        assert np.array_equal(columns[b], Kinematics.columns(single, vectors[b], carried))


KINDS = ("position", "orientation", "position_orientation", "aim")


@settings(max_examples=30, deadline=None)
@given(
    case=figure_cases(limits=True, hinges=True, max_segments=5),
    kind=st.sampled_from(KINDS),
    seed=st.integers(0, 2**32 - 1),
)
def test_a_batch_on_random_figures_holds_every_limit(case, kind, seed):
    fig = case.figure
    rng = np.random.default_rng(seed)
    segment = fig.segments[int(rng.integers(len(fig.segments)))].name
    effector = random_effector(rng, segment)
    lower, upper = fig.coordinate_bounds()
    n = len(lower)
    count = 5
    goals = []
    for _ in range(count):
        coords = rng.uniform(np.maximum(lower, -2.0), np.minimum(upper, 2.0))
        goals.append(random_goal(rng, kind, case, effector, coords, None))
    constraint = Constraint(effector, goals[0], name="c")
    attributes = [p.attribute for p in goals[0].geometry_parts]

    def target(goal, attribute: str) -> np.ndarray:  # a direction the goal suppresses: any
        value = getattr(goal, attribute)
        return rng.normal(0.0, 1.0, 3) if value is None else value

    targets = {"c": {a: np.array([target(g, a) for g in goals]) for a in attributes}}
    # Starts partly outside the limits: moved in first.
    starts = rng.uniform(np.maximum(lower, -3.0) - 0.5, np.minimum(upper, 3.0) + 0.5, (count, n))
    solver = BatchSolver(fig, [constraint], method="dls", time_limit=None, restarts=2)
    try:
        batch = solver.solve(targets, starts)
    except InvalidInputError as error:  # a bounded group couples several variables
        assert "figure: a batch holds joint limits only" in str(error)
        assert case.grouped
        return
    assert (batch.x >= lower).all() and (batch.x <= upper).all()
    for b in range(count):
        assert max_violation(fig, batch.x[b]) <= FEASIBILITY_TOLERANCE
        # Measured apart from the solver: the figure's own forward kinematics.
        frame = fig.forward(batch.x[b])[segment]
        point = frame[:3, :3] @ effector.point + frame[:3, 3]
        if not np.isnan(batch.distance[b, 0]):
            gap = np.linalg.norm(point - targets["c"]["point"][b])
            assert abs(gap - batch.distance[b, 0]) <= 1e-9 * (1.0 + gap)
        if kind == "aim":  # the aimed axis against the way to the target
            axis = frame[:3, :3] @ effector.x
            way = targets["c"]["point"][b] - point
            cosine = axis @ way / (np.linalg.norm(axis) * np.linalg.norm(way))
            angle = np.degrees(np.arccos(np.clip(cosine, -1.0, 1.0)))
            assert abs(angle - batch.angle[b, 0]) <= 1e-5 + 1e-6 * angle
        result = batch[b]
        assert result.success == all(r.satisfied for r in result.residuals)
        assert result.success == (result.unmet == ())
