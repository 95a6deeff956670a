"""Blender's IK-limit meaning (``bridge.blender_ik.ik_limits``) checked in closed form, without
Blender."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests.bridge_stubs import bridge_module

ik = bridge_module("blender_ik.ik_limits")
rotations = bridge_module("blender.channel_rotations")
solver = bridge_module("rig.joints").solver

FREE = (False, False, False)
ALL = (True, True, True)


def limits(lower: tuple, upper: tuple, locked: tuple = FREE, limited: tuple = ALL) -> object:
    """``ik_limits.Limits`` from degrees."""
    return ik.Limits(locked, limited, np.radians(lower), np.radians(upper))


def quaternion_matrix(q: np.ndarray) -> np.ndarray:
    """Rotation (3, 3) of a unit quaternion (w, x, y, z)."""
    w, x, y, z = q / np.linalg.norm(q)
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
    ])  # fmt: skip


def test_swing_twist_reads_a_swing_after_a_twist_as_blender_does() -> None:
    rng = np.random.default_rng(3)
    for _ in range(50):
        sx, sz = rng.uniform(-0.6, 0.6, 2)
        twist = rng.uniform(-3.0, 3.0)
        swing = quaternion_matrix(np.array([math.sqrt(1 - sx * sx - sz * sz), sx, 0.0, sz]))
        r = swing @ rotations.axis_rotation(1, twist)  # R = S T: twist first, about Y
        assert ik.swing_twist(r) == pytest.approx((sx, sz, twist), abs=1e-12)


@pytest.mark.parametrize("lone_z", [False, True])
def test_the_swing_groups_are_pure_swings_with_one_exact_component(lone_z: bool) -> None:
    plan = ik.limit_joints(limits((0, -10, -20), (0, 10, 30), limited=(not lone_z, True, True)))
    rng = np.random.default_rng(4)
    for _ in range(50):
        a, b, t = rng.uniform(-2.5, 2.5, 3)
        sx, sz, twist = ik.swing_twist(ik.rotation_of(plan, np.array([a, b, t])))
        assert twist == pytest.approx(t, abs=1e-12)  # the group adds no twist
        if lone_z:  # Rx(a/2) Rz(b) Rx(a/2)
            assert (sx, sz) == pytest.approx((math.cos(b / 2) * math.sin(a / 2), math.sin(b / 2)))
        else:  # Rz(b/2) Rx(a) Rz(b/2)
            assert (sx, sz) == pytest.approx((math.sin(a / 2), math.cos(a / 2) * math.sin(b / 2)))


@pytest.mark.parametrize(
    "locked",
    [FREE, (False, True, False), (True, False, False), (False, False, True),
     (True, True, False), (False, True, True), (True, False, True)],
)  # fmt: skip
def test_parameters_of_a_rotation_on_the_segment_give_it_back(locked: tuple) -> None:
    plan = ik.limit_joints(limits((-50, -50, -50), (50, 50, 50), locked))
    rng = np.random.default_rng(5)
    for _ in range(50):
        params = rng.uniform(-1.5, 1.5, len(plan.lower))
        r = ik.rotation_of(plan, params)
        assert ik.rotation_of(plan, ik.params_of(plan, r)) == pytest.approx(r, abs=1e-12)


def test_a_swing_segment_drops_the_twist_like_blender() -> None:
    plan = ik.limit_joints(limits((-50, 0, -50), (50, 0, 50), (False, True, False)))
    r = quaternion_matrix(np.array([0.9, 0.2, 0.3, -0.1]))
    projected = ik.rotation_of(plan, ik.params_of(plan, r))
    assert ik.swing_twist(projected)[2] == pytest.approx(0.0, abs=1e-12)
    assert projected[:, 1] == pytest.approx(r[:, 1])  # the bone points the same way


def test_the_ellipse_takes_each_quadrants_own_limits() -> None:
    lim = limits((-10, 0, -30), (40, 0, 5))  # X: -10..40, Z: -30..5 degrees
    on = math.sin(math.radians(20))  # a pure X turn of 40 degrees: on the ellipse
    assert ik.ellipse_excess(on, 0.0, lim) == pytest.approx(0.0, abs=1e-12)
    assert ik.ellipse_excess(-on, 0.0, lim) > 0.0  # -40 degrees: beyond -10
    assert ik.ellipse_excess(-math.sin(math.radians(5)), 0.0, lim) == pytest.approx(0.0, abs=1e-12)
    # X and Z both at 80 % of their (positive) limits: inside the Euler box, outside the ellipse
    corner = (0.8 * on, 0.8 * math.sin(math.radians(2.5)))
    assert ik.ellipse_excess(*corner, lim) == pytest.approx(0.28, abs=1e-12)


def test_a_zero_limit_makes_blenders_box_on_that_side() -> None:
    lim = limits((0, 0, -30), (40, 0, 30))  # min_x = 0: no swing to negative sx
    assert ik.ellipse_excess(-1e-3, 0.0, lim) > 0.0
    assert ik.ellipse_excess(0.0, 0.2, lim) <= 0.0


LIMIT_SETS = [
    ((-30, 0, -30), (30, 0, 30)),
    ((-20, 0, -60), (45, 0, 10)),
    ((-70, 0, -10), (10, 0, 80)),
    ((0, 0, -45), (120, 0, 45)),
    ((-175, 0, -90), (170, 0, 150)),
]


@pytest.mark.parametrize(("lower", "upper"), LIMIT_SETS)
def test_the_swing_polygon_is_inscribed_within_its_tolerance(lower: tuple, upper: tuple) -> None:
    lim = limits(lower, upper)
    rows, rhs = ik.swing_polygon(lim)
    # every point of the polygon is inside Blender's ellipse (dense random sample)
    rng = np.random.default_rng(6)
    points = rng.uniform(-math.pi, math.pi, (40000, 2))
    inside = points[np.all(points @ rows.T <= rhs, axis=1)]
    assert len(inside) > 100
    assert ik.ellipse_excess(*ik._to_swing(inside), lim).max() <= 0.0
    # and the ellipse's boundary is never far outside the polygon (radians in (a, b))
    outline = ik.swing_outline(lim, 8000)
    gap = float((outline @ rows.T - rhs).max())
    assert gap < 3 * ik.POLYGON_TOLERANCE


def test_the_figure_poses_and_limits_the_bone_as_the_plan_says() -> None:
    lim = limits((-20, -15, -60), (45, 25, 10))
    plan = ik.limit_joints(lim)
    fig = solver.Figure()
    fig.add_segment("arm")
    joints, coordinates = ik.add_to_figure(fig, "arm", plan, np.array([0.1, 0.2, 0.3]))
    assert [axis for axis, _ in joints] == [2, 0, 2, 1]
    assert fig.coordinate_rigidity() == pytest.approx([0.1, 0.3, 0.2])  # a -> X, b -> Z, t -> Y
    params = np.array([0.3, -0.5, 0.2])
    coords = np.zeros(len(fig.coordinate_names))
    for name, value in zip(coordinates, params, strict=True):
        coords[fig.coordinate_names.index(name)] = value
    assert fig.forward(coords)["arm"][:3, :3] == pytest.approx(ik.rotation_of(plan, params))
    # the rows on joint values are the plan's rows on the parameters
    q = fig.joint_values(coords)
    for row, rhs, con in zip(plan.rows, plan.rhs, fig.linear_constraints, strict=True):
        value = sum(c * q[j] for j, c in con.coefficients.items())
        assert value == pytest.approx(float(row @ params))
        assert con.upper == pytest.approx(rhs)


def _zero_limit_chain() -> object:
    """Three unit bones along +Y, each with IK limits (0, -45, -45); (120, 45, 45) degrees."""
    lim = limits((0, -45, -45), (120, 45, 45))
    fig = solver.Figure()
    for k in range(3):
        fig.add_segment(f"b{k}", None if k == 0 else f"b{k - 1}", (0.0, 1.0 if k else 0.0, 0.0))
        ik.add_to_figure(fig, f"b{k}", ik.limit_joints(lim), np.zeros(3))
    fig.add_segment("tip", "b2", (0.0, 1.0, 0.0))
    return fig


@pytest.mark.parametrize("point", [(-0.369, 0.099, 2.424), (0.226, 0.033, 1.442)])
def test_a_start_on_a_zero_limit_costs_no_more_iterations_than_one_inside(point: tuple) -> None:
    """The straight chain lies on every bone's ``a >= 0`` bound (and polygon edge). Entering
    all of them at the first step made the optimiser drop them one by one again: these
    targets (tips of poses inside the limits) took 53 and 163 iterations; from a start
    0.2 rad inside the bound they take 5 and 6."""
    fig = _zero_limit_chain()
    ik_solver = solver.Solver(
        fig, [solver.Constraint(solver.EndEffector("tip"), solver.PositionGoal(point))]
    )
    result = ik_solver.solve(np.zeros(len(fig.coordinate_names)))
    assert result.success
    assert result.nit <= 12


@pytest.mark.parametrize(("lower", "upper"), LIMIT_SETS[:4])
@pytest.mark.parametrize("at", [0.1, 0.4, 0.8])
def test_a_polygon_refined_around_a_point_stays_inscribed_and_hugs_it(
    lower: tuple, upper: tuple, at: float
) -> None:
    lim = limits(lower, upper)
    outline = ik.swing_outline(lim, 20000)  # finer than the polygon's own samples
    focus = outline[int(at * len(outline))]
    rows, rhs = ik.swing_polygon(lim, focus=focus)
    rng = np.random.default_rng(7)
    points = rng.uniform(-math.pi, math.pi, (40000, 2))
    inside = points[np.all(points @ rows.T <= rhs, axis=1)]
    assert ik.ellipse_excess(*ik._to_swing(inside), lim).max() <= 0.0
    corners = _vertices(rows, rhs)
    assert ik.ellipse_excess(*ik._to_swing(corners), lim).max() <= 0.0
    gaps = (outline @ rows.T - rhs).max(axis=1)  # > 0: that boundary point is outside
    near = np.hypot(*(outline - focus).T)
    (radius, gap), (fine_radius, _fine_gap) = ik.FOCUS_TIERS
    # the finest tier's gap plus the guard's pull of each vertex (MARGIN): at most 3.5e-6 rad
    # on these limits (7.6e-6 when the guard scaled the whole polygon towards the rest pose,
    # 5e-4 before the refinement)
    assert gaps[near <= fine_radius].max() < 4e-6
    assert gaps[near <= radius].max() < 2 * gap
    assert gaps.max() < 3 * ik.POLYGON_TOLERANCE


def _vertices(rows: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """Intersections (k, 2) of consecutive rows of a polygon listed in boundary order."""
    nxt = np.roll(np.arange(len(rows)), -1)
    out = []
    for i, j in zip(range(len(rows)), nxt, strict=True):
        m = np.array([rows[i], rows[j]])
        if abs(np.linalg.det(m)) > 1e-12:
            out.append(np.linalg.solve(m, [rhs[i], rhs[j]]))
    return np.array(out)


def _diagonal_chain() -> tuple[object, list, np.ndarray]:
    """Three unit bones with +-30 degree IK limits, and the tip of every bone swung to the
    ellipse's diagonal ``sx = sz = -sin(15 degrees) / sqrt(2)`` (where Blender's IK stops
    when pulled far that way: measured in ``tests/blender/test_ik_limits_meaning.py``)."""
    swing_rig = bridge_module("rig.joints")
    lim = limits((-30, -10, -30), (30, 10, 30))
    fig = solver.Figure()
    bones = []
    for k in range(3):
        name = f"b{k}"
        fig.add_segment(name, None if k == 0 else f"b{k - 1}", (0.0, 1.0 if k else 0.0, 0.0))
        plan = ik.limit_joints(lim)
        bone = swing_rig.SolvedBone(name, swing_rig.IK_SEGMENT, "QUATERNION", segment=plan)
        bone.rotation_joints, bone.coordinates = ik.add_to_figure(fig, name, plan, np.zeros(3))
        bones.append(bone)
    fig.add_segment("tip", "b2", (0.0, 1.0, 0.0))
    s = -math.sin(math.radians(15.0)) / math.sqrt(2.0)
    swing = quaternion_matrix(np.array([math.sqrt(1.0 - 2.0 * s * s), s, 0.0, s]))
    params = np.tile(ik.params_of(bones[0].segment, swing), 3)
    assert ik.ellipse_excess(s, s, lim) == pytest.approx(0.0, abs=1e-12)  # on the ellipse
    return fig, bones, fig.forward(params)["tip"][:3, 3]


def test_a_solve_held_by_the_polygon_is_refined_onto_the_ellipse() -> None:
    refine = bridge_module("solve.swing_refine")
    fig, bones, point = _diagonal_chain()
    goal = solver.Constraint(solver.EndEffector("tip"), solver.PositionGoal(point))
    options = {"tolerance": 5e-6, "restarts": 0, "time_limit": None}
    coarse = solver.Solver(fig, [goal], **options).solve(np.zeros(9))
    coarse_miss = np.linalg.norm(fig.forward(coarse.x)["tip"][:3, 3] - point)
    assert coarse_miss > 5e-5  # the polygon's gap (8.3e-5 measured)
    ik_solver = solver.Solver(fig, [goal], **options)
    result = refine.solve_refined(ik_solver, bones, np.zeros(9))
    miss = np.linalg.norm(fig.forward(result.x)["tip"][:3, 3] - point)
    assert miss < 1e-5, (coarse_miss, miss)
    assert result.nit > coarse.nit  # the refinement's iterations are counted
    # still inside Blender's limits: every bone's swing
    for bone in bones:
        values = [result.x[fig.coordinate_names.index(c)] for c in bone.coordinates]
        sx, sz, _twist = ik.swing_twist(ik.rotation_of(bone.segment, np.array(values)))
        assert ik.ellipse_excess(sx, sz, bone.segment.limits) <= 0.0


def test_a_refined_solve_under_a_step_bound_stays_within_it_of_the_start() -> None:
    """Under ``max_change`` (a smooth bake) each refinement solves again from the frame's
    start, not from the pose the last pass stopped at: no coordinate moves further than the
    bound in total (from the pose where the last pass stopped it moved 0.02024 > 0.02)."""
    refine = bridge_module("solve.swing_refine")
    fig, bones, point = _diagonal_chain()
    goal = solver.Constraint(solver.EndEffector("tip"), solver.PositionGoal(point))
    s = -math.sin(math.radians(15.0)) / math.sqrt(2.0)
    swing = quaternion_matrix(np.array([math.sqrt(1.0 - 2.0 * s * s), s, 0.0, s]))
    start = 0.95 * np.tile(ik.params_of(bones[0].segment, swing), 3)
    options = {"tolerance": 5e-6, "restarts": 0, "time_limit": None, "max_change": 0.02}
    result = refine.solve_refined(solver.Solver(fig, [goal], **options), bones, start)
    assert np.abs(result.x - start).max() <= 0.02 * (1.0 + 1e-9)
    assert result.success
