"""The batched solver (issue 21): results as single ``"dls"`` solves, statuses, restarts,
determinism and bad input."""

import importlib

import numpy as np
import pytest

from solver import (
    AimGoal,
    Constraint,
    EndEffector,
    Figure,
    InvalidInputError,
    OrientationGoal,
    PlaneGoal,
    PositionGoal,
    PositionOrientationGoal,
    Solver,
    Status,
)
from solver.batch import BatchSolver, dls, search, solve_batch
from solver.methods import dls as dls_method
from tests.solver_checks import random_rotation, spatial_arm

solve_module = importlib.import_module("solver.solve")  # the module (solver.solve is a function)

#: Options shared by the batch and the single solves it is compared with: no time limit, so
#: neither search is cut by the clock.
OPTIONS = {"method": "dls", "time_limit": None, "restarts": 8}


def _arm() -> tuple:
    fig = spatial_arm(limit=2.0)
    effector = EndEffector("hand", point=(0.5, 0.0, 0.0), x=(1, 0, 0), y=(0, 1, 0))
    goal = PositionOrientationGoal((1.0, 1.0, 0.0), x=(1, 0, 0), y=(0, 1, 0))
    return fig, Constraint(effector, goal, name="tip")


def _poses(fig, rng: np.random.Generator, count: int, far: int = 0) -> np.ndarray:
    """``count`` reachable hand poses (forward kinematics of in-limit angles); the last
    ``far`` of them moved out of reach (10 units away)."""
    lower, upper = fig.coordinate_bounds()
    poses = np.zeros((count, 4, 4))
    for b in range(count):
        frame = fig.forward(rng.uniform(lower, upper))["hand"]
        poses[b] = frame
        poses[b, :3, 3] = frame[:3, :3] @ np.array([0.5, 0.0, 0.0]) + frame[:3, 3]
    poses[count - far :, :3, 3] += 10.0 * (far > 0)
    return poses


def _single(fig, constraint, pose: np.ndarray, start: np.ndarray, **options):
    constraint.goal.set_target(pose)
    return Solver(fig, [constraint], **{**OPTIONS, **options}).solve(start)


def test_batch_equals_single_dls_solves_from_the_same_starts():
    """Each problem's status, restarts and answer are the single solve's. Where ``G`` is flat
    to round-off (an unreachable target) the batch's box step and the single run's active
    set, which round differently, may stop one run with ``NO_PROGRESS`` and the other at a
    Kuhn-Tucker point (seed 3: points 4e-16 apart after 120 iterations), so the seed's
    problems stop clear of that."""
    fig, tip = _arm()
    rng = np.random.default_rng(4)
    count = 10
    poses = _poses(fig, rng, count, far=2)
    lower, upper = fig.coordinate_bounds()
    starts = rng.uniform(lower, upper, (count, len(lower)))
    batch = BatchSolver(fig, [tip], **OPTIONS).solve({"tip": poses}, starts)
    for b in range(count):
        single = _single(fig, tip, poses[b], starts[b])
        mine = batch[b]
        assert mine.success == single.success, b
        assert mine.status == single.status, b
        assert mine.restarts == single.restarts, b
        assert np.allclose(mine.x, single.x, atol=1e-6), (b, mine.x - single.x)
        for ours, theirs in zip(mine.residuals, single.residuals, strict=True):
            assert ours.satisfied == theirs.satisfied
            assert ours.distance == pytest.approx(theirs.distance, abs=1e-6)
    assert batch.success[:-2].sum() >= 6 and not batch.success[-2:].any()


