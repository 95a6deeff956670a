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
        self._segments = segments  # the figure's own list: rest changes are re-read lazily
        self.stale = False
        self.refresh_rest(segments)
        # ancestors[s, j]: joint j lies on the path from the root to segment s.
        self.ancestors = np.zeros((self.n_segments, self.n_joints), dtype=bool)
        for s, segment in enumerate(segments):
            if segment.parent >= 0:
                self.ancestors[s] = self.ancestors[segment.parent]
            self.ancestors[s, list(segment.joints)] = True

    def refresh_rest(self, segments: Sequence[Segment]) -> None:
        """Re-read rest transforms after :meth:`Figure.set_rest`.

        Each segment's rest transform is folded into its first joint's motion,
        so forward kinematics does one 4x4 product per joint. Joint axes and
        pivots are then expressed in a *base* frame: the parent segment's frame
        for a segment's first joint (axis and pivot moved through the rest
        transform), the frame after the previous joint otherwise.
        """
        n_j = self.n_joints
        self.rests = np.empty((self.n_segments, 4, 4))
        for s, segment in enumerate(segments):
            self.rests[s] = np.eye(4)
            self.rests[s, :3, :3] = segment.rotation
            self.rests[s, :3, 3] = segment.translation
        self.first = np.array([js[0] for js in self.segment_joints if js], dtype=int)
        self.first_segment = np.array([s for s, js in enumerate(self.segment_joints) if js], int)
        self.base_axes = self.local_axes.copy()
        self.base_pivots = np.zeros((n_j, 3))
        rot = self.rests[self.first_segment, :3, :3]
        self.base_axes[self.first] = np.einsum("kab,kb->ka", rot, self.local_axes[self.first])
        self.base_pivots[self.first] = self.rests[self.first_segment, :3, 3]

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

        One 4x4 product per joint (rest transforms are folded into the first
        joint of each segment) and per joint-less segment; the joint motions
        themselves are built for all joints at once.
        """
        if self.stale:  # Figure.set_rest was called since the last pass
            self.refresh_rest(self._segments)
            self.stale = False
        motions = self.joint_transforms(q)
        if len(self.first):
            motions[self.first] = self.rests[self.first_segment] @ motions[self.first]
        frames = np.empty((self.n_segments, 4, 4))
        base = np.empty((self.n_joints, 4, 4))  # frame each joint's axis is expressed in
        world = np.eye(4)
        rests, parents = self.rests, self.parents
        for s, joints in enumerate(self.segment_joints):
            p = parents[s]
            t = world if p < 0 else frames[p]
            if not joints:
                frames[s] = t @ rests[s]
                continue
            for j in joints:
                base[j] = t
                t = t @ motions[j]
            frames[s] = t
        rot = base[:, :3, :3]
        axes = np.einsum("jab,jb->ja", rot, self.base_axes)
        pivots = base[:, :3, 3] + np.einsum("jab,jb->ja", rot, self.base_pivots)
        return Frames(frames[:, :3, :3], frames[:, :3, 3], axes, pivots)

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
