"""Smooth tracking: the seed-001 Fig. 1 shoulder example, bounded and unbounded.

``python -m bench.smooth_tracking`` tracks a hand target frame by frame on the planar
shoulder-elbow arm of Maciejewski's Fig. 1 (sagittal plane; the hand passes just under,
then just over the shoulder, so the shoulder must swing through its whole range) and on a
figure-eight crossing the shoulder, in the ways the solver offers, and writes
``bench/SMOOTH.md``: the largest joint change in one frame, the frames the tip takes to
recover after each crossing, and the worst tip error.

The arm: upper arm and forearm of 0.3 scene units, shoulder and elbow hinges about ``y``
(the arm hangs along ``-z``, ``x`` is forward); the elbow flexes one way only, at most
3.12 rad, so the hand can come within 2 * 0.3 * cos(3.12 / 2) = 0.0065 of the shoulder and
each hand position has a single pose. The hand under the shoulder puts the elbow behind
the back, over it in front (Fig. 1a, 1b).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

import solver
from solver.assembly.step_bound import held as held_by_bound

#: Upper arm and forearm lengths, scene units.
UPPER = 0.3
FOREARM = 0.3
#: Largest elbow flexion, radians (the elbow cannot fold flat).
ELBOW = 3.12
#: Shoulder range, radians (flexion forward is negative about ``y`` here).
SHOULDER = (-3.1, 2.5)
#: The crossing path: the hand moves up a vertical line this far in front of the
#: shoulder (scene units), this far per frame, from 0.24 under to 0.24 over it.
OFFSET = 0.002
STEP = 0.03
#: The first frame's start: arm hanging, elbow bent (the human branch).
START = (0.0, -1.0)


def shoulder_arm() -> solver.Figure:
    """The Fig. 1 arm: coordinates ``(shoulder, elbow)`` in radians; hand at the forearm's end."""
    fig = solver.Figure()
    fig.add_segment("upper")
    fig.add_revolute("upper", (0, 1, 0), *SHOULDER, name="shoulder")
    fig.add_segment("forearm", parent="upper", translation=(0.0, 0.0, -UPPER))
    fig.add_revolute("forearm", (0, 1, 0), -ELBOW, 0.0, name="elbow")
    return fig


def hand(fig: solver.Figure, coords: np.ndarray) -> np.ndarray:
    """The hand's position (3,) at ``coords``, scene units."""
    frame = fig.forward(coords)["forearm"]
    return frame[:3, :3] @ np.array([0.0, 0.0, -FOREARM]) + frame[:3, 3]


def crossing_path() -> np.ndarray:
    """(16, 3) hand targets from 0.225 under to 0.225 over the shoulder, :data:`STEP` apart."""
    n = round(0.48 / STEP / 2)
    z = STEP * (np.arange(-n, n) + 0.5)
    return np.stack([np.full_like(z, OFFSET), np.zeros_like(z), z], axis=1)


def figure_eight(frames: int = 120) -> np.ndarray:
    """(frames, 3) one loop of a figure-eight whose crossing point is at the shoulder
    (offset :data:`OFFSET` forward), from the top of its upper lobe: the hand passes the
    shoulder going down, then up."""
    t = np.linspace(0.5, 2.5, frames, endpoint=False) * math.pi
    x = OFFSET + 0.12 * np.sin(2.0 * t)
    z = 0.24 * np.sin(t)
    return np.stack([x, np.zeros_like(t), z], axis=1)


@dataclass(frozen=True)
class Track:
    """One tracked path.

    Attributes:
        steps: (frames - 1,) largest change of a coordinate from the previous frame, radians.
        errors: (frames,) hand-to-target distance, scene units.
        reached: (frames,) the solve met the goal within its tolerance.
        held: (frames,) the step bound shaped the answer (:func:`solver.assembly.step_bound.held`).
        iterations: solver iterations over the tracked frames (the first frame's excluded).
    """

    steps: np.ndarray
    errors: np.ndarray
    reached: np.ndarray
    held: np.ndarray
    iterations: int = 0

    def recovery(self, tolerance: float | None = None) -> int:
        """The longest run of consecutive frames off the target: how long the tip takes to
        recover after a crossing (0 when it never leaves it). Off the target: the solve
        missed its goal, or with ``tolerance`` the tip is farther (scene units)."""
        off = ~self.reached if tolerance is None else self.errors > tolerance
        longest = run = 0
        for missed in off:
            run = run + 1 if missed else 0
            longest = max(longest, run)
        return longest


