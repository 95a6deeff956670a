"""Forward kinematics and Jacobian columns over flattened figure arrays (§4.2).

For a revolute joint with world axis ``u`` through pivot ``p`` the Jacobian
columns are ``u x (r - p)`` for a point ``r`` and ``u x v`` for a unit vector
``v`` (eqs. 3, 4); for a prismatic joint they are ``u`` and ``0``. Writing
``u x (r - p) = p x u - r x u``, every column is ``moving - r x turning`` for a
point and ``-v x turning`` for a direction, with per-joint ``turning`` (``u``,
zero for prismatic) and ``moving`` (``p x u``, ``u`` for prismatic) computed
once per forward pass: :meth:`Kinematics.columns` is the one place these
columns are formed.

Forward kinematics is one batched pass: every joint's local transform at once,
then world transforms by prefix products along the tree by pointer doubling
(``ceil(log2(depth))`` batched 4x4 products).

A segment that does not inherit rotation (a *hinge*, Blender's ``BONE_HINGE``) starts
a region of the tree whose rotations are world-relative: its first node is a root of
the doubling pass (local rotation = its world rest rotation, no rest offset), and
after the pass the region's origins are shifted by the hinge's origin
``T_parent @ Rest.t``, hinges in topological order. A joint above a hinge moves the
hinge's whole subtree by the velocity of the hinge's origin and turns none of it: for
a point or direction fixed below the hinge, its column is the column of the point
``c`` where the parent carries the hinge, ``moving - c x turning``, and ``0`` for a
direction (the highest hinge below the joint counts). :meth:`Kinematics.columns`
applies this through :class:`Anchors`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .structure import REVOLUTE

if TYPE_CHECKING:
    from .structure import Joint, Segment

# Flat (row-major) positions in a 3x3 matrix of the entries of -[v]x:
# -[v]x = [[0, v2, -v1], [-v2, 0, v0], [v1, -v0, 0]].
_PLUS = np.array([5, 6, 1])  # entries equal to +v0, +v1, +v2
_MINUS = np.array([7, 2, 3])  # entries equal to -v0, -v1, -v2


@dataclass
class Frames:
    """World frames of one forward-kinematics pass.

    Attributes:
        rotations: (n_segments, 3, 3) segment orientations (columns = local axes).
        origins: (n_segments, 3) segment origins, scene units.
        axes: (n_joints, 3) world joint axes (unit).
        pivots: (n_joints, 3) world joint pivots (points on the axes).
        turning: (n_joints, 3) ``axes`` for revolute joints, zero for prismatic.
        moving: (n_joints, 3) ``pivot x axis`` for revolute joints, ``axis`` for
            prismatic: the part of a point's Jacobian column that does not
            depend on the point.
        hinge_origins: (n_hinges, 3) where each segment that does not inherit rotation
            is carried by its parent (its origin before its own joints move it).
    """

    rotations: np.ndarray
    origins: np.ndarray
    axes: np.ndarray
    pivots: np.ndarray
    turning: np.ndarray
    moving: np.ndarray
    hinge_origins: np.ndarray


@dataclass(frozen=True)
class Anchors:
    """Joints whose motion reaches a segment only through a hinge's origin.

    Attributes:
        rows: (k,) positions, within a segment's list of moving joints, of the joints
            above a segment that does not inherit rotation.
        hinges: (k,) for each, the highest such segment between the joint and the
            segment (an index into ``Kinematics.hinges``): the point where the parent
            carries it is the point whose velocity the joint gives them all.
    """

    rows: np.ndarray
    hinges: np.ndarray


_NEXT = np.array([1, 2, 0])
_PREV = np.array([2, 0, 1])


def cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row-wise cross product of (..., 3) arrays; cheaper than ``np.cross`` on small arrays.

    ``(a x b)_i = a_{i+1} b_{i+2} - a_{i+2} b_{i+1}`` (indices mod 3), with the
    shifted components gathered by ``take``.
    """
    return a.take(_NEXT, -1) * b.take(_PREV, -1) - a.take(_PREV, -1) * b.take(_NEXT, -1)


