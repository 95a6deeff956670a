"""A :class:`bench.serial.SerialChain` (a robot read from URDF) as a Blender bone chain.

Bone i's rest matrix is joint i's frame at zero angles, so its local axes are the URDF
joint frame's and the joint turns about one of them (every joint axis must be +X, +Y or +Z
of its frame); bones are not connected (joint origins need not lie on the parent's tail).
Each bone is :data:`BONE_LENGTH` long along its local Y. Blender's IK moves the last
bone's tail, so a tip target ``(p, R)`` becomes a target for that tail: the last joint
frame ``M = [R, p] tip^-1`` gives the tail ``M.origin + BONE_LENGTH * M.y`` and the
rotation ``M.R``. The tip reported is the evaluated last bone times ``chain.tip``.

Blender's IK limits must contain 0 and lie within [-pi, pi]: wider limits are clamped to
that (a solution within the clamped limits is within the robot's).
"""

from __future__ import annotations

import math
from types import SimpleNamespace
from typing import Any

import numpy as np

from bench.peers.blender_ik import BlenderChainIK
from bench.serial import SerialChain

BONE_LENGTH = 0.05
"""Scene units: length of every bone along its local Y (only the tail offset depends on it)."""

_AXES = {(1.0, 0.0, 0.0): "X", (0.0, 1.0, 0.0): "Y", (0.0, 0.0, 1.0): "Z"}


def bone_spec(chain: SerialChain) -> SimpleNamespace:
    """The bone-chain description ``BlenderChainIK`` takes, or ValueError naming the joint."""
    axes = []
    for joint, axis in zip(chain.joints, chain.axes, strict=True):
        key = tuple(float(round(v, 12)) for v in axis)
        if key not in _AXES:
            raise ValueError(f"joint {joint!r}: axis {axis.tolist()} is not +X, +Y or +Z")
        axes.append(_AXES[key])
    lower = [max(-math.pi, min(0.0, float(v))) for v in chain.lower]
    upper = [min(math.pi, max(0.0, float(v))) for v in chain.upper]
    if any(lo > 0.0 or hi < 0.0 for lo, hi in zip(chain.lower, chain.upper, strict=True)):
        raise ValueError("Blender's IK limits must contain the rest angle 0")
    return SimpleNamespace(axes=axes, lengths=[BONE_LENGTH] * chain.n, lower=lower, upper=upper)


def rest_frames(chain: SerialChain) -> np.ndarray:
    """(n, 4, 4) each joint's frame at zero angles, in the base frame."""
    frames = np.empty((chain.n, 4, 4))
    pose = np.eye(4)
    for i, origin in enumerate(chain.origins):
        pose = pose @ origin
        frames[i] = pose
    return frames


class BlenderRobotIK(BlenderChainIK):
    """``BlenderChainIK`` whose bones sit at a URDF chain's joint frames."""

    def __init__(self, chain: SerialChain, ik_solver: str, iterations: int, precision: float):
        self.chain = chain
        self.frames = rest_frames(chain)
        super().__init__(bone_spec(chain), ik_solver, iterations, precision)

    def _add_bones(self, edit_bones: Any, spec: Any) -> None:
        """Unconnected bones b0..b{n-1} whose rest matrices are the joint frames."""
        from mathutils import Matrix

        parent = None
        for i, frame in enumerate(self.frames):
            bone = edit_bones.new(f"b{i}")
            bone.head, bone.tail = (0.0, 0.0, 0.0), (0.0, BONE_LENGTH, 0.0)
            bone.matrix = Matrix(frame.tolist())
            bone.parent = parent
            parent = bone

    def tail_target(self, position: np.ndarray, rotation: np.ndarray) -> tuple:
        """The last bone's tail (3,) and rotation (3, 3) that put the tip at the target."""
        target = np.eye(4)
        target[:3, :3], target[:3, 3] = rotation, position
        last = target @ np.linalg.inv(self.chain.tip)
        return last[:3, 3] + BONE_LENGTH * last[:3, 1], last[:3, :3]

    def read_state(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Evaluated tip frame (position (3,), rotation (3, 3)) and joint angles (n,)."""
        _, _, angles = super().read_state()
        tip = self.pose_matrices()[-1] @ self.chain.tip
        return tip[:3, 3].copy(), tip[:3, :3].copy(), angles
