"""Forward kinematics and Jacobian columns over flattened figure arrays (§4.2).

For a revolute joint with world axis ``u`` through pivot ``p`` the Jacobian
columns are ``u x (r - p)`` for a point ``r`` and ``u x v`` for a unit vector
``v`` (eqs. 3, 4); for a prismatic joint they are ``u`` and ``0``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .structure import REVOLUTE

if TYPE_CHECKING:
    from .structure import Joint, Segment


@dataclass
class Frames:
    """World frames of one forward-kinematics pass.

    Attributes:
        rotations: (n_segments, 3, 3) segment orientations (columns = local axes).
        origins: (n_segments, 3) segment origins, scene units.
        axes: (n_joints, 3) world joint axes (unit).
        pivots: (n_joints, 3) world joint pivots (points on the axes).
    """

    rotations: np.ndarray
    origins: np.ndarray
    axes: np.ndarray
    pivots: np.ndarray


def cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row-wise cross product of (..., 3) arrays; cheaper than ``np.cross``."""
    out = np.empty(np.broadcast_shapes(a.shape, b.shape))
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2]
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2]
    out[..., 0] = a1 * b2 - a2 * b1
    out[..., 1] = a2 * b0 - a0 * b2
    out[..., 2] = a0 * b1 - a1 * b0
    return out


def _skew(u: np.ndarray) -> np.ndarray:
    """(n, 3) -> (n, 3, 3) cross-product matrices."""
    k = np.zeros((len(u), 3, 3))
    k[:, 0, 1], k[:, 0, 2] = -u[:, 2], u[:, 1]
    k[:, 1, 0], k[:, 1, 2] = u[:, 2], -u[:, 0]
    k[:, 2, 0], k[:, 2, 1] = -u[:, 1], u[:, 0]
    return k


class Kinematics:
    """Flattened, precomputed arrays of a figure for fast evaluation."""

    def __init__(self, segments: Sequence[Segment], joints: Sequence[Joint]) -> None:
        self.n_segments = len(segments)
        self.n_joints = len(joints)
        self.parents = [s.parent for s in segments]
        self.segment_joints = [tuple(s.joints) for s in segments]
        self.local_axes = np.array([j.axis for j in joints], dtype=float).reshape(-1, 3)
        self.revolute = np.array([j.kind == REVOLUTE for j in joints], dtype=bool)
        self._skew = _skew(self.local_axes)
        self._skew2 = self._skew @ self._skew
        self.refresh_rest(segments)
        # ancestors[s, j]: joint j lies on the path from the root to segment s.
        self.ancestors = np.zeros((self.n_segments, self.n_joints), dtype=bool)
        for s, segment in enumerate(segments):
            if segment.parent >= 0:
                self.ancestors[s] = self.ancestors[segment.parent]
            self.ancestors[s, list(segment.joints)] = True

    def refresh_rest(self, segments: Sequence[Segment]) -> None:
        """Re-read rest transforms after :meth:`Figure.set_rest`."""
        self.rests = []
        for segment in segments:
            rest = np.eye(4)
            rest[:3, :3] = segment.rotation
            rest[:3, 3] = segment.translation
            self.rests.append(rest)
        # A child with an identity rest transform starts from its parent's frame as is.
        self.identity_rest = [bool(np.array_equal(r, np.eye(4))) for r in self.rests]

    def joint_motions(self, q: np.ndarray) -> np.ndarray:
        """(n_joints, 3, 3) local rotations of all joints (identity for prismatic).

        Rodrigues' formula, vectorised: ``R = I + sin(q) K + (1 - cos(q)) K^2``.
        """
        angle = np.where(self.revolute, q, 0.0)
        s = np.sin(angle)[:, None, None]
        c = (1.0 - np.cos(angle))[:, None, None]
        return np.eye(3) + s * self._skew + c * self._skew2

    def joint_transforms(self, q: np.ndarray) -> np.ndarray:
        """(n_joints, 4, 4) local motions: rotations, or translations ``axis * q``."""
        motions = np.zeros((self.n_joints, 4, 4))
        motions[:, :3, :3] = self.joint_motions(q)
        motions[:, :3, 3] = np.where(self.revolute, 0.0, q)[:, None] * self.local_axes
        motions[:, 3, 3] = 1.0
        return motions

    def forward(self, q: np.ndarray) -> Frames:
        """Forward kinematics for joint values ``q`` (n_joints,).

        One 4x4 product per segment (its rest transform) and per joint; the
        joint motions themselves are built for all joints at once.
        """
        motions = self.joint_transforms(q)
        frames = np.empty((self.n_segments, 4, 4))
        before = np.empty((self.n_joints, 4, 4))  # frame just before each joint acts
        rests, identity, parents = self.rests, self.identity_rest, self.parents
        for s, joints in enumerate(self.segment_joints):
            p = parents[s]
            if p < 0:
                t = rests[s]
            elif identity[s]:
                t = frames[p]
            else:
                t = frames[p] @ rests[s]
            for j in joints:
                before[j] = t
                t = t @ motions[j]
            frames[s] = t
        axes = np.einsum("jab,jb->ja", before[:, :3, :3], self.local_axes)
        return Frames(frames[:, :3, :3], frames[:, :3, 3], axes, before[:, :3, 3])

    def point_columns(self, frames: Frames, point: np.ndarray, joints: np.ndarray) -> np.ndarray:
        """Jacobian columns (len(joints), 3) of a world point w.r.t. ``joints``."""
        axes = frames.axes[joints]
        cols = cross(axes, point - frames.pivots[joints])
        prismatic = ~self.revolute[joints]
        if prismatic.any():
            cols[prismatic] = axes[prismatic]
        return cols

    def direction_columns(
        self, frames: Frames, direction: np.ndarray, joints: np.ndarray
    ) -> np.ndarray:
        """Jacobian columns (len(joints), 3) of a world unit vector w.r.t. ``joints``."""
        cols = cross(frames.axes[joints], direction)
        prismatic = ~self.revolute[joints]
        if prismatic.any():
            cols[prismatic] = 0.0
        return cols