def track(
    path: np.ndarray, max_change: float | None = None, options: dict[str, Any] | None = None
) -> Track:
    """Track ``path`` (frames, 3): the first frame solved to convergence from :data:`START`
    by the default solver (there is no previous frame to bound), every later one by a
    :class:`solver.Solver` with ``options`` and ``max_change``, from the previous answer.

    Args:
        path: (frames, 3) hand targets, scene units.
        max_change: the per-frame bound (radians), None: unbounded.
        options: the tracking solver's other keyword options.
    """
    fig = shoulder_arm()
    goal = solver.PositionGoal(path[0])
    constraints = [solver.Constraint(solver.EndEffector("forearm", (0.0, 0.0, -FOREARM)), goal)]
    first = solver.Solver(fig, constraints).solve(np.array(START))
    ik = solver.Solver(fig, constraints, max_change=max_change, **(options or {}))
    xs, reached, held, iterations = [first.x], [first.success], [False], 0
    for target in path[1:]:
        goal.point = target
        result = ik.solve(xs[-1])
        held.append(held_by_bound(xs[-1], result.x, max_change))
        xs.append(result.x)
        reached.append(result.success)
        iterations += result.nit
    x = np.array(xs)
    errors = np.array([np.linalg.norm(hand(fig, c) - p) for c, p in zip(x, path, strict=True)])
    return Track(
        steps=np.abs(np.diff(x, axis=0)).max(axis=1),
        errors=errors,
        reached=np.array(reached),
        held=np.array(held),
        iterations=iterations,
    )


#: The per-frame bound of the bounded rows, radians (28.6 degrees).
BOUND = 0.5
#: A frame is on target when the hand is this close to it, scene units (1 mm on a 0.6 m arm).
ON_TARGET = 1e-3

#: The ways compared: (label, ``max_change``, solver options). Iterated rows keep the
#: bake's two restarts; the one-step damped least squares has none (a restart of a
#: one-iteration run would jump anywhere).
WAYS: tuple[tuple[str, float | None, dict[str, Any]], ...] = (
    ("unbounded: gauss-newton-hybrid", None, {"restarts": 2}),
    ("(a) gauss-newton-hybrid, max_change 0.5", BOUND, {"restarts": 2}),
    ("(a) bfgs, max_change 0.5", BOUND, {"method": "bfgs", "restarts": 2}),
    ("(b) dls, 1 step per frame, lambda from step_limit 0.5 (eq. 18)", None,
     {"method": "dls", "step_limit": BOUND, "max_iterations": 1, "restarts": 0}),
    ("(b) dls, 5 steps per frame of step_limit 0.1", None,
     {"method": "dls", "step_limit": 0.1, "max_iterations": 5, "restarts": 0}),
    ("dls to convergence, max_change 0.5", BOUND,
     {"method": "dls", "step_limit": BOUND, "restarts": 2}),
    ("unbounded: dls to convergence", None,
     {"method": "dls", "step_limit": BOUND, "restarts": 2}),
)  # fmt: skip

PATHS = {"shoulder crossing (16 frames)": crossing_path, "figure-eight (120 frames)": figure_eight}


def table() -> str:
    """The comparison as a Markdown table, one row per path and way."""
    lines = [
        "| path | way | max \\|dtheta\\| per frame (rad) | frames off target | "
        "frames to recover | worst tip error | iterations per frame |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for path_name, make in PATHS.items():
        path = make()
        for label, bound, options in WAYS:
            run = track(path, bound, options)
            off = int(np.sum(run.errors > ON_TARGET))
            lines.append(
                f"| {path_name} | {label} | {run.steps.max():.3f} | {off} | "
                f"{run.recovery(ON_TARGET)} | {run.errors.max():.4f} | "
                f"{run.iterations / (len(path) - 1):.1f} |"
            )
    return "\n".join(lines)


def main() -> None:
    """Print the table and write it into ``bench/SMOOTH.md`` between its markers."""
    text = table()
    print(text)
    target = Path(__file__).with_name("SMOOTH.md")
    page = target.read_text(encoding="utf-8")
    head, rest = page.split(BEGIN, 1)
    _old, tail = rest.split(END, 1)
    target.write_text(f"{head}{BEGIN}\n{text}\n{END}{tail}", encoding="utf-8")


BEGIN = "<!-- table: python -m bench.smooth_tracking -->"
END = "<!-- end of table -->"

if __name__ == "__main__":
    main()
