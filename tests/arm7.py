"""A 7-DOF arm (twist, pitch, twist, ... like a collaborative robot) and TRAC-IK-style tasks.

Targets come from joint values drawn uniformly within the limits (so every target
is reachable) and are solved from the mid-range pose.
"""

from __future__ import annotations

import numpy as np

from solver import Constraint, EndEffector, Figure, PositionOrientationGoal

LENGTHS = (0.20, 0.10, 0.30, 0.10, 0.25, 0.05, 0.10)  # scene units at scale 1
AXES = ("y", "x", "y", "x", "y", "x", "y")
TWIST, PITCH = (-2.8, 3.0), (-1.9, 2.1)


def arm(scale: float = 1.0) -> Figure:
    """The arm, ``scale`` times its 1.1-unit reach; segment ``link6`` carries the tool."""
    fig = Figure()
    parent = None
    for i, axis in enumerate(AXES):
        offset = (0.0, 0.0, 0.0) if i == 0 else (0.0, LENGTHS[i - 1] * scale, 0.0)
        fig.add_segment(f"link{i}", parent=parent, translation=offset)
        lower, upper = TWIST if axis == "y" else PITCH
        fig.add_revolute(f"link{i}", axis, lower, upper, name=f"j{i}")
        parent = f"link{i}"
    return fig


def mid_range(fig: Figure) -> np.ndarray:
    """(7,) the middle of every joint's range."""
    lower, upper = fig.coordinate_bounds()
    return 0.5 * (lower + upper)


def tool(scale: float = 1.0) -> EndEffector:
    """The tool frame at the end of the last link (point, x and y axes)."""
    return EndEffector("link6", (0.0, LENGTHS[-1] * scale, 0.0), x=(1, 0, 0), y=(0, 1, 0))


def tool_pose(fig: Figure, coords: np.ndarray, scale: float = 1.0) -> np.ndarray:
    """(4, 4) world pose of the tool at ``coords``."""
    frame = fig.forward(coords)["link6"]
    pose = frame.copy()
    pose[:3, 3] = frame[:3, :3] @ np.array([0.0, LENGTHS[-1] * scale, 0.0]) + frame[:3, 3]
    return pose


def targets(fig: Figure, count: int, seed: int, scale: float = 1.0) -> list[np.ndarray]:
    """``count`` reachable (4, 4) tool poses from uniform in-limit joint values."""
    rng = np.random.default_rng(seed)
    lower, upper = fig.coordinate_bounds()
    return [tool_pose(fig, rng.uniform(lower, upper), scale) for _ in range(count)]


def pose_constraint(pose: np.ndarray, scale: float = 1.0) -> Constraint:
    """A full-pose constraint of the tool on ``pose`` (default, scale-free weights)."""
    goal = PositionOrientationGoal(pose[:3, 3], x=pose[:3, 0], y=pose[:3, 1])
    return Constraint(tool(scale), goal, name="tool")


def retarget(constraint: Constraint, pose: np.ndarray) -> None:
    """Point ``constraint``'s pose goal at ``pose`` (4, 4)."""
    goal = constraint.goal
    goal.point, goal.x, goal.y = pose[:3, 3], pose[:3, 0], pose[:3, 1]
