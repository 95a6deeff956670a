"""Damped least squares (``"dls"``) and the pseudoinverse (``"pinv"``), seed 001 eqs. 11-18.

Closed-form checks of the step (eq. 15 against eq. 16, eq. 18's bound, ``pinv`` against
``lstsq``, the limits' quadratic programme against its exact least-distance form), the
pseudoinverse's discontinuity at a singularity (eqs. 12-13), and solves: reachable
targets, every iterate within the limits, an unreachable target, rigidity, the time limit
and bad options.
"""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solver import (
    Constraint,
    EndEffector,
    Figure,
    InvalidInputError,
    PositionGoal,
    Solver,
    Status,
    solve,
)
from solver.assembly.problem import Problem
from solver.assembly.projection import least_distance
from solver.assembly.scale import ScaledProblem
from solver.methods import MethodOptions, make_method
from solver.methods import dls as dls_module
from solver.methods.dls import (
    DEFAULT_STEP_LIMIT,
    FIRST_SHARE,
    RCOND,
    WIDEST_STEP_LIMIT,
    bounded_step,
    damped_step,
)
from solver.methods.jacobian_step import task
from tests import arm7
from tests.solver_checks import (
    Recorder,
    figure_cases,
    kt_residual,
    linear_system,
    max_violation,
    planar_arm,
    random_effector,
    random_goal,
)

METHODS = ("dls", "pinv")


def tip(target: tuple[float, float, float]) -> Constraint:
    """Position of the planar arm's tip (end of ``lower``) on ``target``."""
    return Constraint(EndEffector("lower", (1.0, 0.0, 0.0)), PositionGoal(target), name="tip")


# ------------------------------------------------------------------ the step
def _random_task(seed: int, m: int, n: int, rank: int | None = None):
    rng = np.random.default_rng(seed)
    jac = rng.normal(size=(m, n))
    if rank is not None:
        jac = rng.normal(size=(m, rank)) @ rng.normal(size=(rank, n))
    return jac, rng.normal(size=m)


@pytest.mark.parametrize(("m", "n"), [(3, 7), (6, 6), (9, 4)])
@pytest.mark.parametrize("damping", [1e-3, 0.1, 2.0])
def test_svd_form_equals_the_normal_equations(m: int, n: int, damping: float) -> None:
    """Eq. 16 (SVD) is eq. 15: ``(J^T J + lambda^2 I)^-1 J^T e``."""
    jac, err = _random_task(m * n, m, n)
    normal = jac.T @ jac + damping**2 * np.eye(n)
    expected = np.linalg.solve(normal, jac.T @ err)
    # The normal equations lose digits with their condition number (eq. 20), the SVD does not.
    tolerance = 1e-13 * np.linalg.cond(normal)
    np.testing.assert_allclose(damped_step(jac, err, damping), expected, rtol=tolerance)