def _skew(u: np.ndarray) -> np.ndarray:
    """(n, 3) -> (n, 3, 3) cross-product matrices."""
    k = np.zeros((len(u), 3, 3))
    k[:, 0, 1], k[:, 0, 2] = -u[:, 2], u[:, 1]
    k[:, 1, 0], k[:, 1, 2] = u[:, 2], -u[:, 0]
    k[:, 2, 0], k[:, 2, 1] = -u[:, 1], u[:, 0]
    return k


def _doubling_rounds(
    parents: Sequence[int] | np.ndarray,
) -> list[tuple[np.ndarray | slice, np.ndarray | slice]]:
    """Index pairs ``(updated, source)`` of pointer doubling over a forest.

    After applying ``T[updated] = T[source] @ T[updated]`` for every round in
    order, ``T[i]`` is the product of the local transforms from the root down
    to node ``i``. Contiguous index ranges become slices (no gather copies).
    """
    pointer = np.array(parents, dtype=int)
    rounds: list[tuple[np.ndarray | slice, np.ndarray | slice]] = []
    while np.any(pointer >= 0):
        updated = np.flatnonzero(pointer >= 0)
        source = pointer[updated]
        rounds.append((index_or_slice(updated), index_or_slice(source)))
        pointer = pointer.copy()
        pointer[updated] = pointer[source]
    return rounds


def index_or_slice(index: np.ndarray) -> np.ndarray | slice:
    """``index`` as a slice if it is a contiguous increasing range, else unchanged."""
    if len(index) and np.array_equal(index, np.arange(index[0], index[0] + len(index))):
        return slice(int(index[0]), int(index[0]) + len(index))
    return index


