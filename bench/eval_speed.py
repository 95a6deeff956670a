"""One objective + gradient evaluation of Reach IK against a minimal numpy sketch.

``python -m bench.eval_speed`` times, in the same run and interleaved, on the KUKA
iiwa 7 (7 DOF, from ``pybullet_data``) with a full-pose goal (tip point and its X, Y
directions, as :class:`solver.PositionOrientationGoal` uses them):

- **sketch**: a plain batched-numpy forward kinematics + Jacobian: joint rotations
  for all joints at once (Rodrigues), prefix products by doubling (three batched
  4x4 products for 7 joints), Jacobian columns by hand-written cross products, then
  the same weighted residual's objective ``f = |r|^2`` and gradient ``2 J^T r``;
- **reach**: :meth:`solver.assembly.problem.Problem.evaluate` on the same arm and goal.

It prints the median and 95th percentile of each (microseconds per call) and their
ratio; the target is reach within 1.5x of the sketch. Both answers are compared
before timing so the two do the same work.
"""

from __future__ import annotations

import argparse
import math
import time
from dataclasses import dataclass

import numpy as np

import solver
from bench.figures import chain_figure, chain_tip
from bench.robots import robot_chain
from bench.serial import SerialChain, forward


@dataclass(frozen=True)
class Sketch:
    """Precomputed arrays of a serial chain for :func:`sketch_evaluate`.

    origins: (n, 4, 4) joint frames; axes: (n, 3) unit local axes; skew, skew2:
    (n, 3, 3) cross-product matrices K and K @ K; tip: (4, 4) tip frame;
    target: (9,) weighted goal (point, x, y); weights: (9,) residual scales.
    """

    origins: np.ndarray
    axes: np.ndarray
    skew: np.ndarray
    skew2: np.ndarray
    tip: np.ndarray
    target: np.ndarray
    weights: np.ndarray


def make_sketch(chain: SerialChain, target: np.ndarray, weights: np.ndarray) -> Sketch:
    """The sketch's constant arrays for ``chain`` and a (9,) target with (9,) scales."""
    axes = np.asarray(chain.axes, dtype=float)
    k = np.zeros((len(axes), 3, 3))
    k[:, 0, 1], k[:, 0, 2], k[:, 1, 2] = -axes[:, 2], axes[:, 1], -axes[:, 0]
    k[:, 1, 0], k[:, 2, 0], k[:, 2, 1] = axes[:, 2], -axes[:, 1], axes[:, 0]
    return Sketch(np.asarray(chain.origins), axes, k, k @ k, chain.tip, target, weights)


def sketch_evaluate(s: Sketch, q: np.ndarray) -> tuple[float, np.ndarray]:
    """Objective and gradient (n,) of the weighted full-pose residual at joint angles ``q``."""
    n = len(q)
    rot = np.eye(3) + np.sin(q)[:, None, None] * s.skew + (1.0 - np.cos(q))[:, None, None] * s.skew2
    local = s.origins.copy()
    local[:, :3, :3] = s.origins[:, :3, :3] @ rot
    d = 1
    while d < n:  # inclusive prefix products by doubling (Hillis-Steele)
        local[d:] = local[:-d] @ local[d:]
        d *= 2
    tip = local[-1] @ s.tip
    axes = np.einsum("nab,nb->na", local[:, :3, :3], s.axes)
    pivots = local[:, :3, 3]
    parts = np.stack((tip[:3, 3], tip[:3, 0], tip[:3, 1]))  # point, x, y
    vectors = np.broadcast_to(parts[:, None, :], (3, n, 3)).copy()
    vectors[0] -= pivots
    a0, a1, a2 = axes[:, 0], axes[:, 1], axes[:, 2]
    v0, v1, v2 = vectors[..., 0], vectors[..., 1], vectors[..., 2]
    jac = np.empty((3, 3, n))  # (part, xyz, joint): u x (r - p), u x x, u x y (eqs. 3, 4)
    jac[:, 0] = a1 * v2 - a2 * v1
    jac[:, 1] = a2 * v0 - a0 * v2
    jac[:, 2] = a0 * v1 - a1 * v0
    jac = jac.reshape(9, n) * s.weights[:, None]
    r = s.weights * (parts.reshape(9) - s.target)
    return float(r @ r), 2.0 * (jac.T @ r)