@pytest.mark.parametrize(("m", "n", "rank"), [(3, 7, None), (6, 6, 4), (9, 4, None), (5, 5, 2)])
def test_pseudoinverse_step_is_the_least_norm_least_squares_step(m, n, rank) -> None:
    """``lambda = 0`` is eq. 11: ``lstsq``'s minimum-norm solution, ``pinv(J, RCOND) e``."""
    jac, err = _random_task(7 * m + n, m, n, rank)
    step = damped_step(jac, err, 0.0)
    expected, *_ = np.linalg.lstsq(jac, err, rcond=None)
    np.testing.assert_allclose(step, expected, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(step, np.linalg.pinv(jac, rcond=RCOND) @ err, atol=1e-10)


@pytest.mark.parametrize("step_limit", [0.05, 0.5, 3.0])
@pytest.mark.parametrize("seed", range(4))
def test_eq18_bound_holds_for_the_chosen_damping(step_limit: float, seed: int) -> None:
    """``lambda = |e| / (2 s)``: each component's gain <= 1/(2 lambda), so ``|dz| <= s``."""
    jac, err = _random_task(seed, 6, 7)
    jac[:, -1] = jac[:, 0] * (1.0 + 1e-9)  # nearly singular: one tiny singular value
    options = MethodOptions(step_limit=step_limit)
    method = make_method("dls", options)
    damping = method.damping_at(err, step_limit)  # type: ignore[attr-defined]
    assert damping == pytest.approx(np.linalg.norm(err) / (2.0 * step_limit))
    step = damped_step(jac, err, damping)
    u, _, vt = np.linalg.svd(jac, full_matrices=False)
    gains = np.abs(vt @ step) / np.abs(u.T @ err)
    assert gains.max() <= 1.0 / (2.0 * damping) * (1.0 + 1e-12)
    assert np.linalg.norm(step) <= step_limit * (1.0 + 1e-12)


def test_eq18_bound_is_met_where_sigma_equals_lambda() -> None:
    """The largest gain ``1 / (2 lambda)`` is reached by the component with ``sigma = lambda``."""
    damping = 0.3
    jac = np.diag([2.0, damping, 0.01])
    err = np.array([0.0, 1.0, 0.0])
    step = damped_step(jac, err, damping)
    assert step[1] == pytest.approx(1.0 / (2.0 * damping), rel=1e-14)
    assert np.abs(damped_step(jac, np.array([1.0, 0.0, 1.0]), damping)).max() < 1 / (2 * damping)


def _least_distance_step(jac, err, damping, rows, equality):
    """The limits' quadratic programme solved another way: least distance in ``w = S V^T dz``."""
    n = jac.shape[1]
    u, sigma, vt = np.linalg.svd(jac, full_matrices=True)
    values = np.zeros(n)
    values[: len(sigma)] = sigma
    along = np.zeros(n)
    along[: len(sigma)] = u[:, : len(sigma)].T @ err
    scale = np.sqrt(values**2 + damping**2)
    w0 = values * along / scale
    result = least_distance(rows @ vt.T / scale, np.zeros(len(rows)), equality, w0)
    assert result.feasible
    return vt.T @ (result.x / scale)


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("damping", [0.05, 0.7])
def test_bounded_step_solves_the_limits_quadratic_programme(seed: int, damping: float) -> None:
    """Active-set step == the exact least-distance solution; its rows hold."""
    rng = np.random.default_rng(seed)
    m, n, k = int(rng.integers(2, 7)), int(rng.integers(3, 8)), int(rng.integers(1, 5))
    jac, err = rng.normal(size=(m, n)), rng.normal(size=m)
    rows = rng.normal(size=(k, n))
    if seed % 3 == 0:  # some joint bounds: unit rows on single variables
        rows[0] = np.eye(n)[0] * rng.choice([-1.0, 1.0])
    equality = np.zeros(k, dtype=bool)
    if seed % 4 == 1:
        equality[-1] = True
    step = bounded_step(jac, err, damping, rows, equality)
    expected = _least_distance_step(jac, err, damping, rows, equality)
    np.testing.assert_allclose(step, expected, rtol=1e-7, atol=1e-9)
    assert (rows[~equality] @ step).max(initial=0.0) <= 1e-10
    np.testing.assert_allclose(rows[equality] @ step, 0.0, atol=1e-10)


@pytest.mark.parametrize("damping", [0.0, 0.2])
def test_a_limit_pushed_outwards_removes_the_joints_column(damping: float) -> None:
    """Joint 1 at its upper bound, pushed up: it keeps its value, the others take eq. 16's
    step for ``J`` without its column. Pulled down instead, it moves freely."""
    jac, err = _random_task(3, 3, 4)
    free = damped_step(jac, err, damping)
    row = np.eye(4)[[1]] * np.sign(free[1])  # the bound the unconstrained step crosses
    step = bounded_step(jac, err, damping, row, np.zeros(1, dtype=bool))
    reduced = damped_step(np.delete(jac, 1, axis=1), err, damping)
    np.testing.assert_allclose(step, np.insert(reduced, 1, 0.0), atol=1e-12)
    inward = bounded_step(jac, err, damping, -row, np.zeros(1, dtype=bool))
    np.testing.assert_allclose(inward, free, atol=1e-12)


# ------------------------------------------------- the pseudoinverse's discontinuity
def _planar_jacobian(elbow: float) -> np.ndarray:
    """Task Jacobian (3, 2) of the planar arm's tip at ``a = 0, b = elbow`` (scaled)."""
    problem = Problem(planar_arm(), [tip((1.5, 0.5, 0.0))], np.zeros(2))
    scaled = ScaledProblem(problem, 2.0)
    jac, _ = task(scaled, scaled.evaluate(np.array([0.0, elbow])))
    return jac


def test_pseudoinverse_blows_up_and_jumps_at_the_singularity_while_dls_stays_bounded() -> None:
    """Eqs. 12-13: near straight, a tip displacement along the arm (the singular direction)
    needs a joint step ``|dx| / sigma_min`` under ``pinv`` -- unbounded as the elbow
    straightens -- until ``sigma_min`` falls below the cut-off and the step drops to zero.
    DLS stays below ``|dx| / (2 lambda)`` and tends continuously to its straight-arm step."""
    dx = np.array([1e-3, 0.0, 0.0])  # along the arm, in units of L
    damping = 0.05
    # sigma_min / sigma_max is proportional to the elbow angle: where it meets the cut-off.
    ratio = np.linalg.svd(_planar_jacobian(1e-6), compute_uv=False)
    elbow_at_cut = 1e-6 * RCOND / (ratio[1] / ratio[0])
    elbows = [elbow_at_cut * factor for factor in (1e4, 1e3, 1e2, 1e1, 2.0)]
    pinv_norms, dls_steps = [], []
    for elbow in elbows:
        jac = _planar_jacobian(elbow)
        u, sigma, _ = np.linalg.svd(jac)
        step = damped_step(jac, dx, 0.0)
        # |J^+ dx|^2 = sum (u_i . dx / sigma_i)^2: the sigma_min term dominates.
        expected = np.hypot(abs(u[:, 0] @ dx) / sigma[0], abs(u[:, 1] @ dx) / sigma[1])
        assert np.linalg.norm(step) == pytest.approx(expected, rel=1e-6)
        pinv_norms.append(float(np.linalg.norm(step)))
        dls = damped_step(jac, dx, damping)
        assert np.linalg.norm(dls) <= np.linalg.norm(dx) / (2.0 * damping)
        dls_steps.append(dls)
    for wide, narrow in itertools.pairwise(pinv_norms[:-1]):
        assert narrow > 5.0 * wide  # grows like 1 / sigma_min ~ 1 / elbow
    assert pinv_norms[-1] > 1e3 * pinv_norms[0]

    # Crossing the cut-off: just below it the singular component is dropped -- a jump.
    below = damped_step(_planar_jacobian(0.5 * elbow_at_cut), dx, 0.0)
    assert np.linalg.norm(below) < 1e-2 * pinv_norms[-1]
    dls_steps.append(damped_step(_planar_jacobian(0.5 * elbow_at_cut), dx, damping))

    # DLS is continuous through the singularity: its steps tend to the straight arm's
    # (eq. 19: the singular component's gain sigma / (sigma^2 + lambda^2) -> 0).
    straight = damped_step(_planar_jacobian(0.0), dx, damping)
    gaps = [float(np.linalg.norm(step - straight)) for step in dls_steps]
    assert all(b < a for a, b in itertools.pairwise(gaps))
    assert gaps[-1] < 1e-3 * gaps[0]


# ------------------------------------------------------------------ solves
@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("target", [(1.2, 0.9, 0.0), (-0.4, 1.5, 0.0), (0.3, -0.2, 0.0)])
def test_reachable_target_on_the_planar_arm(method: str, target) -> None:
    result = solve(
        planar_arm(), [tip(target)], initial=[0.2, 0.5], method=method, restarts=0, time_limit=None
    )
    assert result.success, result.message
    assert result.status == Status.GOAL_REACHED


@pytest.mark.parametrize("method", METHODS)
def test_reachable_poses_of_the_7dof_arm(method: str) -> None:
    """Full tool poses from in-limit joint values, each solved from mid-range."""
    fig = arm7.arm()
    solved = 0
    for pose in arm7.targets(fig, 10, seed=3):
        result = solve(
            fig, [arm7.pose_constraint(pose)], arm7.mid_range(fig), method=method, time_limit=None
        )
        solved += result.success
        assert max_violation(fig, result.x) <= 1e-9
    assert solved == 10


@pytest.mark.parametrize("method", METHODS)
def test_objective_never_rises_and_every_iterate_is_within_the_limits(method: str) -> None:
    """A target beyond the shoulder's limit: the run ends held by that limit."""
    fig = planar_arm(limits=(-0.3, 0.3))
    record = Recorder()
    result = solve(
        fig,
        [tip((0.0, 1.9, 0.0))],
        initial=[0.0, 0.2],
        method=method,
        restarts=0,
        time_limit=None,
        callback=record,
    )
    system = linear_system(fig)
    assert all(max_violation(fig, x, system) <= 1e-12 for x in record.xs)
    assert all(b <= a for a, b in itertools.pairwise(record.fs))
    assert result.values()["a"] == pytest.approx(0.3, abs=1e-12)
    assert not result.success
    if method == "dls":
        assert result.status == Status.KUHN_TUCKER
        assert result.active_set == ("a <= 0.3",)
        assert "held by a <= 0.3" in result.message


@st.composite
def limited_problems(draw: st.DrawFn):
    """A chain with finite limits, perhaps an equality or a slanted row between two joints,
    and one or two goals, some out of reach."""
    case = draw(figure_cases(chain=True, limits=True, max_segments=4))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    joints = list(case.figure.joint_names)
    extra = draw(st.sampled_from(["none", "equality", "row"]))
    if len(joints) >= 2 and extra != "none":
        pair = dict(zip(rng.choice(joints, 2, replace=False), (1.0, -0.7), strict=True))
        if extra == "equality":
            case.figure.add_equality(pair, 0.0)
        else:
            case.figure.add_linear_constraint(pair, upper=0.2)
    last = list(case.parents)[-1]
    constraints = []
    for i in range(draw(st.integers(1, 2))):
        effector = random_effector(rng, last)
        kind = draw(st.sampled_from(["position", "position_orientation", "line", "aim"]))
        goal = random_goal(rng, kind, case, effector, case.figure.neutral(), None)
        if kind == "position" and draw(st.booleans()):
            goal.point = np.asarray(goal.point) * 4.0  # likely out of reach
        constraints.append(Constraint(effector, goal, float(rng.uniform(0.5, 2.0)), name=f"c{i}"))
    return case.figure, constraints


@pytest.mark.parametrize("method", METHODS)
@settings(max_examples=40, deadline=None)
@given(data=limited_problems())
def test_random_limited_chains_stay_feasible_descend_and_stop_truthfully(method, data) -> None:
    """Every iterate within every limit and row, ``G`` never rises; a Kuhn-Tucker stop is one."""
    fig, constraints = data
    record = Recorder()
    solver = Solver(fig, constraints, method=method, restarts=0, time_limit=None)
    result = solver.solve(callback=record)
    system = linear_system(fig)
    assert all(max_violation(fig, x, system) <= 1e-8 for x in record.xs)
    assert all(b <= a for a, b in itertools.pairwise(record.fs))
    if result.status == Status.KUHN_TUCKER:
        projected, worst, gradient = kt_residual(fig, solver.problem, result.x)
        assert projected <= 1e-5 * (1.0 + gradient)
        assert worst <= 1e-5 * (1.0 + gradient)


@pytest.mark.parametrize("heading", [0.4, 2.5, -1.7])
def test_unreachable_target_straightens_the_chain_towards_it(heading: float) -> None:
    """DLS: the arm straightens and points at the target, a Kuhn-Tucker point."""
    target = (3.0 * np.cos(heading), 3.0 * np.sin(heading), 0.0)
    result = solve(
        planar_arm(), [tip(target)], initial=[0.3, 0.4], method="dls", restarts=0, time_limit=None
    )
    q = result.values()
    assert not result.success
    assert result.status == Status.KUHN_TUCKER
    assert abs(q["b"]) < 1e-3
    assert abs(np.angle(np.exp(1j * (q["a"] - heading)))) < 1e-3
    assert result.residuals[0].distance == pytest.approx(1.0, abs=1e-5)


@pytest.mark.parametrize("heading", [0.4, 2.5, -1.7])
def test_pseudoinverse_flips_the_elbow_across_the_singularity(heading: float) -> None:
    """An unreachable target drives the arm to its straight (singular) pose. There the
    ``pinv`` step along the bend is ``|e| / sigma_min`` (eq. 12): it overshoots the straight
    pose, so the elbow changes sign at a large share of the iterations, and the run ends
    without claiming a Kuhn-Tucker point. DLS approaches the straight pose from one side
    (at most a couple of sign changes) and stops at one."""
    target = (3.0 * np.cos(heading), 3.0 * np.sin(heading), 0.0)
    flips = {}
    for method in METHODS:
        record = Recorder()
        result = solve(
            planar_arm(),
            [tip(target)],
            initial=[0.3, 0.4],
            method=method,
            restarts=0,
            time_limit=None,
            callback=record,
        )
        elbow = np.sign([x[1] for x in record.xs])
        flips[method] = int(np.count_nonzero(elbow[1:] != elbow[:-1])), result.nit
        assert abs(result.values()["b"]) < 1e-3
        expected = Status.KUHN_TUCKER if method == "dls" else Status.NO_PROGRESS
        assert result.status == expected
    assert flips["pinv"][0] >= flips["pinv"][1] / 3
    assert flips["dls"][0] <= 2


def test_a_more_rigid_joint_moves_less() -> None:
    """Two prismatic joints along x, tip to x = 1: with ``1 - rigidity = s`` on the first,
    the least-norm step in the problem's variables moves it ``s^2`` times as far as the
    second (rigidity is a column scaling: ``J_y = [s, 1]``)."""
    fig = Figure()
    fig.add_segment("base")
    fig.add_prismatic("base", "x", name="p0")
    fig.add_segment("slider", parent="base")
    fig.add_prismatic("slider", "x", name="p1")
    target = Constraint(EndEffector("slider"), PositionGoal((1.0, 0.0, 0.0)))
    moves = {}
    for rigidity in (0.0, 0.5, 0.8):
        fig.set_rigidity("p0", rigidity)
        result = solve(fig, [target], [0.0, 0.0], method="dls", restarts=0, time_limit=None)
        assert result.success
        p0, p1 = result.values()["p0"], result.values()["p1"]
        assert p0 / p1 == pytest.approx((1.0 - rigidity) ** 2, rel=1e-6)
        moves[rigidity] = p0
    assert moves[0.0] > moves[0.5] > moves[0.8]


def test_deadline_stops_the_run_between_iterations(monkeypatch: pytest.MonkeyPatch) -> None:
    """The deadline is read before every evaluation: a clock that ticks once per reading
    stops the run after a few iterations, with ``TIME_LIMIT`` and ``G`` lowered."""
    import solver.methods.dls as dls

    fig = arm7.arm()
    pose = arm7.targets(fig, 1, seed=5)[0]
    problem = Problem(fig, [arm7.pose_constraint(pose)], arm7.mid_range(fig))
    scaled = ScaledProblem(problem, 1.1)
    z0 = scaled.from_y(problem.from_coordinates(arm7.mid_range(fig)))
    ticks = iter(range(1000))
    monkeypatch.setattr(dls.time, "perf_counter", lambda: float(next(ticks)))
    outcome = make_method("dls", MethodOptions()).run(scaled, z0, None, deadline=6.0)
    assert outcome.status == Status.TIME_LIMIT
    assert 1 <= outcome.nit <= 6
    assert outcome.evaluation.f < scaled.evaluate(z0).f


@pytest.mark.parametrize("method", METHODS)
def test_time_limit_of_the_solve(method: str) -> None:
    fig = arm7.arm()
    pose = arm7.targets(fig, 1, seed=5)[0]
    result = solve(
        fig,
        [arm7.pose_constraint(pose)],
        initial=arm7.mid_range(fig),
        method=method,
        time_limit=1e-9,
    )
    assert result.status == Status.TIME_LIMIT
    assert result.nit == 0


def test_step_limit_bounds_every_iteration() -> None:
    fig = planar_arm()
    record = Recorder()
    solve(
        fig,
        [tip((-1.0, -1.2, 0.0))],
        initial=[0.1, 0.3],
        method="dls",
        step_limit=0.1,
        restarts=0,
        time_limit=None,
        callback=record,
    )
    steps = [np.abs(b - a).max() for a, b in itertools.pairwise(record.xs)]
    assert len(steps) > 5
    assert max(steps) <= 0.1 + 1e-12


def _arm7_runs(**options) -> tuple[list[int], list[float]]:
    """Iterations and largest joint step of ``"dls"`` runs (no restarts) from the 7-DOF
    arm's mid-range pose to 10 full-pose targets."""
    fig = arm7.arm()
    iterations, largest = [], []
    for pose in arm7.targets(fig, 10, seed=3):
        record = Recorder()
        result = solve(
            fig,
            [arm7.pose_constraint(pose)],
            initial=arm7.mid_range(fig),
            method="dls",
            restarts=0,
            time_limit=None,
            callback=record,
            **options,
        )
        iterations.append(result.nit)
        largest.append(max(np.abs(b - a).max() for a, b in itertools.pairwise(record.xs)))
    return iterations, largest


def test_the_step_limit_widens_up_to_step_limit(monkeypatch) -> None:
    """With eq. 18's damping a run starts at a quarter of ``step_limit`` and widens while the
    linear model predicts its steps: far targets take steps beyond the first radius (never
    beyond ``step_limit``) and fewer iterations than runs held at the first radius (the rule
    before the widening, here by a widening factor of 1)."""
    iterations, largest = _arm7_runs()
    assert DEFAULT_STEP_LIMIT < max(largest) <= WIDEST_STEP_LIMIT + 1e-12
    assert FIRST_SHARE * WIDEST_STEP_LIMIT == DEFAULT_STEP_LIMIT
    monkeypatch.setattr(dls_module, "WIDENING", 1.0)
    held, held_largest = _arm7_runs()
    assert max(held_largest) <= DEFAULT_STEP_LIMIT + 1e-12
    assert sum(iterations) < 0.8 * sum(held)
    _, bounded = _arm7_runs(step_limit=0.3)  # a given step_limit bounds every iteration
    assert max(bounded) <= 0.3 + 1e-12


def test_default_step_limit_bounds_pinv_steps() -> None:
    record = Recorder()
    solve(
        planar_arm(),
        [tip((-1.9, 0.1, 0.0))],
        initial=[0.0, 1e-7],
        method="pinv",
        restarts=0,
        time_limit=None,
        callback=record,
    )
    steps = [np.abs(b - a).max() for a, b in itertools.pairwise(record.xs)]
    assert steps and max(steps) <= DEFAULT_STEP_LIMIT + 1e-12


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("dls_damping", -0.1),
        ("dls_damping", float("nan")),
        ("dls_damping", "0.1"),
        ("step_limit", 0.0),
        ("step_limit", -1.0),
        ("step_limit", float("inf")),
        ("step_limit", True),
    ],
)
def test_bad_options_are_named(option: str, value: object) -> None:
    with pytest.raises(InvalidInputError, match=option):
        solve(planar_arm(), [tip((1.0, 1.0, 0.0))], method="dls", **{option: value})  # type: ignore[arg-type]


