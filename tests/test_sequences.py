"""A reusable Solver across a sequence: retargeting, warm starts, toggling constraints."""

import numpy as np
import pytest

from solver import Constraint, EndEffector, Figure, PositionGoal, Solver, Status


def rot_z(angle: float) -> np.ndarray:
    c, s = np.cos(angle), np.sin(angle)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def three_link() -> Figure:
    """A spatial 3-link arm (ball shoulder, hinge elbow, ball wrist), lengths 0.5.

    The elbow rests bent by 0.6 rad, so the neutral pose is not a symmetric
    saddle for goals off the arm's plane.
    """
    fig = Figure()
    fig.add_segment("upper")
    fig.add_ball("upper", -2.5, 2.5)
    fig.add_segment("lower", parent="upper", translation=(0.5, 0.0, 0.0), rotation=rot_z(0.6))
    fig.add_revolute("lower", (0, 0, 1), -2.5, 2.5, name="elbow")
    fig.add_segment("hand", parent="lower", translation=(0.5, 0.0, 0.0))
    fig.add_ball("hand", -1.0, 1.0)
    return fig


def circle(t: float) -> np.ndarray:
    return np.array([0.6 + 0.3 * np.cos(t), 0.3 * np.sin(t), 0.4])


def test_retargeted_sequence_converges_from_warm_starts() -> None:
    fig = three_link()
    goal = PositionGoal(circle(0.0))
    solver = Solver(fig, [Constraint(EndEffector("hand", (0.5, 0, 0)), goal, name="tip")])
    previous = None
    for t in np.linspace(0.0, 2.0 * np.pi, 13):
        goal.point = circle(t)
        starts: list[np.ndarray] = []
        result = solver.solve(callback=lambda x, f, starts=starts: starts.append(x))
        assert result.success, f"t={t:.2f}: {result.message}"
        frame = fig.forward(result.x)["hand"]
        tip = frame[:3, :3] @ [0.5, 0, 0] + frame[:3, 3]
        assert np.allclose(tip, circle(t), atol=1e-5)
        if previous is not None:
            assert np.array_equal(starts[0], previous), "not warm-started from the last pose"
        previous = result.x


def test_a_retargeted_carried_goal_is_followed() -> None:
    """A goal carried by a segment, retargeted between solves (its local point moves), is
    solved where it now is: the hand tip meets the point carried by the upper arm."""
    fig = three_link()
    goal = PositionGoal((0.0, 0.0, 0.0), carrier="upper")
    solver = Solver(fig, [Constraint(EndEffector("hand", (0.5, 0, 0)), goal, name="tip")])
    for elbow, wrist in ((0.4, 0.2), (1.2, -0.5), (-0.8, 0.7)):  # reachable local points
        pose = fig.neutral()
        pose[3], pose[4] = elbow, wrist
        upper = fig.forward(pose)["upper"]
        local = upper[:3, :3].T @ (_tip(fig, pose) - upper[:3, 3])
        goal.point = local
        result = solver.solve()
        assert result.success, f"{local}: {result.message}"
        upper = fig.forward(result.x)["upper"]
        carried = upper[:3, :3] @ np.array(local) + upper[:3, 3]
        assert np.linalg.norm(_tip(fig, result.x) - carried) < 1e-5


def test_explicit_initial_overrides_the_warm_start() -> None:
    fig = three_link()
    goal = PositionGoal(circle(1.0))
    solver = Solver(fig, [Constraint(EndEffector("hand", (0.5, 0, 0)), goal)])
    solver.solve()
    starts: list[np.ndarray] = []
    solver.solve(initial=fig.neutral(), callback=lambda x, f: starts.append(x))
    assert np.array_equal(starts[0], fig.neutral())


def _tip(fig: Figure, x: np.ndarray) -> np.ndarray:
    frame = fig.forward(x)["hand"]
    return frame[:3, :3] @ [0.5, 0, 0] + frame[:3, 3]


def test_disabling_and_enabling_a_constraint_without_rebuilding() -> None:
    """Two goals pull one point apart; disabling one lets the other win exactly."""
    fig = three_link()
    a, b = np.array([0.8, 0.2, 0.3]), np.array([0.6, -0.2, 0.5])
    effector = EndEffector("hand", (0.5, 0, 0))
    pull_a = Constraint(effector, PositionGoal(a), name="a")
    pull_b = Constraint(effector, PositionGoal(b), name="b")
    solver = Solver(fig, [pull_a, pull_b])

    both = solver.solve()
    assert np.allclose(_tip(fig, both.x), (a + b) / 2, atol=1e-5)
    assert both.status == Status.KUHN_TUCKER

    pull_b.enabled = False
    only_a = solver.solve()
    assert only_a.success
    assert np.allclose(_tip(fig, only_a.x), a, atol=1e-5)
    assert [r.name for r in only_a.residuals] == ["a"]

    pull_b.enabled = True
    again = solver.solve()
    assert np.allclose(_tip(fig, again.x), (a + b) / 2, atol=1e-5)


def test_weights_change_the_compromise() -> None:
    """Eq. (25): with weights 3:1 the point settles at 3/4 of the way to the heavy goal."""
    fig = three_link()
    a, b = np.array([0.8, 0.2, 0.3]), np.array([0.6, -0.2, 0.5])
    effector = EndEffector("hand", (0.5, 0, 0))
    heavy = Constraint(effector, PositionGoal(a), weight=3.0, name="heavy")
    light = Constraint(effector, PositionGoal(b), weight=1.0, name="light")
    result = Solver(fig, [heavy, light]).solve()
    assert np.allclose(_tip(fig, result.x), 0.75 * a + 0.25 * b, atol=1e-5)


def test_set_rest_moves_the_figure_in_place() -> None:
    """set_rest updates a built figure; the same Solver then sees the new geometry."""
    fig = three_link()
    goal = PositionGoal((0.9, 0.1, 0.2))
    solver = Solver(fig, [Constraint(EndEffector("hand", (0.5, 0, 0)), goal, name="tip")])
    assert solver.solve().success
    fig.set_rest("upper", translation=(0.0, 0.0, 0.3))
    assert fig.forward()["upper"][2, 3] == pytest.approx(0.3)
    result = solver.solve()
    assert result.success
    assert np.allclose(_tip(fig, result.x), goal.point, atol=1e-5)


def test_changing_rigidity_between_solves_takes_effect() -> None:
    fig = three_link()
    goal = PositionGoal((0.3, 0.6, 0.2))
    solver = Solver(fig, [Constraint(EndEffector("hand", (0.5, 0, 0)), goal, name="tip")])
    solver.solve()
    for name in ("upper.x", "upper.y", "upper.z"):
        fig.set_rigidity(name, 1.0)
    result = solver.solve(initial=fig.neutral())
    for name in ("upper.x", "upper.y", "upper.z"):
        assert result.values()[name] == 0.0


def test_figure_grown_after_a_solve_is_picked_up() -> None:
    """A joint added after a solve re-assembles the problem on the next solve."""
    fig = Figure()
    fig.add_segment("arm")
    fig.add_revolute("arm", (0, 0, 1), name="turn")
    goal = PositionGoal((0.0, 1.0, 0.5))
    solver = Solver(fig, [Constraint(EndEffector("arm", (1, 0, 0)), goal, name="tip")])
    assert not solver.solve().success  # no way up yet
    fig.add_prismatic("arm", (0, 0, 1), name="lift")
    result = solver.solve()
    assert result.success
    assert result.values()["lift"] == pytest.approx(0.5, abs=1e-5)
