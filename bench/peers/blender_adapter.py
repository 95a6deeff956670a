"""Blender's built-in IK (Standard/SDLS "LEGACY" and iTaSC) in the harness's peer shape.

The bone chain and the depsgraph timing live in :mod:`bench.peers.blender_ik`; this adapter
resets the seed pose before each solve and reports Blender's evaluated tip, so residuals
are those a Blender user would see. Both solvers run at their tightest settings: the
largest iteration caps Blender accepts (Standard 10000, iTaSC 1000) and iTaSC's precision
at :data:`PRECISION`. Only chains with a bone description (the procedural ``ChainSpec``
chains) are expressible; a robot's URDF joint frames are not mapped onto bones here.
"""

from __future__ import annotations

import numpy as np

from bench.chains import ChainSpec
from bench.peers.base import Attempt, PeerUnavailableError, Track

SOLVER_NAMES = {"LEGACY": "Blender Standard IK", "ITASC": "Blender iTaSC"}
ITERATIONS = {"LEGACY": 10000, "ITASC": 1000}
"""The largest iteration caps Blender's UI allows for each solver."""
PRECISION = 1e-6
"""iTaSC's convergence precision (scene units; Blender allows [0, 0.1]); bpy's float32
pose cannot be placed much closer than ~1e-7 on unit-size chains."""


class BlenderChain:
    """One armature per chain in the in-process Blender (bpy)."""

    def __init__(self, spec: ChainSpec | None, orientation: bool, ik_solver: str) -> None:
        self.name = SOLVER_NAMES[ik_solver]
        if spec is None:
            raise PeerUnavailableError("not expressible: robot joint frames are not bone chains")
        self.spec = spec
        self.orientation = orientation
        try:
            from bench.peers.blender_ik import BlenderChainIK

            self.ik = BlenderChainIK(
                spec, ik_solver=ik_solver, iterations=ITERATIONS[ik_solver], precision=PRECISION
            )
        except Exception as error:  # any start-up failure makes the peer unavailable
            raise PeerUnavailableError(f"{type(error).__name__}: {error}") from error
        self.seed = spec.mid_range()

    def solve(self, position: np.ndarray, rotation: np.ndarray | None) -> Attempt:
        """Reset to the seed pose, then one IK evaluation (timed by the Blender peer)."""
        self.ik.set_pose(self.seed)
        tip, tip_rotation, angles, seconds = self.ik.solve(
            np.asarray(position, dtype=float), rotation if self.orientation else None
        )
        return Attempt(
            np.asarray(angles, dtype=float),
            float(seconds),
            tip=np.asarray(tip, dtype=float),
            rotation=np.asarray(tip_rotation, dtype=float),
        )

    def track(self, positions: np.ndarray) -> Track:
        """Follow ``positions`` (T, 3), each frame's answer the next frame's seed (untimed)."""
        self.ik.set_pose(self.seed)
        tips, seconds = self.ik.follow(np.asarray(positions, dtype=float), warm_start=True)
        return Track(
            tips=np.asarray(tips, dtype=float),
            seconds=np.asarray(seconds, dtype=float),
            notes=["joint values per frame not exposed: no joint-velocity figures"],
        )
