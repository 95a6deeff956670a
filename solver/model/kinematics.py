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
applies this through :class:`Carried`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .structure import REVOLUTE

if TYPE_CHECKING:
    from .structure import Joint, Segment

# -[v]x = [[0, v2, -v1], [-v2, 0, v0], [v1, -v0, 0]] flattened (row-major) is v @ _NEG_SKEW:
# one product builds the matrices of many vectors.
_NEG_SKEW = np.zeros((3, 9))
_NEG_SKEW[[0, 1, 2], [5, 6, 1]] = 1.0
_NEG_SKEW[[0, 1, 2], [7, 2, 3]] = -1.0
_NEG_SKEW.setflags(write=False)


@dataclass
class Frames:
    """World frames of one forward-kinematics pass.

    A batched pass (:meth:`Kinematics.forward` of ``q`` (B, n_joints)) has a leading
    batch axis on every array.

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
class Carried:
    """Vectors fixed to segments and the joints that move them: what the Jacobian
    columns of those vectors need besides a forward pass (see :meth:`Kinematics.columns`).

    Attributes:
        points: which of the V vectors are points (index array or slice); the others
            are directions.
        joints: the J joints (indices into the figure's joints, or a slice) that may
            move any of the vectors.
        moves: (V, 1, J) 1.0 where joint ``j`` moves vector ``v`` (lies above its
            segment; for a direction, also turns it), else 0.0.
        coupling: (J, n) joint values per unit of each variable.
        identity: ``coupling`` is the identity matrix (see :func:`is_identity`).
        anchored: for each point below a segment that does not inherit rotation:
            ``(v, rows, hinges)``, the positions (within ``joints``) of the joints above
            that segment and, for each, the highest such segment between them (an index
            into ``Kinematics.hinges``): the point where the parent carries it is the
            point whose velocity the joint gives the whole region.
    """

    points: np.ndarray | slice
    joints: np.ndarray | slice
    moves: np.ndarray
    coupling: np.ndarray
    anchored: tuple[tuple[int, np.ndarray, np.ndarray], ...]
    #: ``coupling`` is the identity (each variable is one joint, unscaled: the usual
    #: rig), so :meth:`Kinematics.columns` skips the product, which would only copy.
    identity: bool = False


_ORIGIN = np.zeros(3)
_NEXT = np.array([1, 2, 0])
_PREV = np.array([2, 0, 1])


def cross(a: np.ndarray, b: np.ndarray, axis: int = -1) -> np.ndarray:
    """Cross product of arrays whose ``axis`` has length 3 (rows of (..., 3) by default;
    ``axis=-2``: the columns of component-first (..., 3, n) arrays); cheaper than
    ``np.cross`` on small arrays.

    ``(a x b)_i = a_{i+1} b_{i+2} - a_{i+2} b_{i+1}`` (indices mod 3), with the
    shifted components gathered by ``take``.
    """
    return a.take(_NEXT, axis) * b.take(_PREV, axis) - a.take(_PREV, axis) * b.take(_NEXT, axis)


def gather(array: np.ndarray, index: np.ndarray | slice, axis: int) -> np.ndarray:
    """``array`` at ``index`` along ``axis`` (negative: counted from the end, so leading
    batch axes pass through): ``take`` for an index array (plain fancy indexing after an
    ellipsis costs several times more), a view for a slice."""
    if isinstance(index, slice):
        return array[(Ellipsis, index) + (slice(None),) * (-1 - axis)]
    return array.take(index, axis)


def is_identity(matrix: np.ndarray) -> bool:
    """Whether ``matrix`` (r, c) is exactly the square identity.

    Multiplying a finite array by it changes nothing but the sign of a zero entry (a
    product's ``-0.0 * 1 + 0.0 * x`` is ``+0.0``), so that product can be skipped.
    """
    return (
        matrix.ndim == 2
        and matrix.shape[0] == matrix.shape[1]
        and np.array_equal(matrix, np.eye(len(matrix)))
    )


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


def _joint_rows(values: np.ndarray) -> np.ndarray:
    """(..., 3, n) component-first values as contiguous (..., n, 3) rows."""
    return np.ascontiguousarray(values.swapaxes(-1, -2))


def index_or_slice(index: np.ndarray) -> np.ndarray | slice:
    """``index`` as a slice if it is a contiguous increasing range, else unchanged."""
    if len(index) and np.array_equal(index, np.arange(index[0], index[0] + len(index))):
        return slice(int(index[0]), int(index[0]) + len(index))
    return index


class Kinematics:
    """Flattened, precomputed arrays of a figure for fast evaluation.

    The tree is flattened into *nodes*: one per joint (its local transform the
    segment's rest transform, for a segment's first joint, times the joint's motion)
    and one per joint-less segment (its rest transform). A segment's frame is its last
    node's world transform; a joint's axis and pivot are read from its own node (a
    rotation leaves its axis and pivot fixed). Nodes are stored by depth in the tree,
    so the nodes each doubling round updates are one contiguous range (a slice: no
    gather or scatter copies).
    """

    def __init__(self, segments: Sequence[Segment], joints: Sequence[Joint]) -> None:
        self.n_segments = len(segments)
        self.n_joints = len(joints)
        self.parents = [s.parent for s in segments]
        self.segment_joints = [tuple(s.joints) for s in segments]
        self.local_axes = np.array([j.axis for j in joints], dtype=float).reshape(-1, 3)
        self.revolute = np.array([j.kind == REVOLUTE for j in joints], dtype=bool)
        self.all_revolute = bool(self.revolute.all())
        self._segments = segments  # the figure's own list: rest changes are re-read lazily
        self._changed: set[int] = set()  # segments whose rest changed since the last pass
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
        self.refresh_rest()

    def _flatten(self) -> None:
        """Nodes in depth order: their parents, each joint's and segment's node, the
        node carrying each segment's rest transform, and the doubling rounds."""
        n_j = self.n_joints
        bare = [s for s, js in enumerate(self.segment_joints) if not js]
        n_nodes = n_j + len(bare)
        # First in creation order: node j is joint j, node n_j + k the k-th bare segment.
        node_of_bare = {s: n_j + k for k, s in enumerate(bare)}
        last = np.empty(self.n_segments, dtype=int)
        first = np.empty(self.n_segments, dtype=int)
        node_parent = np.full(n_nodes, -1, dtype=int)
        depth = np.zeros(n_nodes, dtype=int)
        for s, js in enumerate(self.segment_joints):  # segments are in topological order
            above = last[self.parents[s]] if self.parents[s] >= 0 else -1
            if s in self._hinge_set:
                above = -1  # a root of the doubling pass: its rotation is world-relative
            nodes = list(js) if js else [node_of_bare[s]]
            first[s] = nodes[0]
            for node in nodes:
                node_parent[node] = above
                depth[node] = depth[above] + 1 if above >= 0 else 0
                above = node
            last[s] = above
        # Then by depth: after round r the nodes still updated are those at depth >= 2^r.
        order = np.argsort(depth, kind="stable")  # stored position -> creation-order node
        position = np.empty(n_nodes, dtype=int)
        position[order] = np.arange(n_nodes)
        parent = node_parent[order]
        self.rounds = _doubling_rounds(np.where(parent >= 0, position[parent], -1))
        self.n_nodes = n_nodes
        self.segment_node = position[last]
        self.rest_node = position[first]  # the node that carries each segment's rest
        self.joint_node = index_or_slice(position[:n_j])
        # Where each joint's origin and axis columns sit in a row of the entry-major nodes
        # (..., 4, 4 n_nodes): entry (row, column) of node k is [row, column n_nodes + k].
        joint_nodes = position[:n_j]
        self._angle_is_q = (
            n_nodes == n_j and self.all_revolute and np.array_equal(joint_nodes, np.arange(n_j))
        )
        self._origin_entries = 3 * n_nodes + joint_nodes
        self._column_entries = np.arange(3)[:, None] * n_nodes + joint_nodes  # (3, n_j)
        basis = np.abs(self.local_axes) == 1.0
        self._axis_entries: np.ndarray | None = None
        self._axis_signs: np.ndarray | None = None
        if n_j and (basis.sum(axis=1) == 1).all() and (np.abs(self.local_axes) != 0.0).sum() == n_j:
            column = basis.argmax(axis=1)
            self._axis_entries = column * n_nodes + joint_nodes
            signs = self.local_axes[np.arange(n_j), column]
            if (signs < 0.0).any():
                self._axis_signs = signs
        axes = np.zeros((n_nodes, 3))  # bare segments' nodes do not move: zero axis
        axes[self.joint_node] = self.local_axes
        self._node_axes = axes
        self._skew = _skew(axes)
        self._skew2 = self._skew @ self._skew
        # Each hinge: its parent's last node and the nodes of its region (nodes below it
        # up to, not into, the next hinges), whose origins are shifted after the pass.
        region = np.full(n_nodes, -1, dtype=int)
        for s, js in enumerate(self.segment_joints):
            nodes = list(js) if js else [node_of_bare[s]]
            up = region[last[self.parents[s]]] if self.parents[s] >= 0 else -1
            region[nodes] = s if s in self._hinge_set else up
        self.hinge_regions = [
            (int(position[last[self.parents[h]]]), index_or_slice(np.sort(position[region == h])))
            for h in self.hinges
        ]

    def refresh_rest(self) -> None:
        """Read every segment's rest transform from the figure's segments (at construction;
        :meth:`Figure.set_rest` notes single changes through :meth:`rest_changed`).

        Each segment's rest transform is folded into the motion of the node that
        carries it (its first joint's): ``restR @ Rot(q) = restR + sin(q) restR K +
        (1 - cos(q)) restR K^2``, so the nodes' local transforms need no matrix product
        at run time. Other joints' nodes have ``restR = I`` and no offset.
        """
        n_nodes = self.n_nodes
        # 4x4 so that a pass adds them up with no copy into a template: the rest transform
        # [restR | offset; 0 0 0 1], and [restR K | 0; 0] and [restR K^2 | 0; 0].
        self._rest = np.zeros((n_nodes, 4, 4))
        self._rest[:, :3, :3] = np.eye(3)
        self._rest[:, 3, 3] = 1.0
        self._rest_k = np.zeros((n_nodes, 4, 4))
        self._rest_k[:, :3, :3] = self._skew
        self._rest_k2 = np.zeros((n_nodes, 4, 4))
        self._rest_k2[:, :3, :3] = self._skew2
        self._slide = self._node_axes.copy()  # prismatic directions
        self._hinge_offsets = np.zeros((len(self.hinges), 3))
        self._changed = set(range(self.n_segments))
        self._refresh_changed()

    def rest_changed(self, segment: int) -> None:
        """Note that ``segment``'s rest transform changed: re-read at the next pass."""
        self._changed.add(segment)

    def _refresh_changed(self) -> None:
        """Re-read the rest transforms of the segments noted by :meth:`rest_changed`,
        all in a few batched operations."""
        changed = sorted(self._changed)
        self._changed = set()
        segments = self._segments
        nodes = self.rest_node[changed]
        rotations = np.array([segments[s].rotation for s in changed], dtype=float)
        rotations = rotations.reshape(-1, 3, 3)
        self._rest[nodes, :3, :3] = rotations
        self._rest_k[nodes, :3, :3] = rotations @ self._skew[nodes]
        self._rest_k2[nodes, :3, :3] = rotations @ self._skew2[nodes]
        self._slide[nodes] = (rotations @ self._node_axes[nodes, :, None])[:, :, 0]
        # A hinge's offset is applied after the pass (see forward), not by its node.
        offsets = [_ORIGIN if s in self._hinge_set else segments[s].translation for s in changed]
        self._rest[nodes, :3, 3] = np.array(offsets, dtype=float).reshape(-1, 3)
        for s in changed:
            if s in self._hinge_set:
                self._hinge_offsets[self._hinge_number[s]] = segments[s].translation
        # Entry-major copies, (4, 4, n_nodes), for forward's pass.
        self._rest_t = np.ascontiguousarray(self._rest.transpose(1, 2, 0))
        self._rest_k_t = np.ascontiguousarray(self._rest_k.transpose(1, 2, 0))
        self._rest_k2_t = np.ascontiguousarray(self._rest_k2.transpose(1, 2, 0))
        self._slide_t = np.ascontiguousarray(self._slide.T)  # (3, n_nodes)
        # The rotation columns that some node's motion changes (restR K, restR K^2 not 0): a
        # range; the others are the rest's whatever the angles (rest + s 0 + c 0).
        moved = ((self._rest_k_t[:3, :3] != 0.0) | (self._rest_k2_t[:3, :3] != 0.0)).any(
            axis=(0, 2)
        )
        columns = np.flatnonzero(moved)
        self._turned = slice(int(columns[0]), int(columns[-1]) + 1) if len(columns) else slice(0, 0)
        self._turned_rest = tuple(
            np.ascontiguousarray(a[:3, self._turned])
            for a in (self._rest_t, self._rest_k_t, self._rest_k2_t)
        )

    def forward(self, q: np.ndarray) -> Frames:
        """Forward kinematics for joint values ``q`` (..., n_joints).

        Leading axes are a batch (:mod:`solver.batch`): every array of the returned
        :class:`Frames` carries them in front; a single pose is ``q`` of shape (n_joints,).

        The nodes' transforms are stored entry-major, (..., 4, 4, n_nodes): the local
        transforms are formed with the node axis innermost, and the matrices seen by the
        doubling products (a view (..., n_nodes, 4, 4)) have no unit stride, so numpy
        multiplies them in its own loop, ``((a0 b0 + a1 b1) + a2 b2) + a3 b3`` per entry,
        instead of calling BLAS once per 4x4 (whose fused multiply-adds round differently
        and cost ~3x more). Every value is the same whatever the leading axes: a batched
        pass equals the single passes bit for bit.
        """
        if self._changed:  # Figure.set_rest was called since the last pass
            self._refresh_changed()
        lead = q.shape[:-1]
        n_nodes = self.n_nodes
        if self._angle_is_q:  # every node a revolute joint's, in the joints' order
            angle = q
        else:
            angle = np.zeros((*lead, n_nodes))  # per node; bare segments' stay 0
            angle[..., self.joint_node] = (
                q if self.all_revolute else np.where(self.revolute, q, 0.0)
            )
        s = np.sin(angle)[..., None, None, :]
        c = (1.0 - np.cos(angle))[..., None, None, :]
        # (..., 4, 4, nodes): the rest, then the columns a joint turns (others stay the rest's).
        nodes = np.empty((*lead, 4, 4, n_nodes))
        nodes[...] = self._rest_t
        rest, rest_k, rest_k2 = self._turned_rest
        turned = nodes[..., :3, self._turned, :]  # a view: rest + s restR K + c restR K^2
        np.multiply(s, rest_k, out=turned)
        turned += rest  # (addition commutes exactly)
        turned += c * rest_k2
        slide = None  # (..., n_joints) prismatic values, when the figure has any
        if not self.all_revolute:
            slide = np.where(self.revolute, 0.0, q)
            slide_nodes = np.zeros((*lead, 1, n_nodes))
            slide_nodes[..., 0, self.joint_node] = slide
            nodes[..., :3, 3, :] += slide_nodes * self._slide_t
        ndim = len(lead)  # a view: (..., n_nodes, 4, 4), no unit stride
        matrices = nodes.transpose(*range(ndim), ndim + 2, ndim, ndim + 1)
        for updated, source in self.rounds:  # the last row stays (0, 0, 0, 1)
            matrices[..., updated, :3, :] = gather(matrices, source, -3)[..., :3, :] @ gather(
                matrices, updated, -3
            )
        carried = self._no_hinges if not lead else np.zeros((*lead, 0, 3))
        if self.hinges:
            carried = np.empty((*lead, len(self.hinges), 3))
            translations = matrices[..., :3, 3]  # a view: (..., n_nodes, 3)
            for h, ((parent, region), offset) in enumerate(
                zip(self.hinge_regions, self._hinge_offsets, strict=True)
            ):
                rotation = matrices[..., parent, :3, :3]
                carried[..., h, :] = (
                    rotation[..., 0] * offset[0]
                    + rotation[..., 1] * offset[1]
                    + rotation[..., 2] * offset[2]
                    + matrices[..., parent, :3, 3]
                )
                translations[..., region, :] += carried[..., h, None, :]
        frames = gather(matrices, self.segment_node, -3)
        # Joint axes and origins component-first, (..., 3, n_joints): rows of the entry-major
        # nodes, so the products below run along the joints.
        flat = nodes.reshape(*lead, 4, 4 * n_nodes)[..., :3, :]
        origins = flat.take(self._origin_entries, -1)
        if self._axis_entries is not None:  # every axis a signed basis vector: a column
            axes = flat.take(self._axis_entries, -1)
            if self._axis_signs is not None:
                axes *= self._axis_signs
        else:  # R u summed in order (the basis case's values, up to the sign of a zero)
            u = self.local_axes.T  # (3, n_joints)
            axes = flat.take(self._column_entries[0], -1) * u[0]
            axes += flat.take(self._column_entries[1], -1) * u[1]
            axes += flat.take(self._column_entries[2], -1) * u[2]
        if self.all_revolute:
            pivots = origins
        else:
            assert slide is not None
            pivots = origins - slide[..., None, :] * axes
        moving = cross(pivots, axes, axis=-2)  # pivot x axis, component-first
        if not self.all_revolute:
            moving = np.where(self.revolute, moving, axes)
        axes, pivots, moving = (_joint_rows(a) for a in (axes, pivots, moving))
        turning = axes if self.all_revolute else np.where(self.revolute[:, None], axes, 0.0)
        return Frames(
            frames[..., :3, :3], frames[..., :3, 3], axes, pivots, turning, moving, carried
        )

    def carried(
        self,
        segments: Sequence[int] | np.ndarray,
        points: Sequence[bool] | np.ndarray,
        joints: np.ndarray,
        coupling: np.ndarray,
    ) -> Carried:
        """The constant part of :meth:`columns` for vectors fixed to ``segments``.

        Args:
            segments: (V,) the segment that carries each vector.
            points: (V,) True for a point, False for a direction.
            joints: (J,) joint indices: every joint that may move any of the segments.
            coupling: (J, n) joint values per unit of each variable, for those joints.
        """
        segments = np.asarray(segments, dtype=int).reshape(-1)
        points = np.asarray(points, dtype=bool).reshape(-1)
        joints = np.asarray(joints, dtype=int).reshape(-1)
        moves = self.ancestors[segments][:, joints].astype(float)  # (V, J)
        anchored = []
        if self.hinges:
            for v, s in enumerate(segments):
                anchor = self.anchor[s, joints]
                rows = np.flatnonzero(anchor >= 0)  # joints above a hinge between them and s
                if not len(rows):
                    continue
                if points[v]:  # moved with the hinge's origin (see columns)
                    anchored.append((v, rows, self._hinge_number[anchor[rows]]))
                else:  # such a joint turns no direction below the hinge
                    moves[v, rows] = 0.0
        coupling = np.asarray(coupling, dtype=float)
        return Carried(
            index_or_slice(np.flatnonzero(points)),
            index_or_slice(joints),
            moves[:, None, :],
            coupling,
            tuple(anchored),
            is_identity(coupling),
        )

    @staticmethod
    def columns(frames: Frames, vectors: np.ndarray, carried: Carried) -> np.ndarray:
        """Jacobian (V, 3, n) of world vectors fixed to segments w.r.t. ``n`` variables.

        Leading axes of ``frames`` and ``vectors`` (a batch, the same for both) are kept
        in front of the result.

        Args:
            frames: a forward pass.
            vectors: (..., V, 3) world vectors (points and directions, as ``carried`` says).
            carried: from :meth:`carried`: their segments, kinds and the moving joints.
        Returns:
            ``d vectors[v] / d y`` stacked: columns of eqs. (3), (4) mapped through the
            coupling. Joint ``j`` contributes ``turning_j x v`` to every vector it moves,
            and ``moving_j`` more to a point, all vectors at once; a joint that moves a
            point only through a hinge's origin ``c`` contributes ``moving_j +
            turning_j x c`` instead (the point ``c`` turns, the region below it does not).
        """
        lead, count = vectors.shape[:-2], vectors.shape[-2]
        turning = gather(frames.turning, carried.joints, -2)  # (..., J, 3)
        neg_skew = (vectors @ _NEG_SKEW).reshape(*lead, count, 3, 3)
        out = neg_skew @ turning.swapaxes(-1, -2)[..., None, :, :]  # (..., V, 3, J)
        moving = gather(frames.moving, carried.joints, -2).swapaxes(-1, -2)  # (..., 3, J)
        out[..., carried.points, :, :] += moving[..., None, :, :]
        for v, rows, hinges in carried.anchored:
            shift = frames.hinge_origins[..., hinges, :] - vectors[..., v, None, :]  # c - v
            block = out[..., v, :, :]  # a view: (..., 3, J)
            block[..., rows] += cross(turning[..., rows, :], shift).swapaxes(-1, -2)
        out *= carried.moves  # joints that do not move a vector's segment
        if carried.identity:  # the variables are the joints: (..., V, 3, J) is (..., V, 3, n)
            return out
        joints, n = carried.coupling.shape
        return (out.reshape(*lead, 3 * count, joints) @ carried.coupling).reshape(
            *lead, count, 3, n
        )
