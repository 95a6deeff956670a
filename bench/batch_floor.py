"""The least one damped least-squares iteration of a numpy batch can cost per problem.

``python -m bench.batch_floor`` times, on the KUKA iiwa 7 with full-pose targets (the
batch section's protocol, :mod:`bench.batch`), a minimal batched iteration written for speed
alone — the **batch-last sketch**: every quantity a list of (B,) arrays (structure of
arrays, so every numpy operation runs over the whole batch and no 3x3 or 4x4 product is a
stack of tiny matrices), constant joint frames folded into the rotations, forward kinematics
joint by joint, the tip's position and orientation error, the 6 x 7 Jacobian by cross
products, ``(J J^T + lambda^2 I) y = e`` by an unrolled Cholesky factorisation and
``dq = J^T y`` clipped to the limits. Nothing else: no bounded step, no stopping checks, no
restarts, no per-problem bookkeeping — each a cost the real batch pays on top.

It prints microseconds per problem and iteration at B = 100, 1,000 and 10,000 (median of
:data:`REPEATS` timed runs of :data:`ITERATIONS` iterations), and checks first that the
sketch's forward kinematics is :func:`bench.serial.forward`'s, so it does the real work.
Times the iteration count the batch needs (``bench.batch``'s mean) give the floor of a
numpy batch's time per solve on this machine.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from bench.robots import robot_chain
from bench.serial import SerialChain, forward, sample_targets

SIZES = (100, 1000, 10000)
ITERATIONS = 10
REPEATS = 5
DAMPING = 1e-2
"""lambda^2 of the sketch's damped step (its value does not change the cost)."""

Rows = list[list[np.ndarray]]


def _skew(u: np.ndarray) -> np.ndarray:
    return np.array([[0.0, -u[2], u[1]], [u[2], 0.0, -u[0]], [-u[1], u[0], 0.0]])


class Sketch:
    """Constant arrays of a serial chain, and one batch-last iteration of it.

    Each joint's rest rotation ``O`` and axis ``u`` give ``O Rot(u, q) = O + sin(q) O K +
    (1 - cos(q)) O K^2`` (``K`` the cross-product matrix of ``u``): three constant 3x3
    matrices per joint, combined with (B,) sines and cosines entry by entry.
    """

    def __init__(self, chain: SerialChain) -> None:
        self.chain = chain
        self.joints = []
        for origin, axis in zip(chain.origins, chain.axes, strict=True):
            rest, k = origin[:3, :3], _skew(np.asarray(axis, dtype=float))
            self.joints.append((rest, rest @ k, rest @ k @ k, origin[:3, 3], np.asarray(axis)))
        self.tip = chain.tip
        self.lower, self.upper = chain.lower[:, None], chain.upper[:, None]

    def forward(self, q: np.ndarray) -> tuple[Rows, list[np.ndarray], list, list]:
        """Tip rotation (3 x 3 of (B,)), tip position (3 of (B,)), and each joint's world
        axis and pivot, for joint values ``q`` (n, B)."""
        size = q.shape[1]
        one, zero = np.ones(size), np.zeros(size)
        r: Rows = [[one if i == k else zero for k in range(3)] for i in range(3)]
        p = [zero, zero, zero]
        axes, pivots = [], []
        for j, (rest, rk, rk2, offset, axis) in enumerate(self.joints):
            s, c = np.sin(q[j]), 1.0 - np.cos(q[j])
            p = [p[i] + sum(r[i][k] * offset[k] for k in range(3) if offset[k]) for i in range(3)]
            m = [[rest[i, k] + s * rk[i, k] + c * rk2[i, k] for k in range(3)] for i in range(3)]
            r = [[r[i][0] * m[0][k] + r[i][1] * m[1][k] + r[i][2] * m[2][k] for k in range(3)]
                 for i in range(3)]  # fmt: skip
            axes.append([sum(r[i][k] * axis[k] for k in range(3) if axis[k]) for i in range(3)])
            pivots.append(p)
        tip_r, tip_t = self.tip[:3, :3], self.tip[:3, 3]
        p = [p[i] + sum(r[i][k] * tip_t[k] for k in range(3) if tip_t[k]) for i in range(3)]
        r = [[sum(r[i][m] * tip_r[m, k] for m in range(3) if tip_r[m, k]) for k in range(3)]
             for i in range(3)]  # fmt: skip
        return r, p, axes, pivots

    def iteration(self, q: np.ndarray, rotations: Rows, points: list[np.ndarray]) -> np.ndarray:
        """One damped least-squares step for all B problems: ``q`` (n, B) -> (n, B)."""
        r, p, axes, pivots = self.forward(q)
        error = [points[i] - p[i] for i in range(3)]
        # Orientation error: half the vee of R_target R^T - its transpose.
        e = [[sum(rotations[i][k] * r[j][k] for k in range(3)) for j in range(3)] for i in range(3)]
        error += [0.5 * (e[2][1] - e[1][2]), 0.5 * (e[0][2] - e[2][0]), 0.5 * (e[1][0] - e[0][1])]
        columns = []
        for z, pivot in zip(axes, pivots, strict=True):
            d = [p[i] - pivot[i] for i in range(3)]
            columns.append([z[1] * d[2] - z[2] * d[1], z[2] * d[0] - z[0] * d[2],
                            z[0] * d[1] - z[1] * d[0], z[0], z[1], z[2]])  # fmt: skip
        a = [[np.zeros(0)] * 6 for _ in range(6)]
        for i in range(6):
            for k in range(i, 6):
                v = sum(col[i] * col[k] for col in columns)
                a[i][k] = a[k][i] = v + DAMPING if i == k else v
        low: Rows = [[np.zeros(0)] * 6 for _ in range(6)]
        for i in range(6):
            for k in range(i + 1):
                v = a[i][k] - sum(low[i][m] * low[k][m] for m in range(k))
                low[i][k] = np.sqrt(v) if i == k else v / low[k][k]
        y: list[np.ndarray] = []
        for i in range(6):
            y.append((error[i] - sum(low[i][m] * y[m] for m in range(i))) / low[i][i])
        x: list[np.ndarray] = [np.zeros(0)] * 6
        for i in reversed(range(6)):
            x[i] = (y[i] - sum(low[m][i] * x[m] for m in range(i + 1, 6))) / low[i][i]
        step = np.array([sum(col[k] * x[k] for k in range(6)) for col in columns])
        return np.clip(q + step, self.lower, self.upper)


