"""The channel values of many solved frames at once, for the batched bake (:mod:`.batched`).

The sequential bake turns each frame's solution into channel values bone by bone
(:meth:`..rig.pose.RigPose.apply`, then :meth:`~..rig.pose.RigPose.channels`): a few dozen
small conversions per frame. The batched path has every frame's joint values at once, in one
figure (the base of ``LOCAL`` bones fixed at the first frame), so the same conversions run
over a leading frame axis: the rotation of each solved bone at every frame, then its channels
with the continuity the sequential bake keeps (a quaternion's sign kept from frame to frame,
Euler angles nearest the previous frame's: both decompositions at once, the choice frame by
frame; an axis-angle still frame by frame), and over a leading bone axis where bones share
the operation (the bones turned by revolutes, turn by turn; the quaternion bones): on the
demo 0.028 ms per baked frame instead of 0.048. The numbers are the per-frame path's to
round-off (the per-frame path's ``orthonormalize`` is a no-op on these
products of rotations); a bone that stretches is left to that path (:func:`covers`).

Pure numpy over the rig passed in.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..blender import channel_rotations

if TYPE_CHECKING:
    from ..rig.build import Rig


def covers(rig: Rig) -> bool:
    """Whether :func:`frame_channels` converts ``rig``'s solved bones (none stretches)."""
    return all(info.stretch is None for info in rig.solved.values())


def _turned(rotation: np.ndarray, axis: int, angle: np.ndarray) -> np.ndarray:
    """``rotation @ R_axis(angle)`` for every frame: (..., 3, 3) by (...,) radians (as
    :func:`..blender.channel_rotations.axes_rotation` turns one)."""
    c, s = np.cos(angle)[..., None], np.sin(angle)[..., None]
    a, b = (axis + 1) % 3, (axis + 2) % 3  # the plane the revolute turns
    out = rotation.copy()
    ra, rb = rotation[..., :, a], rotation[..., :, b]
    out[..., :, a] = ra * c + rb * s
    out[..., :, b] = rb * c - ra * s
    return out


def quaternions(matrices: np.ndarray, first: np.ndarray) -> np.ndarray:
    """Unit quaternions (..., F, 4) ``(w, x, y, z)`` of rotations (..., F, 3, 3), each
    frame's sign kept with the frame before (the first frame's with ``first`` (..., 4)), as
    :func:`..blender.channel_rotations.matrix_to_quaternion` with ``compatible`` gives them
    one after another (a leading axis: several bones' frames at once, each bone's own)."""
    m = matrices.reshape(-1, 3, 3)
    count = len(m)
    trace = m[:, 0, 0] + m[:, 1, 1] + m[:, 2, 2]
    q = np.zeros((count, 4))
    diagonal = np.stack([m[:, 0, 0], m[:, 1, 1], m[:, 2, 2]], axis=1)
    largest = diagonal.argmax(axis=1)  # the first largest diagonal entry
    for n in (None, 0, 1, 2):
        rows = (
            np.flatnonzero(trace > 0.0)
            if n is None
            else np.flatnonzero((trace <= 0.0) & (largest == n))
        )
        if not len(rows):
            continue
        r = m[rows]
        if n is None:
            s = 2.0 * np.sqrt(trace[rows] + 1.0)
            q[rows, 0] = 0.25 * s
            q[rows, 1] = (r[:, 2, 1] - r[:, 1, 2]) / s
            q[rows, 2] = (r[:, 0, 2] - r[:, 2, 0]) / s
            q[rows, 3] = (r[:, 1, 0] - r[:, 0, 1]) / s
            continue
        a, b = (n + 1) % 3, (n + 2) % 3
        s = 2.0 * np.sqrt(1.0 + r[:, n, n] - r[:, a, a] - r[:, b, b])
        q[rows, 0] = (r[:, b, a] - r[:, a, b]) / s
        q[rows, 1 + n] = 0.25 * s
        q[rows, 1 + a] = (r[:, a, n] + r[:, n, a]) / s
        q[rows, 1 + b] = (r[:, b, n] + r[:, n, b]) / s
    q /= np.sqrt(np.einsum("fk,fk->f", q, q))[:, None]
    q = q.reshape(*matrices.shape[:-2], 4)
    start = np.asarray(first, dtype=float)[..., None, :]
    start = np.broadcast_to(start, (*q.shape[:-2], 1, 4))
    before = np.concatenate([start, q[..., :-1, :]], axis=-2)
    flips = np.where(np.einsum("...k,...k->...", q, before) < 0.0, -1.0, 1.0)
    return q * np.cumprod(flips, axis=-1)[..., None]


