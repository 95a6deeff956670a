"""Rest rotations and pose goals from matrices, quaternions and roll-pitch-yaw (closed form)."""

import math

import numpy as np
import pytest

from solver import (
    Constraint,
    EndEffector,
    Figure,
    InvalidInputError,
    OrientationGoal,
    PositionOrientationGoal,
    solve,
)
from solver._checks import det3, rotation_matrix
from solver.model.rotations import quaternion_matrix, rpy_matrix
from tests.solver_checks import spatial_arm


def rx(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])


def ry(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])


def rz(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])


@pytest.mark.parametrize(("axis", "explicit"), [((1, 0, 0), rx), ((0, 1, 0), ry), ((0, 0, 1), rz)])
@pytest.mark.parametrize("angle", [0.0, 0.3, -1.2, math.pi])
def test_quaternion_of_an_axis_rotation_is_w_first(axis, explicit, angle: float) -> None:
    q = (math.cos(angle / 2), *(math.sin(angle / 2) * np.array(axis)))
    assert np.allclose(quaternion_matrix(q), explicit(angle), atol=1e-12)


def test_quaternion_sign_and_length_do_not_matter() -> None:
    q = np.array([0.3, -0.5, 0.2, 0.7])
    r = quaternion_matrix(q)
    assert np.allclose(quaternion_matrix(-q), r)
    assert np.allclose(quaternion_matrix(5.0 * q), r)
    assert np.allclose(r.T @ r, np.eye(3)) and np.isclose(np.linalg.det(r), 1.0)


def test_quaternion_of_120_degrees_about_the_diagonal_permutes_the_axes() -> None:
    half = math.radians(60.0)
    q = (math.cos(half), *(math.sin(half) / math.sqrt(3.0) * np.ones(3)))
    assert np.allclose(quaternion_matrix(q), [[0, 0, 1], [1, 0, 0], [0, 1, 0]], atol=1e-12)


@pytest.mark.parametrize(
    "rpy", [(0.3, 0.0, 0.0), (0.0, -0.4, 0.0), (0.0, 0.0, 1.1), (0.3, -0.4, 1.1)]
)
def test_rpy_is_yaw_after_pitch_after_roll_about_fixed_axes(rpy) -> None:
    roll, pitch, yaw = rpy
    assert np.allclose(rpy_matrix(rpy), rz(yaw) @ ry(pitch) @ rx(roll), atol=1e-12)


def test_rpy_composition_order_is_not_the_reverse() -> None:
    rpy = (0.3, -0.4, 1.1)
    assert not np.allclose(rpy_matrix(rpy), rx(0.3) @ ry(-0.4) @ rz(1.1))


@pytest.mark.parametrize("bad", [(0, 0, 0, 0), (1, 0, 0), "abc", (np.nan, 0, 0, 1)], ids=repr)
def test_bad_quaternions_are_rejected(bad) -> None:
    with pytest.raises(InvalidInputError, match="quaternion"):
        quaternion_matrix(bad)


def _figure(**rotation: object) -> Figure:
    fig = Figure()
    fig.add_segment("base")
    fig.add_revolute("base", "z", -3, 3, name="turn")
    fig.add_segment("tool", parent="base", translation=(1, 0, 0), **rotation)
    return fig


def test_rest_rotation_forms_agree() -> None:
    """The same rest rotation as a matrix, a quaternion and rpy gives the same figure."""
    rpy = (0.3, -0.4, 1.1)
    matrix = rz(1.1) @ ry(-0.4) @ rx(0.3)
    w = math.sqrt(1.0 + np.trace(matrix)) / 2.0  # Shepperd's formula, w > 0 here
    q = (
        w,
        (matrix[2, 1] - matrix[1, 2]) / (4 * w),
        (matrix[0, 2] - matrix[2, 0]) / (4 * w),
        (matrix[1, 0] - matrix[0, 1]) / (4 * w),
    )
    frames = [
        _figure(**kw).forward([0.4])["tool"]
        for kw in ({"rotation": matrix}, {"quaternion": q}, {"rpy": rpy})
    ]
    assert np.allclose(frames[0][:3, :3], rz(0.4) @ matrix)
    for frame in frames[1:]:
        assert np.allclose(frame, frames[0], atol=1e-12)


def test_set_rest_takes_the_same_forms() -> None:
    fig = _figure()
    fig.set_rest("tool", rpy=(0.0, 0.0, 0.5))
    assert np.allclose(fig.forward([0.0])["tool"][:3, :3], rz(0.5))
    fig.set_rest("tool", quaternion=(math.cos(0.1), math.sin(0.1), 0.0, 0.0))
    assert np.allclose(fig.forward([0.0])["tool"][:3, :3], rx(0.2))


