"""Global search: time limit, restarts near then far, singular starts, tracking recovery."""

import inspect

import numpy as np
import pytest

from solver import (
    Constraint,
    EndEffector,
    Figure,
    OrientationGoal,
    PositionGoal,
    Solver,
    Status,
    solve,
)
from tests import arm7


def straight_chain(lower: float = -3.0) -> Figure:
    """Three unit links along x, revolute about z; straight (singular) at zero."""
    fig = Figure()
    parent = None
    for i, name in enumerate(("a", "b", "c")):
        fig.add_segment(name, parent=parent, translation=(1.0 if i else 0.0, 0.0, 0.0))
        fig.add_revolute(name, "z", lower if i else -3.0, 3.0, name=f"j{i}")
        parent = name
    fig.add_segment("tip", parent="c", translation=(1.0, 0.0, 0.0))
    return fig


@pytest.mark.parametrize(
    "goal",
    [
        PositionGoal((2.0, 0.0, 0.0)),  # on the line, within reach: a saddle
        PositionGoal((-2.0, 0.0, 0.0)),  # straight behind: the maximum
    ],
    ids=["saddle", "maximum"],
)
def test_singular_straight_start_is_left(goal: PositionGoal) -> None:
    """Zero gradient at the straight start used to stop the solve at iteration 0."""
    c = Constraint(EndEffector("tip"), goal)
    assert not solve(straight_chain(), [c], restarts=0).success  # a local run is trapped
    result = solve(straight_chain(), [c], time_limit=None)
    assert result.success, str(result)
    assert result.restarts == 1  # the nudge off the stopping point is enough


def test_orientation_half_a_turn_away_is_reached() -> None:
    fig = straight_chain()
    goal = OrientationGoal(x=(-1.0, 0.0, 0.0))
    tip = EndEffector("tip", x=(1.0, 0.0, 0.0))
    result = solve(fig, [Constraint(tip, goal)], time_limit=None)
    assert result.success and result.restarts == 1, str(result)


def test_readme_arm_with_straight_elbow_at_its_limit() -> None:
    """The elbow's lower limit is 0, so the neutral pose is straight and singular; the limit
    enters the active set only if a step runs into it, so the first run bends the elbow
    (it used to start with the limit active and stop there, then needed a restart)."""
    fig = Figure()
    fig.add_segment("upper")
    fig.add_ball("upper", -1.5, 1.5)
    fig.add_segment("lower", parent="upper", translation=(0.6, 0.0, 0.0))
    fig.add_revolute("lower", (0, 0, 1), 0.0, 2.5, name="elbow")
    tip = EndEffector("lower", (0.5, 0, 0))
    result = solve(fig, [Constraint(tip, PositionGoal((0.6, 0.5, 0.0)))], time_limit=None)
    assert result.success and result.restarts == 0, str(result)


def planar_arm() -> Figure:
    """Two unit links in the xy plane; the shoulder turns in [-2.8, 2.8] only."""
    fig = Figure()
    fig.add_segment("upper")
    fig.add_revolute("upper", "z", -2.8, 2.8, name="shoulder")
    fig.add_segment("lower", parent="upper", translation=(1.0, 0.0, 0.0))
    fig.add_revolute("lower", "z", -2.6, 2.6, name="elbow")
    fig.add_segment("hand", parent="lower", translation=(1.0, 0.0, 0.0))
    return fig


def test_restarts_find_the_goal_behind_a_limit() -> None:
    """The elbow bent the wrong way holds the shoulder at its limit; flipping the elbow
    means passing the straight pose, farther from the target: a local minimum."""
    angle = 3.383
    goal = PositionGoal((1.5 * np.cos(angle), 1.5 * np.sin(angle), 0.0))
    c = Constraint(EndEffector("hand"), goal)
    start = np.array([2.5, -2.0])
    alone = solve(planar_arm(), [c], initial=start, restarts=0)
    assert not alone.success and alone.converged
    assert alone.values()["shoulder"] == 2.8
    searched = solve(planar_arm(), [c], initial=start, time_limit=None)
    assert searched.success and searched.restarts >= 2