def _pose_problem(chain: SerialChain, point: np.ndarray, rotation: np.ndarray):
    figure = chain_figure(chain)
    goal = solver.PositionOrientationGoal(point, x=rotation[:, 0], y=rotation[:, 1])
    constraint = solver.Constraint(chain_tip(chain, orientation=True), goal)
    return solver.Solver(figure, [constraint]).problem, goal


def _residual_scales(goal: solver.PositionOrientationGoal) -> np.ndarray:
    """The (9,) scales Reach applies to (point, x, y) differences (eq. 12)."""
    position = math.sqrt(goal.position_weight)
    orientation = math.sqrt(1.0 - goal.position_weight)
    return np.repeat([position, orientation * goal.cx, orientation * goal.cy], 3)


@dataclass(frozen=True)
class Timing:
    """Per-call times in microseconds."""

    median: float
    p95: float


def _timing(samples: list[float]) -> Timing:
    us = 1e6 * np.asarray(samples)
    return Timing(float(np.median(us)), float(np.percentile(us, 95)))


def measure(robot: str = "iiwa7", calls: int = 3000, seed: int = 7) -> dict[str, Timing]:
    """Time both evaluations, interleaved, at ``calls`` random in-limit configurations."""
    chain = robot_chain(robot)
    rng = np.random.default_rng(seed)
    point, rotation = forward(chain, rng.uniform(chain.lower, chain.upper))
    problem, goal = _pose_problem(chain, point, rotation)
    target = np.concatenate((point, rotation[:, 0], rotation[:, 1]))
    sketch = make_sketch(chain, target, _residual_scales(goal))
    configs = rng.uniform(chain.lower, chain.upper, size=(calls, chain.n))
    for q in configs[:5]:  # same work: same objective and gradient
        f, g = sketch_evaluate(sketch, q)
        e = problem.evaluate(problem.from_coordinates(q))
        assert math.isclose(f, e.f, rel_tol=1e-9), (f, e.f)
        assert np.allclose(g, e.g, rtol=1e-9, atol=1e-9), (g, e.g)
    times: dict[str, list[float]] = {"sketch": [], "reach": []}
    clock = time.perf_counter
    for q in configs:
        y = problem.from_coordinates(q)
        start = clock()
        sketch_evaluate(sketch, q)
        middle = clock()
        problem.evaluate(y)
        end = clock()
        times["sketch"].append(middle - start)
        times["reach"].append(end - middle)
    return {name: _timing(values) for name, values in times.items()}


def report(timings: dict[str, Timing]) -> str:
    """A short table: median and p95 per call, and reach / sketch."""
    sketch, reach = timings["sketch"], timings["reach"]
    lines = [
        "objective + gradient, KUKA iiwa 7, full pose (us per call)",
        f"  sketch (numpy FK + Jacobian): median {sketch.median:7.1f}  p95 {sketch.p95:7.1f}",
        f"  reach  (Problem.evaluate):    median {reach.median:7.1f}  p95 {reach.p95:7.1f}",
        f"  ratio reach / sketch: median {reach.median / sketch.median:.2f}x"
        f"  p95 {reach.p95 / sketch.p95:.2f}x  (target <= 1.5x)",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    """Command line: ``python -m bench.eval_speed [--calls N] [--robot iiwa7|xarm6]``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=3000)
    parser.add_argument("--robot", default="iiwa7")
    args = parser.parse_args(argv)
    print(report(measure(args.robot, args.calls)))


if __name__ == "__main__":
    main()