def eulers(matrices: np.ndarray, order: str, first: np.ndarray) -> np.ndarray:
    """Blender Euler angles (F, 3) (indexed X, Y, Z) in ``order`` of rotations (F, 3, 3),
    each frame's nearest the frame before (the first frame's nearest ``first`` (3,)), as
    :func:`..blender.channel_rotations.matrix_to_euler` with ``compatible`` gives them one
    after another: both decompositions of every frame at once, then the choice between
    them and the turns added, which depend on the frame before, frame by frame."""
    i, j, k = (channel_rotations.AXIS_INDEX[c] for c in order)
    parity = 1.0 if (i, j, k) in ((0, 1, 2), (1, 2, 0), (2, 0, 1)) else -1.0
    m = matrices
    cy = np.hypot(m[:, i, i], m[:, j, i])
    free = cy > 1e-9  # else gimbal: only a + c (or a - c) is defined; c kept at 0
    a = np.where(free, np.arctan2(parity * m[:, k, j], m[:, k, k]),
                 np.arctan2(-parity * m[:, j, k], m[:, j, j]))  # fmt: skip
    b = np.arctan2(-parity * m[:, k, i], cy)
    c = np.where(free, np.arctan2(parity * m[:, j, i], m[:, i, i]), 0.0)
    one = np.empty((len(m), 3))
    one[:, i], one[:, j], one[:, k] = a, b, c
    two = np.empty((len(m), 3))
    two[:, i], two[:, j], two[:, k] = a + np.pi, np.pi - b, c + np.pi
    out = np.empty((len(m), 3))
    ref = np.asarray(first, dtype=float).tolist()
    for f, candidates in enumerate(zip(one.tolist(), two.tolist(), strict=True)):
        out[f] = ref = channel_rotations.nearest_euler(candidates, ref)
    return out


def _rotations(rig: Rig, joint_values: np.ndarray, column: dict[str, int]) -> dict[str, np.ndarray]:
    """Every solved bone's rotation (F, 3, 3) at every frame. Bones turned by revolutes
    (``LOCAL``, ``IK_SEGMENT``) are turned side by side: at each step of their revolute
    sequences, the bones turning about the same axis at that step at once."""
    count = len(joint_values)
    pose = rig.pose
    out: dict[str, np.ndarray] = {}
    turned = [name for name, info in rig.solved.items() if info.param in ("LOCAL", "IK_SEGMENT")]
    stack = np.empty((len(turned), count, 3, 3))
    stack[:] = np.eye(3)
    steps = max((len(rig.solved[name].rotation_joints) for name in turned), default=0)
    for step in range(steps):
        for axis in range(3):
            rows = [(b, rig.solved[name].rotation_joints[step][1]) for b, name in enumerate(turned)
                    if len(rig.solved[name].rotation_joints) > step
                    and rig.solved[name].rotation_joints[step][0] == axis]  # fmt: skip
            if not rows:
                continue
            bones = [b for b, _joint in rows]
            angles = joint_values[:, [column[joint] for _b, joint in rows]].T  # (k, F)
            stack[bones] = _turned(stack[bones], axis, angles)
    local = [b for b, name in enumerate(turned) if rig.solved[name].param == "LOCAL"]
    if local:
        bases = np.array([pose.base[turned[b]] for b in local])[:, None]  # (k, 1, 3, 3)
        stack[local] = bases @ stack[local]
    out.update(zip(turned, stack, strict=True))
    for name, info in rig.solved.items():
        if name not in out:  # EULER bones carry all three angles (locked ones pinned by bounds)
            euler = np.zeros((count, 3))
            for axis, joint in info.rotation_joints:
                euler[:, axis] = joint_values[:, column[joint]]
            out[name] = np.array([channel_rotations.euler_to_matrix(e, info.param) for e in euler])
    return out


def frame_channels(
    rig: Rig, joint_values: np.ndarray, joint_names: tuple[str, ...], previous: dict
) -> np.ndarray:
    """Every solved bone's channels at every frame, laid out as
    :func:`..write.keys.flat_channels` lays out one frame's: (F, channels).

    Args:
        rig: the rig; its pose's ``LOCAL`` bases are the ones the joint values are around.
        joint_values: (F, n_joints) the frames' joint values, in order.
        joint_names: the joints' names (the columns of ``joint_values``).
        previous: bone -> rotation channels of the frame before the first (continuity).
    """
    column = {name: k for k, name in enumerate(joint_names)}
    count = len(joint_values)
    pose = rig.pose
    rotations = _rotations(rig, joint_values, column)
    quaternion = [name for name, info in rig.solved.items() if info.rotation_mode == "QUATERNION"]
    channels: dict[str, np.ndarray] = {}
    if quaternion:  # the quaternion bones side by side
        firsts = np.array([previous[name] for name in quaternion])
        stacked = quaternions(np.array([rotations[name] for name in quaternion]), firsts)
        channels.update(zip(quaternion, stacked, strict=True))
    parts = []
    for name, info in rig.solved.items():
        mode = info.rotation_mode
        if mode == "AXIS_ANGLE":  # frame by frame
            channels[name] = np.zeros((count, 4))
            last = previous[name]
            for f in range(count):
                last = channels[name][f] = channel_rotations.rotation_to_channels(
                    rotations[name][f], mode, last
                )
        elif mode != "QUATERNION":  # Euler angles nearest the frame before
            channels[name] = eulers(rotations[name], mode, previous[name])
        location = np.broadcast_to(pose.location[name], (count, 3)).copy()
        for axis, joint in info.location_joints:
            location[:, axis] = joint_values[:, column[joint]] / rig.scale
        parts += [channels[name], location, np.ones((count, 3))]
    return np.concatenate(parts, axis=1)


__all__ = ["covers", "eulers", "frame_channels", "quaternions"]