def test_search_is_repeatable_for_a_seed() -> None:
    fig = straight_chain(lower=0.0)
    c = Constraint(EndEffector("tip"), PositionGoal((4.0, 1.0, 0.0)))  # out of reach
    runs = [
        solve(fig, [c], initial=[0.0, 0.4, 0.4], restarts=5, seed=seed, time_limit=None)
        for seed in (3, 3, 4)
    ]
    assert np.array_equal(runs[0].x, runs[1].x) and runs[0].nit == runs[1].nit
    assert runs[0].restarts == runs[2].restarts == 5


def test_time_limit_stops_the_first_run() -> None:
    fig = straight_chain()
    c = Constraint(EndEffector("tip"), PositionGoal((0.5, 2.0, 0.0)))
    result = solve(fig, [c], initial=[0.1, 0.1, 0.1], time_limit=1e-12)
    assert result.status == Status.TIME_LIMIT and not result.converged
    assert result.nit == 0 and result.restarts == 0


def test_time_limit_stops_the_restarts() -> None:
    """An unreachable target with a practically endless restart budget still returns."""
    fig = straight_chain()
    c = Constraint(EndEffector("tip"), PositionGoal((9.0, 1.0, 0.0)))
    # 0.3 s: room for the first run and some restarts even on a loaded machine.
    result = solve(fig, [c], restarts=10**9, time_limit=0.3)
    assert not result.success and 0 < result.restarts < 10**9


def test_bad_time_limit_is_named() -> None:
    from solver import InvalidInputError

    c = Constraint(EndEffector("tip"), PositionGoal((1.0, 1.0, 0.0)))
    for bad in (0.0, -1.0, float("nan"), "soon"):
        with pytest.raises(InvalidInputError, match="time_limit"):
            solve(straight_chain(), [c], time_limit=bad)


def test_options_are_typed_keywords() -> None:
    """solve()'s keyword options are exactly Solver's, typed by SolverOptions."""
    from typing import get_type_hints

    from solver.options import SolverOptions

    solver_keywords = set(inspect.signature(Solver).parameters) - {"figure", "constraints"}
    assert set(get_type_hints(SolverOptions)) == solver_keywords
    options = inspect.signature(solve).parameters["options"]
    assert options.kind == inspect.Parameter.VAR_KEYWORD
    assert "Unpack[SolverOptions]" in str(options.annotation)
    with pytest.raises(TypeError):
        solve(straight_chain(), [], restart=3)  # type: ignore[call-arg]


def _circle_track(**options: object) -> list[bool]:
    """A planar arm follows a target around a circle that crosses its shoulder limit.

    The shoulder turns in [-2.8, 2.8]: past 2.8 rad a warm start is held at the limit
    (a Kuhn-Tucker point) while the target stays reachable with the elbow bent back.
    """
    goal = PositionGoal((1.5, 0.0, 0.0))
    solver = Solver(planar_arm(), [Constraint(EndEffector("hand"), goal)], **options)
    reached = []
    for angle in np.linspace(0.0, 2.0 * np.pi, 73)[1:]:
        goal.point = (1.5 * np.cos(angle), 1.5 * np.sin(angle), 0.0)
        reached.append(solver.solve().success)
    return reached


def test_tracking_recovers_from_a_joint_limit() -> None:
    """Warm-started frame after frame: without restarts the arm stays stuck at the
    shoulder limit for many frames; with the defaults every frame is reached."""
    stuck = _circle_track(restarts=0)
    assert sum(not ok for ok in stuck) >= 5  # the scenario does trap a local solver
    assert all(_circle_track(time_limit=None))


def test_default_options_solve_seven_dof_full_pose_targets() -> None:
    """TRAC-IK's protocol on a 7-DOF arm with the default search (clock removed)."""
    fig = arm7.arm()
    poses = arm7.targets(fig, 40, seed=21)
    c = arm7.pose_constraint(poses[0])
    solver = Solver(fig, [c], time_limit=None)
    solved = 0
    for pose in poses:
        arm7.retarget(c, pose)
        solved += solver.solve(initial=arm7.mid_range(fig)).success
    assert solved == len(poses)