def test_each_problem_stops_on_its_own_and_only_misses_restart():
    fig, tip = _arm()
    rng = np.random.default_rng(5)
    count = 8
    poses = _poses(fig, rng, count, far=3)
    batch = solve_batch(fig, [tip], {"tip": poses}, fig.neutral(), **OPTIONS)
    first = solve_batch(fig, [tip], {"tip": poses}, fig.neutral(), **{**OPTIONS, "restarts": 0})
    reachable, far = slice(0, count - 3), slice(count - 3, count)
    assert (batch.status[reachable] == Status.GOAL_REACHED).all()
    assert batch.success[reachable].all()
    # Restarts went to the problems whose first run missed, and only to them.
    assert (first.restarts == 0).all()
    assert np.array_equal(batch.restarts > 0, ~first.success)
    met = first.success
    assert met[reachable].sum() >= 3
    assert np.array_equal(batch.x[met], first.x[met])
    assert np.array_equal(batch.nit[met], first.nit[met])
    # The unreachable ones ran on after the others stopped and got their own status (damped
    # least squares creeps towards the compromise: the iteration limit, or a Kuhn-Tucker
    # point), the single solve's (test_batch_equals_single_dls_solves_from_the_same_starts).
    assert np.isin(batch.status[far], (Status.KUHN_TUCKER, Status.MAX_ITERATIONS)).all()
    assert not batch.success[far].any()
    assert batch.nit[far].min() > batch.nit[met].max()
    result = batch[count - 1]
    assert not result.success and result.unmet == ("tip",)
    assert "tip" in result.message and result.message.startswith(("Stopped", "Closest"))


def test_a_batch_is_deterministic():
    fig, tip = _arm()
    rng = np.random.default_rng(7)
    poses = _poses(fig, rng, 12, far=2)
    lower, upper = fig.coordinate_bounds()
    starts = rng.uniform(lower, upper, (12, len(lower)))
    first = solve_batch(fig, [tip], {"tip": poses}, starts, **OPTIONS)
    second = solve_batch(fig, [tip], {"tip": poses}, starts, **OPTIONS)
    for name in ("x", "status", "nit", "nfev", "restarts", "fun", "distance", "angle"):
        assert np.array_equal(getattr(first, name), getattr(second, name), equal_nan=True), name


def test_targets_by_attribute_and_position_goals():
    fig = spatial_arm(limit=2.0)
    tip = Constraint(EndEffector("hand", point=(0.5, 0, 0)), PositionGoal((1, 1, 0)), name="tip")
    rng = np.random.default_rng(11)
    points = _poses(fig, rng, 6)[:, :3, 3]
    batch = solve_batch(fig, [tip], {"tip": {"point": points}}, **OPTIONS)
    assert batch.success.all()
    for b in range(6):
        frame = fig.forward(batch.x[b])["hand"]
        reached = frame[:3, :3] @ np.array([0.5, 0, 0]) + frame[:3, 3]
        assert np.linalg.norm(reached - points[b]) <= batch.distance[b, 0] + 1e-12
        assert batch.distance[b, 0] <= 1e-6 * 2.5


@pytest.mark.parametrize(
    ("targets", "initial", "named"),
    [
        ({"tip": np.zeros((3, 3, 3))}, None, "targets['tip']"),
        ({"tip": {"point": np.zeros((3, 2))}}, None, "targets['tip']['point']"),
        ({"tip": {"z": np.zeros((3, 3))}}, None, "targets['tip']['z']"),
        ({"hand": np.zeros((3, 4, 4))}, None, "targets['hand']"),
        ({"tip": np.zeros((0, 4, 4))}, None, "B = 0"),
        ({"tip": {"point": np.full((2, 3), np.nan)}}, None, "targets['tip']['point']"),
        ({"tip": {"point": np.zeros((2, 3)), "x": np.zeros((2, 3))}}, None, "targets['tip']['x']"),
        ({"tip": {"point": np.zeros((2, 3))}}, np.zeros((3, 7)), "disagree"),
        ({"tip": {"point": np.zeros((2, 3))}}, np.zeros((2, 5)), "initial"),
        ({}, None, "targets"),
    ],
)
def test_bad_batch_input_is_named(targets, initial, named):
    fig, tip = _arm()
    with pytest.raises(InvalidInputError, match=named.replace("[", r"\[").replace("]", r"\]")):
        BatchSolver(fig, [tip], **OPTIONS).solve(targets, initial)


