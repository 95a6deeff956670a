"""The records a :class:`~solver.model.figure.Figure` is made of: segments, joints, groups, rows."""

from dataclasses import dataclass, field

import numpy as np

REVOLUTE = 0
PRISMATIC = 1


@dataclass
class Segment:
    """A rigid body of the figure; its origin is the pivot of its joints.

    With ``inherit_rotation`` False the segment's origin is still carried by its parent,
    but its orientation is not: ``rotation`` is then relative to the world frame (see
    :mod:`solver.model.figure`).
    """

    name: str
    parent: int  # index of the parent segment, -1 for a root
    translation: np.ndarray  # (3,) rest offset in the parent frame, scene units
    rotation: np.ndarray  # (3, 3) rest rotation relative to the parent (or world) frame
    joints: list[int] = field(default_factory=list)
    inherit_rotation: bool = True


@dataclass
class Joint:
    """A 1-DOF joint: revolute (radians) or prismatic (scene units)."""

    name: str
    segment: int
    kind: int  # REVOLUTE or PRISMATIC
    axis: np.ndarray  # (3,) unit, segment-local
    lower: float
    upper: float
    rigidity: float
    group: int = -1  # index of its joint group, -1 if free


@dataclass
class JointGroup:
    """``q[joints] = matrix @ parameters`` (§12, Badler et al. 1993)."""

    name: str
    joints: list[int]
    matrix: np.ndarray  # (len(joints), p)
    lower: np.ndarray  # (p,)
    upper: np.ndarray  # (p,)
    rigidity: np.ndarray  # (p,)


@dataclass(frozen=True)
class LinearConstraint:
    """``lower <= coefficients . q <= upper`` on joint values (equality if equal)."""

    label: str
    coefficients: dict[int, float]  # joint index -> coefficient
    lower: float
    upper: float
