"""Does the analytic two-bone start help? ``Solver(analytic_start=...)`` off and on.

``python -m bench.two_bone_start [--quick]`` writes ``bench/TWO_BONE.md``: a two-bone
arm (ball shoulder, hinge elbow, forearm and a joint-less hand), with and without
joint limits, targets from random joint values within the limits (so reachable),

- cold: each target solved from the rest pose (the straight arm, a singular start);
- tracking: the hand path of a figure-eight in joint space (reachable within the
  limits), each frame warm-started from the previous frame's answer;

once with the method's run alone (``restarts=0``) and once with the default restarts
and time limit. Per row: solve rate, iterations (all runs of a solve), restarts, wall
and CPU time per solve, and for tracking the largest joint step between frames. The
machine is shared (its load is printed): times are inflated by other work, CPU times
less so, iteration counts not at all.
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import numpy as np

import solver
from solver import Constraint, EndEffector, Figure, PositionGoal

HERE = Path(__file__).resolve().parent
UPPER, LOWER, HAND = 0.30, 0.25, 0.08
"""Bone lengths (scene units): upper arm, forearm, hand."""
SHOULDER_LIMITS = ((-1.6, -1.1, -1.4), (2.6, 1.3, 1.4))
"""Ball shoulder box (radians about X, Y, Z)."""
ELBOW_LIMITS = (0.0, 2.6)
"""Elbow flexion (radians)."""


def arm(limits: bool) -> Figure:
    """Shoulder ball at a tilted torso, elbow hinge about X, a joint-less hand below it."""
    fig = Figure()
    fig.add_segment("torso", translation=(0.0, 0.0, 1.4), rpy=(0.0, 0.0, 0.3))
    fig.add_segment("upper", "torso", translation=(0.18, 0.0, 0.0), rpy=(0.0, 0.0, -1.2))
    lo, hi = SHOULDER_LIMITS if limits else (-np.inf, np.inf)
    fig.add_ball("upper", lo, hi)
    fig.add_segment("lower", "upper", translation=(0.0, UPPER, 0.0))
    fig.add_revolute("lower", (1, 0, 0), *(ELBOW_LIMITS if limits else (-np.inf, np.inf)))
    fig.add_segment("hand", "lower", translation=(0.0, LOWER, 0.0), rpy=(0.2, 0.0, 0.0))
    return fig


HAND_POINT = (0.0, HAND, 0.0)


def hand_point(fig: Figure, coords: np.ndarray) -> np.ndarray:
    """World position (3,) of the hand point at ``coords``."""
    frame = fig.forward(coords)["hand"]
    return frame[:3, :3] @ np.array(HAND_POINT) + frame[:3, 3]


def random_targets(fig: Figure, count: int, seed: int) -> np.ndarray:
    """(count, 3) hand positions of joint values drawn uniformly within the limits."""
    rng = np.random.default_rng(seed)
    lower, upper = fig.coordinate_bounds()
    lower, upper = np.maximum(lower, -np.pi), np.minimum(upper, np.pi)
    return np.array([hand_point(fig, rng.uniform(lower, upper)) for _ in range(count)])


def figure_eight(fig: Figure, frames: int) -> np.ndarray:
    """(frames, 3) hand positions of a figure-eight in joint space (reachable, in limits).

    The elbow stays between 0.7 and 1.7 rad and the shoulder within its box, so every
    frame is reachable with or without limits; the hand path is a smooth closed loop.
    """
    t = np.linspace(0.0, 2.0 * np.pi, frames, endpoint=False)
    path = np.stack(
        [
            0.9 + 0.5 * np.sin(t),
            0.3 * np.sin(2.0 * t),
            0.2 + 0.4 * np.cos(t),
            1.2 + 0.5 * np.sin(t),
        ],
        axis=1,
    )
    return np.array([hand_point(fig, q) for q in path])


@dataclass
class Row:
    """Per-solve outcomes of one configuration."""

    solved: list[bool] = field(default_factory=list)
    nit: list[int] = field(default_factory=list)
    restarts: list[int] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    step: float = 0.0  # largest joint step between consecutive frames (radians)

    def cells(self, tracking: bool) -> str:
        rate = 100.0 * float(np.mean(self.solved))
        cells = (
            f"{rate:.1f}% | {np.mean(self.nit):.2f} | {np.median(self.nit):.0f} | "
            f"{np.mean(self.restarts):.2f} | {1e3 * np.median(self.seconds):.2f} | "
            f"{1e3 * np.mean(self.seconds):.2f} | {1e3 * np.median(self.cpu):.2f}"
        )
        return cells + (f" | {self.step:.3f}" if tracking else " | -")


def run(limits: bool, analytic: bool, restarts: int, targets: np.ndarray, tracking: bool) -> Row:
    """Solve every target; cold from the rest pose, or tracking from the previous answer."""
    fig = arm(limits)
    goal = PositionGoal(targets[0])
    constraint = Constraint(EndEffector("hand", HAND_POINT), goal, name="hand")
    s = solver.Solver(
        fig,
        [constraint],
        analytic_start=analytic,
        restarts=restarts,
        time_limit=1.0 if restarts else None,
    )
    rest = fig.neutral()
    row = Row()
    previous = None
    for target in targets:
        goal.point = target
        clock = time.process_time()
        result = s.solve(None if tracking else rest)
        row.cpu.append(time.process_time() - clock)
        row.solved.append(result.success)
        row.nit.append(result.nit)
        row.restarts.append(result.restarts)
        row.seconds.append(result.time)
        if tracking and previous is not None:
            row.step = max(row.step, float(np.abs(result.x - previous).max()))
        previous = result.x
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer targets and frames")
    args = parser.parse_args()
    count, frames = (40, 60) if args.quick else (500, 240)
    load = os.getloadavg()
    lines = [
        "# Analytic two-bone start: off and on",
        "",
        f"Written by `python -m bench.two_bone_start` on {datetime.now():%Y-%m-%d}; "
        f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}, numpy {np.__version__}, OPENBLAS_NUM_THREADS="
        f"{os.environ.get('OPENBLAS_NUM_THREADS', 'unset')}; load average at the start "
        f"{load[0]:.1f}, {load[1]:.1f}, {load[2]:.1f} (1, 5, 15 min; the machine is shared, "
        "so times are inflated and noisy, iteration counts are not).",
        "",
        f"Arm: ball shoulder, hinge elbow, a joint-less hand (upper arm {UPPER}, forearm "
        f"{LOWER}, hand {HAND} units); limits when on: shoulder {SHOULDER_LIMITS[0]} to "
        f"{SHOULDER_LIMITS[1]} rad about X, Y, Z, elbow {ELBOW_LIMITS} rad. Cold: {count} "
        "targets from joint values drawn uniformly within the limits, each solved from the "
        f"rest pose (straight arm). Tracking: the hand path of a figure-eight in joint space "
        f"({frames} frames, reachable within the limits), each frame warm-started from the "
        "previous answer. Solved = every goal within the default "
        "tolerance (1e-6 of the arm's length). Default method (gauss-newton-hybrid); "
        "restarts 0 (one run) or the default 100 within the default 1 s limit. "
        "nit counts the iterations of every run of a solve; max step is the largest change "
        "of any joint between consecutive frames (radians; the first frame, from the rest "
        "pose, not counted). Times per solve: wall clock (the solve's own `time`) and the "
        "process's CPU time around it (less distorted by other load).",
        "",
        "| limits | starts | restarts | analytic_start | solved | mean nit | median nit "
        "| mean restarts | median ms | mean ms | median CPU ms | max step |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for limits in (False, True):
        cold = random_targets(arm(limits), count, seed=1)
        eight = figure_eight(arm(limits), frames)
        for tracking, targets in ((False, cold), (True, eight)):
            for restarts in (0, 100):
                for analytic in (False, True):
                    row = run(limits, analytic, restarts, targets, tracking)
                    lines.append(
                        f"| {'on' if limits else 'off'} | {'tracking' if tracking else 'cold'} "
                        f"| {restarts} | {analytic} | {row.cells(tracking)} |"
                    )
                    print(lines[-1], flush=True)
    (HERE / "TWO_BONE.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
