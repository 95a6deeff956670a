"""The Reach IK model of a :class:`bench.serial.SerialChain` (Figure, tip effector, goal)."""

from __future__ import annotations

import numpy as np

import solver
from bench.serial import SerialChain


def chain_figure(chain: SerialChain) -> solver.Figure:
    """A :class:`solver.Figure` of ``chain``: segment ``link{i}`` per joint, joint names kept.

    Segment ``link{i}``'s rest transform is ``chain.origins[i]`` in its parent's frame and
    its revolute joint (named like the chain's joint) turns about ``chain.axes[i]``.
    """
    figure = solver.Figure()
    parent = None
    for i, (origin, axis) in enumerate(zip(chain.origins, chain.axes, strict=True)):
        name = f"link{i}"
        figure.add_segment(name, parent=parent, translation=origin[:3, 3], rotation=origin[:3, :3])
        figure.add_revolute(
            name, axis, lower=chain.lower[i], upper=chain.upper[i], name=chain.joints[i]
        )
        parent = name
    return figure


def chain_tip(chain: SerialChain, orientation: bool) -> solver.EndEffector:
    """The chain's tip frame as an end-effector (with its X, Y axes when ``orientation``)."""
    last, tip = f"link{chain.n - 1}", chain.tip
    if orientation:
        return solver.EndEffector(last, point=tip[:3, 3], x=tip[:3, 0], y=tip[:3, 1])
    return solver.EndEffector(last, point=tip[:3, 3])


def tip_goal(position: np.ndarray, rotation: np.ndarray | None):
    """A position goal, or a position+orientation goal on the tip's X and Y directions.

    The orientation weight is the goal's default (no bench-specific tuning).
    """
    if rotation is None:
        return solver.PositionGoal(np.asarray(position, dtype=float))
    return solver.PositionOrientationGoal(
        np.asarray(position, dtype=float), x=rotation[:, 0], y=rotation[:, 1]
    )


def set_goal(goal, position: np.ndarray, rotation: np.ndarray | None) -> None:
    """Retarget ``goal`` in place (goals are mutable, so a Solver can be reused)."""
    goal.point = np.asarray(position, dtype=float)
    if rotation is not None:
        goal.x = rotation[:, 0]
        goal.y = rotation[:, 1]
