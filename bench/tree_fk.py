"""Forward kinematics of a :class:`solver.Figure` written separately from the solver's.

Reads only the figure's data (segments' parents and rest transforms, joints' segment, kind
and axis, and the coupling that maps coordinates to joint values) and multiplies plain
4x4 matrices: a segment's world frame is its parent's frame times its rest transform times
its joints' motions in the order they were added (revolute: rotation about the local
axis; prismatic: translation along it). The bench grades the human tasks with this, not
with ``Figure.forward``.
"""

from __future__ import annotations

import numpy as np

import solver
from bench.serial import rotation_about, transform
from solver.model.structure import PRISMATIC


def _motion(kind: int, axis: np.ndarray, value: float) -> np.ndarray:
    if kind == PRISMATIC:
        return transform(None, value * np.asarray(axis, dtype=float))
    return transform(rotation_about(axis, value))


def segment_frames(figure: solver.Figure, coords: np.ndarray) -> dict[str, np.ndarray]:
    """World transforms (4, 4) of every segment at coordinates ``coords`` (n_coords,)."""
    values = np.asarray(figure.coupling, dtype=float) @ np.asarray(coords, dtype=float)
    joints_of: dict[int, list[int]] = {}
    for j, joint in enumerate(figure.joints):
        joints_of.setdefault(joint.segment, []).append(j)
    frames: list[np.ndarray] = []
    for s, segment in enumerate(figure.segments):
        parent = np.eye(4) if segment.parent < 0 else frames[segment.parent]
        frame = parent @ transform(segment.rotation, segment.translation)
        for j in joints_of.get(s, []):
            joint = figure.joints[j]
            frame = frame @ _motion(joint.kind, joint.axis, float(values[j]))
        frames.append(frame)
    return {segment.name: frame for segment, frame in zip(figure.segments, frames, strict=True)}
