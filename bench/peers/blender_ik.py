"""Blender's built-in IK (Standard "LEGACY" and iTaSC) on a serial chain, through ``bpy``.

The chain spec (see ``bench/chains.py``): ``axes`` ('X' / 'Y' / 'Z', the one free rotation
axis of bone i in its local frame), ``lengths`` (scene units), ``lower`` / ``upper``
(radians). Bone 0's head is at the world origin; at rest every bone points along world +Z
with roll 0, so its local X is world +X, local Y (along the bone) world +Z and local Z
world -Y; bone i is connected to bone i-1. Joint i is the single Euler component (mode
'XYZ') of bone i about its axis; the other two axes are IK-locked and the free axis has
the IK limits ``[lower, upper]``. The tip is the tail of the last bone, which carries the IK
constraint (chain = all bones, ``use_tail``, no stretch).

How Blender's IK treats the pose (measured with bpy 4.2 and 5.0, see
``tests/blender/test_blender_peer.py``):

* Both solvers start from the *current* pose, the bones' ``rotation_euler`` (the seed set
  by :meth:`BlenderChainIK.set_pose`), not from the rest pose, and never write their result
  back: every evaluation starts again from that seed. Different seeds give different
  solutions for a redundant chain. Tracking therefore does not warm-start by itself;
  :meth:`BlenderChainIK.follow` can copy each frame's result into the seed
  (``warm_start=True``), outside the timed evaluation.
* IK limits are relative to the rest pose (joint value 0) and Blender holds
  ``ik_min <= 0 <= ik_max`` and ``|limit| <= pi``; a spec outside that is rejected.
* iTaSC is used in its stateless 'ANIMATION' mode with reiteration on every evaluation.

``bpy`` stores locations and rotations in float32: expect ~1e-7 relative agreement with a
float64 forward kinematics, not better.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np

AXES = ("X", "Y", "Z")
IK_SOLVERS = ("LEGACY", "ITASC")


class ChainLike(Protocol):
    """Anything with the chain-spec attributes (``bench.chains.ChainSpec`` has them)."""

    axes: Sequence[str]
    lengths: Sequence[float]
    lower: Sequence[float]
    upper: Sequence[float]


def _check_spec(spec: ChainLike) -> None:
    n = len(spec.axes)
    if n == 0 or not (len(spec.lengths) == len(spec.lower) == len(spec.upper) == n):
        raise ValueError("axes, lengths, lower and upper must have the same non-zero length")
    for i, (axis, length, lo, hi) in enumerate(
        zip(spec.axes, spec.lengths, spec.lower, spec.upper, strict=True)
    ):
        if axis not in AXES:
            raise ValueError(f"bone {i}: axis must be 'X', 'Y' or 'Z', got {axis!r}")
        if not length > 0.0:
            raise ValueError(f"bone {i}: length must be positive, got {length}")
        if not -math.pi <= lo <= 0.0 <= hi <= math.pi:
            raise ValueError(
                f"bone {i}: Blender IK limits need -pi <= lower <= 0 <= upper <= pi, "
                f"got [{lo}, {hi}]"
            )


def _single_axis_angle(rotation: np.ndarray, axis: str) -> float:
    """Angle (radians) of a (3, 3) rotation about local ``axis`` (exact if it is one)."""
    if axis == "X":
        return math.atan2(rotation[2, 1], rotation[1, 1])
    if axis == "Y":
        return math.atan2(rotation[0, 2], rotation[2, 2])
    return math.atan2(rotation[1, 0], rotation[0, 0])


class BlenderChainIK:
    """One armature driven by Blender's IK constraint in its own scene.

    spec: a chain spec (see module docstring); ik_solver: 'LEGACY' (Blender's "Standard")
    or 'ITASC'; iterations: the solver's iteration cap (iTaSC allows at most 1000);
    precision: iTaSC convergence precision (scene units, Blender allows [0, 0.1]).
    """

    def __init__(
        self,
        spec: ChainLike,
        ik_solver: str = "LEGACY",
        iterations: int = 500,
        precision: float = 1e-4,
    ) -> None:
        import bpy  # Blender is optional for the rest of the benchmark

        if ik_solver not in IK_SOLVERS:
            raise ValueError(f"ik_solver must be one of {IK_SOLVERS}, got {ik_solver!r}")
        _check_spec(spec)
        self.bpy: Any = bpy
        self.axes = tuple(spec.axes)
        self.lengths = np.asarray(spec.lengths, dtype=float)
        self.n = len(self.axes)
        self.ik_solver = ik_solver

        self.scene = bpy.data.scenes.new(f"reach-bench-{ik_solver.lower()}-{self.n}")
        self.view_layer = self.scene.view_layers[0]
        self.armature = self._build_armature(spec)
        self.bones = [self.armature.pose.bones[f"b{i}"] for i in range(self.n)]
        self.target = bpy.data.objects.new(f"{self.scene.name}-target", None)
        self.scene.collection.objects.link(self.target)

        pose = self.armature.pose
        pose.ik_solver = ik_solver
        if ik_solver == "ITASC":
            params = pose.ik_param
            params.mode = "ANIMATION"
            params.reiteration_method = "ALWAYS"
            params.iterations = min(int(iterations), 1000)
            params.precision = float(precision)
            params.solver = "SDLS"
        limits = zip(self.bones, self.axes, spec.lower, spec.upper, strict=True)
        for pose_bone, axis, lo, hi in limits:
            pose_bone.rotation_mode = "XYZ"
            pose_bone.ik_stretch = 0.0
            for other in AXES:
                key = other.lower()
                setattr(pose_bone, f"lock_ik_{key}", other != axis)
                setattr(pose_bone, f"use_ik_limit_{key}", other == axis)
            key = axis.lower()
            setattr(pose_bone, f"ik_min_{key}", float(lo))
            setattr(pose_bone, f"ik_max_{key}", float(hi))
        self.constraint = self.bones[-1].constraints.new("IK")
        self.constraint.target = self.target
        self.constraint.chain_count = self.n
        self.constraint.use_tail = True
        self.constraint.use_stretch = False
        self.constraint.iterations = int(iterations)
        self.constraint.use_rotation = False
        self.depsgraph = self.view_layer.depsgraph
        self.set_pose(np.zeros(self.n))
        self.depsgraph.update()

    def _build_armature(self, spec: ChainLike) -> Any:
        """Armature object whose bones :meth:`_add_bones` makes, in edit mode briefly."""
        bpy = self.bpy
        data = bpy.data.armatures.new(f"{self.scene.name}-armature")
        obj = bpy.data.objects.new(f"{self.scene.name}-armature", data)
        self.scene.collection.objects.link(obj)
        self.view_layer.objects.active = obj
        with bpy.context.temp_override(
            scene=self.scene, view_layer=self.view_layer, active_object=obj, object=obj
        ):
            bpy.ops.object.mode_set(mode="EDIT")
            self._add_bones(data.edit_bones, spec)
            bpy.ops.object.mode_set(mode="OBJECT")
        return obj

    def _add_bones(self, edit_bones: Any, spec: ChainLike) -> None:
        """Connected bones b0..b{n-1} along +Z with roll 0, each ``spec.lengths[i]`` long."""
        z = 0.0
        parent = None
        for i, length in enumerate(spec.lengths):
            bone = edit_bones.new(f"b{i}")
            bone.head = (0.0, 0.0, z)
            z += float(length)
            bone.tail = (0.0, 0.0, z)
            bone.roll = 0.0
            if parent is not None:
                bone.parent = parent
                bone.use_connect = True
            parent = bone

    def set_pose(self, angles: np.ndarray) -> None:
        """Set the seed pose: joint ``angles`` (n,) radians as the bones' Euler rotations."""
        angles = np.asarray(angles, dtype=float).reshape(self.n)
        for pose_bone, axis, angle in zip(self.bones, self.axes, angles, strict=True):
            euler = [0.0, 0.0, 0.0]
            euler[AXES.index(axis)] = float(angle)
            pose_bone.rotation_euler = euler

    def _place_target(self, target: np.ndarray, rotation: np.ndarray | None) -> None:
        from mathutils import Matrix

        matrix = np.eye(4)
        matrix[:3, 3] = np.asarray(target, dtype=float).reshape(3)
        if rotation is not None:
            matrix[:3, :3] = np.asarray(rotation, dtype=float).reshape(3, 3)
        self.target.matrix_world = Matrix(matrix.tolist())
        use_rotation = rotation is not None
        if self.constraint.use_rotation != use_rotation:
            self.constraint.use_rotation = use_rotation

    def _evaluate(self) -> float:
        """Run the depsgraph evaluation (this is where the IK runs); seconds."""
        start = time.perf_counter()
        self.depsgraph.update()
        return time.perf_counter() - start

    def pose_matrices(self) -> np.ndarray:
        """(n, 4, 4) evaluated armature-space (= world) matrices of the bones."""
        evaluated = self.armature.evaluated_get(self.depsgraph)
        return np.array([np.array(evaluated.pose.bones[b.name].matrix) for b in self.bones])

    def read_state(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Evaluated tip (3,), last bone rotation (3, 3) and joint angles (n,) radians."""
        matrices = self.pose_matrices()
        rest = np.array([np.array(b.bone.matrix_local)[:3, :3] for b in self.bones])
        angles = np.empty(self.n)
        parent = np.eye(3)
        for i in range(self.n):
            rest_in_parent = rest[i] if i == 0 else rest[i - 1].T @ rest[i]
            local = (parent @ rest_in_parent).T @ matrices[i, :3, :3]
            angles[i] = _single_axis_angle(local, self.axes[i])
            parent = matrices[i, :3, :3]
        last = matrices[-1]
        tip = last[:3, 3] + self.lengths[-1] * last[:3, 1]
        return tip, last[:3, :3].copy(), angles

    def forward(self, angles: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Blender's forward kinematics: pose ``angles`` (n,) with the IK muted.

        Returns the evaluated tip (3,), last bone rotation (3, 3) and the angles read back
        (n,); the seed pose becomes ``angles``.
        """
        self.set_pose(angles)
        self.constraint.mute = True
        try:
            self.depsgraph.update()
            return self.read_state()
        finally:
            self.constraint.mute = False

    def solve(
        self, target: np.ndarray, rotation: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
        """Reach ``target`` (3,) (and ``rotation`` (3, 3) of the last bone, if given).

        Starts from the current seed pose. Returns the evaluated tip (3,), the last bone's
        rotation (3, 3) (columns: its local axes in world), the joint angles (n,) radians
        read back from the evaluated pose, and the seconds spent in the depsgraph update.
        """
        self._place_target(target, rotation)
        seconds = self._evaluate()
        tip, tip_rotation, angles = self.read_state()
        return tip, tip_rotation, angles, seconds

    def follow(
        self, targets: np.ndarray, warm_start: bool = False
    ) -> tuple[np.ndarray, np.ndarray]:
        """Track ``targets`` (T, 3) position-only, one evaluation per frame.

        Without ``warm_start`` every frame starts from the current seed pose, as Blender
        does when an IK constraint is animated; with it, each frame's joint angles become
        the next frame's seed (copied outside the timing). Returns tips (T, 3) and the
        seconds (T,) of each frame's depsgraph update.
        """
        targets = np.asarray(targets, dtype=float).reshape(-1, 3)
        tips = np.empty_like(targets)
        seconds = np.empty(len(targets))
        for k, target in enumerate(targets):
            self._place_target(target, None)
            seconds[k] = self._evaluate()
            tips[k], _, angles = self.read_state()
            if warm_start:
                self.set_pose(angles)
        return tips, seconds

    def close(self) -> None:
        """Remove this chain's scene, objects and armature from the Blender file."""
        bpy = self.bpy
        armature_data = self.armature.data
        bpy.data.objects.remove(self.target)
        bpy.data.objects.remove(self.armature)
        bpy.data.armatures.remove(armature_data)
        bpy.data.scenes.remove(self.scene)