def check(sketch: Sketch, q: np.ndarray) -> float:
    """Largest difference of the sketch's tip pose from :func:`bench.serial.forward`."""
    r, p, _axes, _pivots = sketch.forward(q)
    worst = 0.0
    for b in range(q.shape[1]):
        position, rotation = forward(sketch.chain, q[:, b])
        mine = np.array([[r[i][k][b] for k in range(3)] for i in range(3)])
        moved = np.abs(np.array(p)[:, b] - position).max()
        worst = max(worst, np.abs(mine - rotation).max(), moved)
    return float(worst)


def per_problem_iteration(sketch: Sketch, size: int) -> float:
    """Median microseconds per problem and iteration at batch size ``size``."""
    chain = sketch.chain
    targets = sample_targets(chain, size, seed=1)
    rotations = [[targets.rotations[:, i, k].copy() for k in range(3)] for i in range(3)]
    points = [targets.positions[:, i].copy() for i in range(3)]
    start = np.repeat(chain.mid_range()[:, None], size, axis=1)
    sketch.iteration(start, rotations, points)
    seconds = []
    for _ in range(REPEATS):
        q = start
        clock = time.perf_counter()
        for _ in range(ITERATIONS):
            q = sketch.iteration(q, rotations, points)
        seconds.append(time.perf_counter() - clock)
    return float(np.median(seconds)) / ITERATIONS / size * 1e6


def main(argv: list[str] | None = None) -> int:
    argparse.ArgumentParser(description=__doc__.split("\n\n")[0]).parse_args(argv)
    chain = robot_chain("iiwa7")
    sketch = Sketch(chain)
    rng = np.random.default_rng(0)
    q = rng.uniform(chain.lower, chain.upper, (8, chain.n)).T
    print(f"sketch forward kinematics against bench.serial.forward: {check(sketch, q):.1e}")
    print("| B | us per problem and iteration |")
    print("|---|---|")
    for size in SIZES:
        print(f"| {size:,} | {per_problem_iteration(sketch, size):.2f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
