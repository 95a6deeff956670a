"""Build the Reach IK model of a :class:`bench.chains.ChainSpec` (Figure, effector, goal)."""

from __future__ import annotations

import numpy as np

import solver
from bench.chains import AXIS_VECTORS, REST_FRAME, ChainSpec
from bench.serial import SerialChain


def build_figure(spec: ChainSpec) -> tuple[solver.Figure, tuple[str, ...]]:
    """A :class:`solver.Figure` with one segment and one revolute per link.

    Returns the figure and the joint names in link order. Segment ``link{i}``'s origin is
    joint i; link 0's rest rotation is :data:`bench.chains.REST_FRAME`, later links sit
    ``(0, lengths[i-1], 0)`` along their parent with identity rest rotation.
    """
    figure = solver.Figure()
    joints = []
    parent = None
    for i, (axis, lo, hi) in enumerate(zip(spec.axes, spec.lower, spec.upper, strict=True)):
        name = f"link{i}"
        if parent is None:
            figure.add_segment(name, parent=None, translation=(0.0, 0.0, 0.0), rotation=REST_FRAME)
        else:
            figure.add_segment(
                name, parent=parent, translation=(0.0, spec.lengths[i - 1], 0.0), rotation=None
            )
        joints.append(figure.add_revolute(name, AXIS_VECTORS[axis], lower=lo, upper=hi))
        parent = name
    return figure, tuple(joints)


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


def tip_effector(spec: ChainSpec, orientation: bool) -> solver.EndEffector:
    """The chain's tip as an end-effector; with ``orientation`` it also carries local X, Y."""
    last = f"link{spec.n - 1}"
    point = (0.0, spec.lengths[-1], 0.0)
    if orientation:
        return solver.EndEffector(last, point=point, x=(1.0, 0.0, 0.0), y=(0.0, 1.0, 0.0))
    return solver.EndEffector(last, point=point)


DEGREES_PER_UNIT = 50.0
"""Eq. (8)'s d for orientation goals: one radian of error weighs about like the arm's
reach (1.1 units). Scipy peers minimise the very same objective."""


def tip_goal(position: np.ndarray, rotation: np.ndarray | None):
    """A position goal, or a position+orientation goal on the tip's X and Y directions."""
    if rotation is None:
        return solver.PositionGoal(np.asarray(position, dtype=float))
    return solver.PositionOrientationGoal(
        np.asarray(position, dtype=float),
        x=rotation[:, 0],
        y=rotation[:, 1],
        degrees=DEGREES_PER_UNIT,
    )


def set_goal(goal, position: np.ndarray, rotation: np.ndarray | None) -> None:
    """Retarget ``goal`` in place (goals are mutable, so a Solver can be reused)."""
    goal.point = np.asarray(position, dtype=float)
    if rotation is not None:
        goal.x = rotation[:, 0]
        goal.y = rotation[:, 1]


def figure_tip(figure: solver.Figure, spec: ChainSpec, coords: np.ndarray) -> np.ndarray:
    """(4, 4) world transform of the chain tip for figure coordinates ``coords``."""
    frames = figure.forward(coords)
    last = np.asarray(frames[f"link{spec.n - 1}"], dtype=float)
    tip = np.eye(4)
    tip[:3, 3] = [0.0, spec.lengths[-1], 0.0]
    return last @ tip