def test_unsupported_goals_options_and_rows_are_refused_by_name():
    fig, tip = _arm()
    floor = Constraint(EndEffector("hand"), PlaneGoal((0, 0, 0), (0, 0, 1)), name="floor")
    with pytest.raises(InvalidInputError, match=r"'floor'.*PlaneGoal"):
        BatchSolver(fig, [tip, floor], **OPTIONS).solve({"tip": np.eye(4)[None]})
    with pytest.raises(InvalidInputError, match="method"):
        BatchSolver(fig, [tip], method="bfgs")
    with pytest.raises(InvalidInputError, match="max_change"):
        BatchSolver(fig, [tip], method="dls", max_change=0.1)
    rows = spatial_arm(limit=2.0)
    rows.add_linear_constraint({"elbow": 1.0, "hand.x": 1.0}, -0.5, 0.5, label="sum")
    with pytest.raises(InvalidInputError, match=r"figure: a batch holds joint limits only.*sum"):
        BatchSolver(rows, [tip], **OPTIONS).solve({"tip": np.eye(4)[None]})
    carried = Constraint(EndEffector("hand"), PositionGoal((0, 0, 0), carrier="upper"), name="c")
    with pytest.raises(InvalidInputError, match=r"'c'.*carried by 'upper'"):
        BatchSolver(fig, [carried], **OPTIONS).solve(initial=np.zeros((2, 7)))


def test_aims_beside_positions_as_single_dls_solves():
    """An aim (a residual not linear in its parts, :mod:`solver.batch.aim`) on the hand and
    a weighted position on the forearm: each problem as its single dls solve from the same
    start, statuses and measured angles alike; the aim's target is no reach target (a far
    one does not count as out of reach)."""
    fig = spatial_arm(limit=2.0)
    look = Constraint(EndEffector("hand", point=(0.5, 0, 0), x=(1, 0, 0)), AimGoal((3, 1, 0)),
                      name="look")  # fmt: skip
    elbow = Constraint(EndEffector("lower"), PositionGoal((1, 0, 0)), weight=0.5, name="elbow")
    rng = np.random.default_rng(8)
    count = 10
    aims = rng.normal(0.0, 2.0, (count, 3))
    aims[-1] = (40.0, 30.0, 0.0)  # far beyond the arm's reach, yet aimed at
    points = rng.normal(0.0, 0.3, (count, 3)) + np.array([0.7, 0.3, 0.0])
    points /= np.linalg.norm(points, axis=1, keepdims=True)  # the elbow's sphere
    lower, upper = fig.coordinate_bounds()
    starts = rng.uniform(lower, upper, (count, len(lower)))
    batch = BatchSolver(fig, [look, elbow], **OPTIONS).solve(
        {"look": {"point": aims}, "elbow": {"point": points}}, starts
    )
    for b in range(count):
        look.goal.point, elbow.goal.point = aims[b], points[b]
        single = Solver(fig, [look, elbow], **OPTIONS).solve(starts[b])
        mine = batch[b]
        assert (mine.status, mine.success, mine.restarts) == (
            single.status, single.success, single.restarts,
        ), b  # fmt: skip
        assert np.allclose(mine.x, single.x, atol=1e-6), (b, mine.x - single.x)
        assert mine.residuals[0].angle == pytest.approx(single.residuals[0].angle, abs=1e-6)
    assert batch.success.sum() >= 8 and batch.success[-1]


def test_pose_targets_follow_set_target():
    """A (B, 4, 4) target is read as :meth:`PositionOrientationGoal.set_target` reads it."""
    fig, tip = _arm()
    rng = np.random.default_rng(2)
    pose = np.eye(4)
    pose[:3, :3] = random_rotation(rng)
    pose[:3, 3] = (0.4, 0.9, 0.3)
    batch = solve_batch(fig, [tip], {"tip": pose[None]}, **{**OPTIONS, "restarts": 0})
    single = _single(fig, tip, pose, fig.neutral(), restarts=0)
    assert batch[0].fun == pytest.approx(single.fun, rel=1e-6, abs=1e-12)
    assert batch[0].status == single.status