class Kinematics:
    """Flattened, precomputed arrays of a figure for fast evaluation.

    The tree is flattened into *nodes*: one per joint (node ``j`` is joint
    ``j``, its local transform the segment's rest transform, for a segment's
    first joint, times the joint's motion) and one per joint-less segment (its
    rest transform). A segment's frame is its last node's world transform; a
    joint's axis and pivot are read from its own node (a rotation leaves its
    axis and pivot fixed).
    """

    def __init__(self, segments: Sequence[Segment], joints: Sequence[Joint]) -> None:
        self.n_segments = len(segments)
        self.n_joints = len(joints)
        self.parents = [s.parent for s in segments]
        self.segment_joints = [tuple(s.joints) for s in segments]
        self.local_axes = np.array([j.axis for j in joints], dtype=float).reshape(-1, 3)
        self.revolute = np.array([j.kind == REVOLUTE for j in joints], dtype=bool)
        self.all_revolute = bool(self.revolute.all())
        self._skew = _skew(self.local_axes)
        self._skew2 = self._skew @ self._skew
        self._segments = segments  # the figure's own list: rest changes are re-read lazily
        self.stale = False
        # ancestors[s, j]: joint j lies on the path from the root to segment s.
        self.ancestors = np.zeros((self.n_segments, self.n_joints), dtype=bool)
        # hinges: non-root segments that do not inherit rotation, in topological order.
        self.hinges = [
            s for s, seg in enumerate(segments) if seg.parent >= 0 and not seg.inherit_rotation
        ]
        self._hinge_set = set(self.hinges)
        self._hinge_number = np.full(self.n_segments, -1, dtype=int)
        self._hinge_number[self.hinges] = np.arange(len(self.hinges))
        self._no_hinges = np.zeros((0, 3))
        # anchor[s, j]: the highest hinge between joint j and segment s, -1 if none.
        self.anchor = np.full((self.n_segments, self.n_joints), -1, dtype=int)
        for s, segment in enumerate(segments):
            if segment.parent >= 0:
                self.ancestors[s] = self.ancestors[segment.parent]
                self.anchor[s] = self.anchor[segment.parent]
                if not segment.inherit_rotation:
                    self.anchor[s, self.ancestors[s] & (self.anchor[s] < 0)] = s
            self.ancestors[s, list(segment.joints)] = True
        self._flatten()
        self.refresh_rest(segments)

    def _flatten(self) -> None:
        """Node parents, each segment's last node, and the doubling rounds."""
        n_j = self.n_joints
        bare = [s for s, js in enumerate(self.segment_joints) if not js]
        self.bare_segments = np.array(bare, dtype=int)
        node_of_bare = {s: n_j + k for k, s in enumerate(bare)}
        last = np.empty(self.n_segments, dtype=int)
        node_parent = np.full(n_j + len(bare), -1, dtype=int)
        for s, js in enumerate(self.segment_joints):  # segments are in topological order
            above = last[self.parents[s]] if self.parents[s] >= 0 else -1
            if s in self._hinge_set:
                above = -1  # a root of the doubling pass: its rotation is world-relative
            for j in js:
                node_parent[j] = above
                above = j
            if not js:
                node_parent[node_of_bare[s]] = above
                above = node_of_bare[s]
            last[s] = above
        self.segment_node = last
        self.n_nodes = len(node_parent)
        self.rounds = _doubling_rounds(node_parent)
        # Each hinge: its parent's last node and the nodes of its region (nodes below it
        # up to, not into, the next hinges), whose origins are shifted after the pass.
        region = np.full(self.n_nodes, -1, dtype=int)
        for s, js in enumerate(self.segment_joints):
            nodes = list(js) if js else [node_of_bare[s]]
            up = region[last[self.parents[s]]] if self.parents[s] >= 0 else -1
            region[nodes] = s if s in self._hinge_set else up
        self.hinge_regions = [
            (int(last[self.parents[h]]), index_or_slice(np.flatnonzero(region == h)))
            for h in self.hinges
        ]

    def refresh_rest(self, segments: Sequence[Segment]) -> None:
        """Re-read rest transforms after :meth:`Figure.set_rest`.

        Each segment's rest transform is folded into its first joint's motion:
        ``restR @ Rot(q) = restR + sin(q) restR K + (1 - cos(q)) restR K^2``,
        so the joints' local transforms need no matrix product at run time.
        """
        n_j = self.n_joints
        rest_r = np.broadcast_to(np.eye(3), (n_j, 3, 3)).copy()
        rest_t = np.zeros((n_j, 3))
        for s, js in enumerate(self.segment_joints):
            if js:  # the segment's first joint carries its rest transform
                rest_r[js[0]] = segments[s].rotation
                rest_t[js[0]] = 0.0 if s in self._hinge_set else segments[s].translation
        self._rest_r = rest_r
        self._rest_k = rest_r @ self._skew
        self._rest_k2 = rest_r @ self._skew2
        self._rest_t = rest_t
        self._slide = np.einsum("jab,jb->ja", rest_r, self.local_axes)  # prismatic directions
        template = np.zeros((self.n_nodes, 4, 4))
        template[:, 3, 3] = 1.0
        for k, s in enumerate(self.bare_segments):
            template[n_j + k, :3, :3] = segments[s].rotation
            template[n_j + k, :3, 3] = segments[s].translation
            if s in self._hinge_set:  # its offset is applied after the pass (see forward)
                template[n_j + k, :3, 3] = 0.0
        self._hinge_offsets = np.array(
            [segments[h].translation for h in self.hinges], dtype=float
        ).reshape(-1, 3)
        self._template = template

    def forward(self, q: np.ndarray) -> Frames:
        """Forward kinematics for joint values ``q`` (n_joints,)."""
        if self.stale:  # Figure.set_rest was called since the last pass
            self.refresh_rest(self._segments)
            self.stale = False
        n_j = self.n_joints
        angle = q if self.all_revolute else np.where(self.revolute, q, 0.0)
        s = np.sin(angle)[:, None, None]
        c = (1.0 - np.cos(angle))[:, None, None]
        nodes = self._template.copy()
        nodes[:n_j, :3, :3] = self._rest_r + s * self._rest_k + c * self._rest_k2
        slide = None  # (n_joints, 1) prismatic values, when the figure has any
        if self.all_revolute:
            nodes[:n_j, :3, 3] = self._rest_t
        else:
            slide = np.where(self.revolute, 0.0, q)[:, None]
            nodes[:n_j, :3, 3] = self._rest_t + slide * self._slide
        for updated, source in self.rounds:
            nodes[updated] = nodes[source] @ nodes[updated]
        carried = self._no_hinges
        if self.hinges:
            carried = np.empty((len(self.hinges), 3))
            for h, ((parent, region), offset) in enumerate(
                zip(self.hinge_regions, self._hinge_offsets, strict=True)
            ):
                carried[h] = nodes[parent, :3, :3] @ offset + nodes[parent, :3, 3]
                nodes[region, :3, 3] += carried[h]
        frames = nodes[self.segment_node]
        joint_r = nodes[:n_j, :3, :3]
        axes = (joint_r @ self.local_axes[:, :, None])[:, :, 0]
        origins = nodes[:n_j, :3, 3]
        if self.all_revolute:
            pivots, turning = origins, axes
            moving = cross(origins, axes)
        else:
            assert slide is not None
            revolute = self.revolute[:, None]
            pivots = origins - slide * axes
            turning = np.where(revolute, axes, 0.0)
            moving = np.where(revolute, cross(pivots, axes), axes)
        return Frames(frames[:, :3, :3], frames[:, :3, 3], axes, pivots, turning, moving, carried)

    def anchors(self, segment: int, joints: np.ndarray) -> Anchors | None:
        """The :class:`Anchors` of ``segment``'s moving ``joints`` (indices), None if none."""
        if not self.hinges:
            return None
        anchor = self.anchor[segment, joints]
        rows = np.flatnonzero(anchor >= 0)
        return Anchors(rows, self._hinge_number[anchor[rows]]) if len(rows) else None

    @staticmethod
    def columns(
        frames: Frames,
        vectors: np.ndarray,
        has_point: bool,
        joints: np.ndarray | slice,
        coupling: np.ndarray,
        anchors: Anchors | None = None,
    ) -> np.ndarray:
        """Jacobian (k, 3, n) of world vectors fixed to one segment w.r.t. ``n`` variables.

        Args:
            frames: a forward pass.
            vectors: (k, 3) world vectors; row 0 is a point if ``has_point``,
                the others (all, otherwise) are directions.
            has_point: whether row 0 is a point.
            joints: the joints that move the segment (indices or a slice).
            coupling: (n_moving_joints, n) joint values per unit of each variable.
            anchors: from :meth:`anchors` for the same segment and joints, when some
                of them sit above a segment that does not inherit rotation.
        Returns:
            ``d vectors[i] / d y`` stacked: columns of eqs. (3), (4) mapped
            through ``coupling``.
        """
        turning = frames.turning[joints]  # (m, 3)
        if anchors is not None:  # such a joint turns nothing below the hinge
            turning = turning.copy()
            turning[anchors.rows] = 0.0
        neg_skew = np.zeros((len(vectors), 9))
        neg_skew[:, _PLUS] = vectors
        neg_skew[:, _MINUS] = -vectors
        out = neg_skew.reshape(-1, 3, 3) @ (turning.T @ coupling)  # -v x turning
        if has_point:
            moving = frames.moving[joints]
            if anchors is not None:  # ... and moves it with the hinge's origin
                moving = moving.copy()
                moving[anchors.rows] -= cross(
                    frames.hinge_origins[anchors.hinges], frames.turning[joints][anchors.rows]
                )
            out[0] += moving.T @ coupling
        return out