def test_only_one_rest_rotation_form_is_accepted() -> None:
    with pytest.raises(InvalidInputError, match="only one"):
        _figure(rotation=np.eye(3), rpy=(0, 0, 0))
    fig = _figure()
    with pytest.raises(InvalidInputError, match="only one"):
        fig.set_rest("tool", translation=(2, 0, 0), quaternion=(1, 0, 0, 0), rpy=(0, 0, 0))
    assert np.allclose(fig.forward([0.0])["tool"][:3, 3], (1, 0, 0)), "changed on error"


def _pose(rotation: np.ndarray, point) -> np.ndarray:
    m = np.eye(4)
    m[:3, :3], m[:3, 3] = rotation, point
    return m


def test_pose_goal_from_matrix_reads_point_and_columns() -> None:
    m = _pose(rpy_matrix((0.2, 0.5, -0.7)), (1.0, 2.0, 3.0))
    goal = PositionOrientationGoal.from_matrix(m)
    assert np.allclose(goal.point, (1, 2, 3))
    assert np.allclose(goal.x, m[:3, 0]) and np.allclose(goal.y, m[:3, 1])
    orientation = OrientationGoal.from_matrix(m[:3, :3])
    assert np.allclose(orientation.x, m[:3, 0]) and np.allclose(orientation.y, m[:3, 1])


@pytest.mark.parametrize(
    "bad",
    [np.eye(3), np.zeros((4, 4)), 2.0 * np.eye(4), np.ones((4, 4)), "pose"],
    ids=["3x3", "zeros", "scaled", "ones", "string"],
)
def test_bad_pose_matrices_are_rejected_and_leave_the_target(bad) -> None:
    goal = PositionOrientationGoal.from_matrix(_pose(np.eye(3), (1, 0, 0)))
    with pytest.raises(InvalidInputError, match="PositionOrientationGoal"):
        goal.set_target(bad)
    assert np.allclose(goal.point, (1, 0, 0)) and np.allclose(goal.x, (1, 0, 0))


def test_a_matrix_pose_goal_moves_the_effector_frame_onto_the_target() -> None:
    """Solve with effector and goal both from matrices; compare whole frames."""
    fig = spatial_arm(3.0)
    tool = _pose(rpy_matrix((0.0, 0.3, 0.0)), (0.2, 0.0, 0.0))
    truth = np.array([0.3, -0.2, 0.4, 0.9, 0.2, -0.3, 0.5])
    target = fig.forward(truth)["hand"] @ tool
    goal = PositionOrientationGoal.from_matrix(target, degrees=57.29577951308232)
    c = Constraint(EndEffector.from_matrix("hand", tool), goal)
    result = solve(fig, [c], initial=truth + 0.2)
    assert result.success, result.message
    reached = fig.forward(result.x)["hand"] @ tool
    assert np.allclose(reached, target, atol=1e-4)
    goal.set_target(fig.forward(truth - 0.1)["hand"] @ tool)
    again = solve(fig, [c], initial=result.x)
    assert np.allclose(fig.forward(again.x)["hand"] @ tool, goal_matrix(goal), atol=1e-4)


def goal_matrix(goal: PositionOrientationGoal) -> np.ndarray:
    return _pose(np.column_stack((goal.x, goal.y, np.cross(goal.x, goal.y))), goal.point)


def test_determinant_of_a_3x3_is_numpys() -> None:
    rng = np.random.default_rng(3)
    for _ in range(200):
        m = rng.normal(size=(3, 3))
        assert det3(m) == pytest.approx(np.linalg.det(m), rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("scale", [1e-9, 1e-7, 3e-7, 1e-6, 3e-6, 1e-5, 1e-4])
def test_rotation_check_accepts_what_allclose_accepts(scale: float) -> None:
    """The rest-rotation check is allclose(R^T R, I, atol=1e-6) and det >= 0 written out."""
    rng = np.random.default_rng(int(1e9 * scale))
    for _ in range(200):
        q, _r = np.linalg.qr(rng.normal(size=(3, 3)))
        q *= np.sign(np.linalg.det(q))
        for m in (q + scale * rng.normal(size=(3, 3)), -q):
            expected = (
                np.abs(m).max() <= 1.0 + 1e-6
                and np.allclose(m.T @ m, np.eye(3), atol=1e-6)
                and np.linalg.det(m) >= 0
            )
            try:
                rotation_matrix(m, "m")
                accepted = True
            except InvalidInputError:
                accepted = False
            assert accepted == expected