def test_several_constraints_rigidity_and_a_prismatic_joint_as_single_solves():
    """Two weighted constraints (a position on the forearm with a chain root, an orientation
    on the hand), a stiff joint and a sliding one: each problem as its single dls solve."""
    fig = Figure()
    fig.add_segment("upper")
    fig.add_ball("upper", -2.0, 2.0, rigidity=(0.0, 0.6, 0.0))
    fig.add_segment("lower", parent="upper", translation=(1.0, 0.0, 0.0))
    fig.add_revolute("lower", "z", -2.0, 2.0, name="elbow")
    fig.add_prismatic("lower", "x", 0.0, 0.5, name="slide")
    fig.add_segment("hand", parent="lower", translation=(1.0, 0.0, 0.0))
    fig.add_ball("hand", -1.5, 1.5)
    reach = Constraint(EndEffector("lower", point=(0.5, 0, 0)), PositionGoal((1, 0.5, 0)), name="r")
    palm = Constraint(
        EndEffector("hand", x=(1, 0, 0), y=(0, 1, 0)),
        OrientationGoal(x=(0, 0, -1), y=(1, 0, 0)),
        weight=0.5,
        name="palm",
    )
    rng = np.random.default_rng(13)
    count = 6
    points = rng.normal(0.0, 0.7, (count, 3)) + np.array([1.0, 0.0, 0.0])
    xs = np.array([random_rotation(rng) for _ in range(count)])
    targets = {"r": {"point": points}, "palm": xs}
    batch = solve_batch(fig, [reach, palm], targets, fig.neutral(), **OPTIONS)
    for b in range(count):
        reach.goal.point = points[b]
        palm.goal.set_target(xs[b])
        single = Solver(fig, [reach, palm], **OPTIONS).solve(fig.neutral())
        assert batch[b].status == single.status, b
        assert batch[b].success == single.success, b
        assert batch[b].restarts == single.restarts, b
        assert np.allclose(batch.x[b], single.x, atol=1e-6), b
        assert batch[b].fun == pytest.approx(single.fun, rel=1e-6, abs=1e-12)


def _early_and_late(monkeypatch, speculate: int, *args, **options):
    """The batch with restarts started beside first runs after ``speculate`` iterations,
    and with restarts started only after them; both compared field by field."""
    monkeypatch.setattr(search, "SPECULATE", 10**6)
    late = solve_batch(*args, **options)
    monkeypatch.setattr(search, "SPECULATE", speculate)
    early = solve_batch(*args, **options)
    for name in ("x", "status", "nit", "nfev", "restarts", "fun", "success"):
        assert np.array_equal(getattr(early, name), getattr(late, name)), name
    return early, late


@pytest.mark.parametrize("speculate", [1, 4])
def test_restarts_started_beside_a_first_run_change_no_answer(monkeypatch, speculate):
    """Restarts started while a first run still goes (``SPECULATE``) give every problem the
    answer, counts and statuses of restarts started after it, as single solves, in fewer
    passes over the batch (two first runs end at the iteration limit; the problems need 3
    and 5 restarts, 4 started beside the first run)."""
    monkeypatch.setattr(search, "FIRST_WIDTH", 4)
    fig, tip = _arm()
    poses = _poses(fig, np.random.default_rng(10), 10)
    options = {**OPTIONS, "max_iterations": 20}
    args = (fig, [tip], {"tip": poses}, fig.neutral())
    first = solve_batch(*args, **{**options, "restarts": 0})
    assert (first.status == Status.MAX_ITERATIONS).sum() == 2
    early, late = _early_and_late(monkeypatch, speculate, *args, **options)
    assert early.iterations < late.iterations
    for b in range(len(poses)):
        single = _single(fig, tip, poses[b], fig.neutral(), max_iterations=20)
        assert early[b].status == single.status and early[b].restarts == single.restarts, b
        assert np.allclose(early.x[b], single.x, atol=1e-6), b


def test_restarts_started_early_give_way_to_the_nudge(monkeypatch):
    """A first run that goes on past ``SPECULATE`` and ends at a Kuhn-Tucker point restarts
    with the nudge first, as a single solve: the restarts started beside it are dropped and
    the answers are those of restarts started after it (seed 17: a reachable problem's
    first run at a Kuhn-Tucker point after 17 iterations, an unreachable one's after 156)."""
    fig, tip = _arm()
    poses = _poses(fig, np.random.default_rng(17), 10, far=2)
    args = (fig, [tip], {"tip": poses}, fig.neutral())
    first = solve_batch(*args, **{**OPTIONS, "restarts": 0})
    assert ((first.status == Status.KUHN_TUCKER) & (first.nit > 1)).any()
    early, _ = _early_and_late(monkeypatch, 1, *args, **OPTIONS)
    for b in np.flatnonzero(first.status == Status.KUHN_TUCKER):
        single = _single(fig, tip, poses[b], fig.neutral())
        assert early[int(b)].restarts == single.restarts > 0, b
        assert np.allclose(early.x[b], single.x, atol=1e-6), b


