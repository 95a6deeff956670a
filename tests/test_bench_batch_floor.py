"""The batch-last sketch of ``bench.batch_floor`` does the real work: its forward kinematics
is the grading one, and its iterations converge on reachable full-pose targets (so its
timing is a floor of a real iteration, not of an empty one). No timings."""

from __future__ import annotations

import numpy as np

from bench.batch_floor import Sketch, check
from bench.robots import robot_chain
from bench.serial import forward, rotation_angle, sample_targets


def test_the_sketch_is_the_grading_kinematics_and_its_iterations_converge() -> None:
    chain = robot_chain("iiwa7")
    sketch = Sketch(chain)
    rng = np.random.default_rng(2)
    assert check(sketch, rng.uniform(chain.lower, chain.upper, (5, chain.n)).T) < 1e-12
    targets = sample_targets(chain, 20, seed=1)
    rotations = [[targets.rotations[:, i, k].copy() for k in range(3)] for i in range(3)]
    points = [targets.positions[:, i].copy() for i in range(3)]
    q = np.repeat(chain.mid_range()[:, None], 20, axis=1)
    for _ in range(60):
        q = sketch.iteration(q, rotations, points)
    met = 0
    for b in range(20):
        position, rotation = forward(chain, q[:, b])
        off = np.linalg.norm(position - targets.positions[b])
        met += off < 1e-5 and rotation_angle(rotation, targets.rotations[b]) < 1e-3
    assert met >= 15, met
