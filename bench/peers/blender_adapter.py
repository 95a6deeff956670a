"""Blender's built-in IK (Standard/SDLS "LEGACY" and iTaSC) in the harness's peer shape.

The bone chain and the depsgraph timing live in :mod:`bench.peers.blender_ik`; this adapter
resets the seed pose before each solve and reports Blender's evaluated tip, so residuals
are those a Blender user would see. Both solvers run at their tightest settings: the
largest iteration caps Blender accepts (Standard 10000, iTaSC 1000) and iTaSC's precision
at :data:`PRECISION`. Procedural chains become bones along +Z
(:mod:`bench.peers.blender_ik`); robots read from URDF become bones at their joint frames
(:mod:`bench.peers.blender_robot`), with limits clamped to Blender's [-pi, pi].
"""

from __future__ import annotations

import numpy as np

from bench.chains import ChainSpec
from bench.peers.base import Attempt, PeerUnavailableError, Track
from bench.serial import SerialChain

SOLVER_NAMES = {"LEGACY": "Blender Standard IK", "ITASC": "Blender iTaSC"}
ITERATIONS = {"LEGACY": 10000, "ITASC": 1000}
"""The largest iteration caps Blender's UI allows for each solver."""
PRECISION = 1e-6
"""iTaSC's convergence precision (scene units; Blender allows [0, 0.1]); bpy's float32
pose cannot be placed much closer than ~1e-7 on unit-size chains."""


class BlenderChain:
    """One armature per chain in the in-process Blender (bpy)."""

    def __init__(
        self, chain: SerialChain, spec: ChainSpec | None, orientation: bool, ik_solver: str
    ) -> None:
        self.name = SOLVER_NAMES[ik_solver]
        self.orientation = orientation
        self.robot = None
        try:
            from bench.peers.blender_ik import BlenderChainIK
            from bench.peers.blender_robot import BlenderRobotIK

            settings = {"iterations": ITERATIONS[ik_solver], "precision": PRECISION}
            if spec is None:
                self.ik = self.robot = BlenderRobotIK(chain, ik_solver, **settings)
            else:
                self.ik = BlenderChainIK(spec, ik_solver=ik_solver, **settings)
        except Exception as error:  # any start-up failure makes the peer unavailable
            raise PeerUnavailableError(f"{type(error).__name__}: {error}") from error
        self.seed = chain.mid_range()

    def solve(self, position: np.ndarray, rotation: np.ndarray | None) -> Attempt:
        """Reset to the seed pose, then one IK evaluation (timed by the Blender peer)."""
        self.ik.set_pose(self.seed)
        position = np.asarray(position, dtype=float)
        rotation = rotation if self.orientation else None
        if self.robot is not None:
            if rotation is None:
                raise PeerUnavailableError("robot chains are solved with full poses only")
            position, rotation = self.robot.tail_target(position, rotation)
        tip, tip_rotation, angles, seconds = self.ik.solve(position, rotation)
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