def test_a_pass_steps_only_the_runs_going_on(monkeypatch):
    """A run that stops at a pass's tests (its goals met, the iteration limit) gets no step:
    the steps computed are the iterations taken (no restarts, no ``NO_PROGRESS`` stop), not
    every run of every pass, which costs most of a pass where most runs stop at once (a
    bake's in-betweens). The answers stay those of single solves."""
    fig, tip = _arm()
    rng = np.random.default_rng(7)
    count = 12
    poses = _poses(fig, rng, count)
    lower, upper = fig.coordinate_bounds()
    starts = rng.uniform(lower, upper, (count, len(lower)))
    stepped: list[int] = []
    box_step = dls.box_step

    def counted(jacobian, *args):
        stepped.append(len(jacobian))
        return box_step(jacobian, *args)

    monkeypatch.setattr(dls, "box_step", counted)
    options = {**OPTIONS, "restarts": 0, "max_iterations": 15}
    batch = solve_batch(fig, [tip], {"tip": poses}, starts, **options)
    assert not (batch.status == Status.NO_PROGRESS).any()
    assert len(set(batch.nit.tolist())) > 2  # the runs stop at several passes
    assert sum(stepped) == batch.nit.sum() < batch.run_iterations
    for b in range(count):
        single = _single(fig, tip, poses[b], starts[b], **options)
        assert (batch[b].status, batch[b].nit) == (single.status, single.nit), b
        assert np.allclose(batch.x[b], single.x, atol=1e-6), b


def test_a_run_creeping_towards_a_miss_stalls(monkeypatch):
    """Where every goal might be met, a ``"dls"`` run that misses them and whose ``G`` fell by
    less than ``STALL`` of itself over ``STALL_WINDOW`` iterations stops ``STALLED`` at that
    check, close to the Kuhn-Tucker point it was creeping to; the batch stops the same runs
    at the same checks. Where a goal is out of reach no run stalls (the restarts' agreement
    needs their Kuhn-Tucker points). A stalled answer that stays the best (here, with no
    restarts) is taken on to that Kuhn-Tucker point (``polish``), single and batch alike."""
    fig, tip = _arm()
    poses = _poses(fig, np.random.default_rng(0), 10, far=2)
    args = (fig, [tip], {"tip": poses}, fig.neutral())
    options = {**OPTIONS, "restarts": 0}
    with monkeypatch.context() as patch:  # the runs as they stop, before the polish
        patch.setattr(search.Search, "_polish", lambda self: None)
        patch.setattr(solve_module, "polish", lambda method, problem, outcome, *_: outcome)
        stalled = solve_batch(*args, **options)
        single = _single(fig, tip, poses[1], fig.neutral(), restarts=0)
    assert stalled.status[1] == Status.STALLED == single.status
    assert stalled.nit[1] == single.nit and single.nit % dls_method.STALL_WINDOW == 0
    assert Status.STALLED not in stalled.status[-2:]  # the two out of reach
    assert "almost stopped falling" in single.message
    polished = solve_batch(*args, **options)
    for b in range(len(poses)):
        one = _single(fig, tip, poses[b], fig.neutral(), restarts=0)
        assert (polished.status[b], polished.nit[b]) == (one.status, one.nit), b
        assert np.allclose(polished.x[b], one.x, atol=1e-6), b
    assert Status.STALLED not in polished.status
    share = dls_method.STALL
    monkeypatch.setattr(dls_method, "STALL", -np.inf)  # never stalls
    crept = _single(fig, tip, poses[1], fig.neutral(), restarts=0)
    assert crept.status == Status.KUHN_TUCKER == polished.status[1] and not crept.success
    assert crept.fun < single.fun < crept.fun * (1 + share)
    assert polished.fun[1] == pytest.approx(crept.fun, rel=1e-9)
