"""How far a chain's end-effector can be from its top pivot (:mod:`bridge.envelope.farthest`):
never nearer than any pose within the limits puts it (random chains, sampled poses), and the
true farthest distance for an arm of free ball joints and a bent, limited elbow (closed form);
where a held orientation puts the point from its segment's origin, within the slack the
angle tolerance leaves (sampled rotations)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests.bridge_stubs import bridge_module, package_module
from tests.solver_checks import random_rotation

farthest_module = bridge_module("envelope.farthest")
farthest, held_offset = farthest_module.farthest, farthest_module.held_offset
solver = package_module("solver")


def _random_chain(rng: np.random.Generator, links: int) -> solver.Figure:
    """A root and ``links`` segments below it, each with a random rest and one of: a free
    ball, a limited hinge, a limited ball, a slide, two hinges in a joint group, nothing; some
    not inheriting their parent's rotation."""
    figure = solver.Figure()
    figure.add_segment("s0", translation=rng.uniform(-1, 1, 3), rotation=random_rotation(rng))
    figure.add_ball("s0")
    for k in range(1, links + 1):
        name = f"s{k}"
        figure.add_segment(
            name, f"s{k - 1}", translation=rng.uniform(-0.6, 0.6, 3),
            rotation=random_rotation(rng), inherit_rotation=bool(rng.random() > 0.2),
        )  # fmt: skip
        kind = rng.integers(6)
        if kind == 0:
            figure.add_ball(name)
        elif kind == 1:
            low = rng.uniform(-2.5, 1.0)
            figure.add_revolute(name, random_rotation(rng)[0], low, low + rng.uniform(0.1, 2.5))
        elif kind == 2:
            low = rng.uniform(-1.5, 0.0, 3)
            figure.add_ball(name, low, low + rng.uniform(0.1, 1.5, 3))
        elif kind == 3:
            figure.add_prismatic(name, random_rotation(rng)[1], -0.3, 0.4)
        elif kind == 4:
            pair = [figure.add_revolute(name, random_rotation(rng)[k]) for k in (0, 1)]
            figure.add_group(f"{name}.pair", pair, [[1.0], [rng.uniform(-1, 1)]], -0.8, 0.6)
    return figure


def _distances(
    figure: solver.Figure, coords: np.ndarray, top: str, segment: str, point: np.ndarray
) -> np.ndarray:
    """(B,) distances of ``point`` on ``segment`` from ``top``'s origin at ``coords`` (B, n)."""
    frames = figure.kinematics.forward(coords @ figure.coupling.T)
    s, t = figure.segment_index(segment), figure.segment_index(top)
    tips = np.einsum("bij,j->bi", frames.rotations[:, s], point) + frames.origins[:, s]
    return np.linalg.norm(tips - frames.origins[:, t], axis=1)


@pytest.mark.parametrize("seed", range(12))
def test_no_pose_within_the_limits_goes_farther(seed: int) -> None:
    rng = np.random.default_rng(seed)
    links = int(rng.integers(2, 6))
    figure = _random_chain(rng, links)
    top = f"s{rng.integers(0, links - 1)}"
    segment = f"s{links}"
    point = rng.uniform(-0.5, 0.5, 3)
    lower, upper = figure.coordinate_bounds()
    held = rng.uniform(np.maximum(lower, -math.pi), np.minimum(upper, math.pi))
    # The solves move a random part of the coordinates (no slide): the joints they drive.
    coupling = figure.coupling
    revolute = solver.model.structure.REVOLUTE
    turning = [c for c in range(coupling.shape[1]) if figure.joints[
        int(np.flatnonzero(coupling[:, c])[0])].kind == revolute]  # fmt: skip
    free = np.array([c for c in turning if rng.random() < 0.8], dtype=int)
    moving = np.flatnonzero(np.abs(coupling[:, free]).sum(axis=1) > 0.0)
    bound = farthest(
        figure, coupling @ held, moving, figure.segment_index(top),
        figure.segment_index(segment), point,
    )  # fmt: skip
    coords = np.tile(held, (20000, 1))
    low, high = np.maximum(lower[free], -math.pi), np.minimum(upper[free], math.pi)
    coords[:, free] = rng.uniform(low, high, (20000, len(free)))
    coords[:2000, free] = np.where(rng.random((2000, len(free))) < 0.5, low, high)  # corners
    assert _distances(figure, coords, top, segment, point).max() <= bound + 1e-9