def test_fixed_damping_is_used() -> None:
    """A given ``dls_damping`` is the ``lambda`` of every iteration."""
    method = make_method("dls", MethodOptions(dls_damping=0.25))
    assert method.damping_at(np.array([3.0, 4.0]), 0.5) == 0.25  # type: ignore[attr-defined]
    pinv = make_method("pinv", MethodOptions(dls_damping=0.25))
    assert pinv.damping_at(np.array([3.0, 4.0]), 0.5) == 0.0  # type: ignore[attr-defined]


@pytest.mark.parametrize("method", METHODS)
def test_iteration_limit_stops_the_run(method: str) -> None:
    result = solve(
        arm7.arm(),
        [arm7.pose_constraint(arm7.targets(arm7.arm(), 1, seed=5)[0])],
        initial=arm7.mid_range(arm7.arm()),
        method=method,
        max_iterations=2,
        restarts=0,
        time_limit=None,
    )
    assert result.status == Status.MAX_ITERATIONS
    assert result.nit == 2 and not result.converged


def test_a_fixed_damping_reaches_the_target() -> None:
    record = Recorder()
    result = solve(
        planar_arm(),
        [tip((1.2, 0.9, 0.0))],
        initial=[0.2, 0.5],
        method="dls",
        dls_damping=0.05,
        restarts=0,
        time_limit=None,
        callback=record,
    )
    assert result.success and result.status == Status.GOAL_REACHED
    assert all(b < a for a, b in itertools.pairwise(record.fs))