def _arm(bend: float) -> tuple[solver.Figure, tuple[float, float, float, float]]:
    """A shoulder (root), upper arm and hand with free ball joints, and a forearm whose rest is
    bent by ``bend`` (radians) about X with a hinge about X limited to [0, 150] degrees."""
    a, b, c, d = 0.2, 0.29, 0.26, 0.08
    figure = solver.Figure()
    figure.add_segment("shoulder")
    figure.add_ball("shoulder")
    figure.add_segment("upper", "shoulder", translation=(0.0, a, 0.0))
    figure.add_ball("upper")
    cos, sin = math.cos(bend), math.sin(bend)
    rest = np.array([[1.0, 0.0, 0.0], [0.0, cos, -sin], [0.0, sin, cos]])
    figure.add_segment("fore", "upper", translation=(0.0, b, 0.0), rotation=rest)
    figure.add_revolute("fore", (1.0, 0.0, 0.0), 0.0, math.radians(150.0))
    figure.add_segment("hand", "fore", translation=(0.0, c, 0.0))
    figure.add_ball("hand")
    return figure, (a, b, c, d)


@pytest.mark.parametrize("bend_degrees", [21.0, 5.0, -20.0, 0.0])
def test_an_arm_with_a_bent_elbow_reaches_its_closed_form(bend_degrees: float) -> None:
    figure, (a, b, c, d) = _arm(math.radians(bend_degrees))
    moving = np.arange(len(figure.joints))
    bound = farthest(
        figure, np.zeros(len(figure.joints)), moving, figure.segment_index("shoulder"),
        figure.segment_index("hand"), np.array([0.0, d, 0.0]),
    )  # fmt: skip
    # The elbow straightens as far as its limit lets it: bend + hinge >= max(bend, 0).
    least = math.radians(max(bend_degrees, 0.0))
    expected = a + math.sqrt(b * b + c * c + 2.0 * b * c * math.cos(least)) + d
    assert bound == pytest.approx(expected, abs=1e-12)
    if bend_degrees > 0.0:
        assert bound < a + b + c + d - 1e-4  # inside the span: the shell it proves unreached


def test_a_top_that_is_not_above_the_segment_is_refused() -> None:
    figure, _lengths = _arm(0.0)
    with pytest.raises(ValueError, match="not above"):
        farthest(
            figure, np.zeros(len(figure.joints)), np.arange(len(figure.joints)),
            figure.segment_index("hand"), figure.segment_index("upper"), np.zeros(3),
        )  # fmt: skip


def _turn(axis: np.ndarray, angle: float) -> np.ndarray:
    k = np.array([[0.0, -axis[2], axis[1]], [axis[2], 0.0, -axis[0]], [-axis[1], axis[0], 0.0]])
    return np.eye(3) + math.sin(angle) * k + (1.0 - math.cos(angle)) * (k @ k)


def _angle(a: np.ndarray, b: np.ndarray) -> float:
    return math.acos(float(np.clip(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)), -1.0, 1.0)))


@pytest.mark.parametrize("seed", range(6))
def test_a_held_orientation_puts_the_point_within_its_slack(seed: int) -> None:
    rng = np.random.default_rng(seed)
    frame, local = random_rotation(rng), random_rotation(rng)
    tilt = 1e-8 * rng.standard_normal(3)  # single-precision axes: a little off right angles
    goal = solver.PositionOrientationGoal(np.zeros(3), frame[:, 0], frame[:, 1] + tilt)
    effector = solver.EndEffector("s", rng.uniform(-1.0, 1.0, 3), local[:, 0], local[:, 1])
    tolerance = math.radians(rng.uniform(0.01, 5.0))
    held = held_offset(goal, effector, tolerance)
    assert held is not None
    offset, slack = held
    # The rotation turning the effector's axes onto the goal's, and rotations near it whose
    # axes stay within the tolerance: the point stays within the slack of the offset.
    exact = frame @ local.T
    assert np.allclose(exact @ effector.point, offset, atol=1e-7)
    worst = 0.0
    for _ in range(3000):
        turned = _turn(random_rotation(rng)[0], rng.uniform(0.0, 2.0 * tolerance)) @ exact
        if max(_angle(turned @ local[:, k], frame[:, k]) for k in (0, 1)) <= tolerance:
            worst = max(worst, float(np.linalg.norm(turned @ effector.point - offset)))
    assert 0.0 < worst <= slack
    assert slack <= 4.0 * tolerance * np.linalg.norm(effector.point)  # a slack, not a guess


def test_goals_that_leave_the_rotation_free_hold_no_offset() -> None:
    effector = solver.EndEffector("s", (0.0, 1.0, 0.0), (1.0, 0.0, 0.0), (0.0, 1.0, 0.0))
    x, y = (1.0, 0.0, 0.0), (0.0, 1.0, 0.0)
    assert held_offset(solver.PositionGoal(np.zeros(3)), effector, 0.01) is None
    only_x = solver.PositionOrientationGoal(np.zeros(3), x, None)
    assert held_offset(only_x, effector, 0.01) is None
    position_only = solver.PositionOrientationGoal(np.zeros(3), x, y, position_weight=1.0)
    assert held_offset(position_only, effector, 0.01) is None
    bare = solver.EndEffector("s", (0.0, 1.0, 0.0))
    assert held_offset(solver.PositionOrientationGoal(np.zeros(3), x, y), bare, 0.01) is None
