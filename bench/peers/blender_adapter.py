"""Blender's built-in IK (Standard/SDLS "LEGACY" and iTaSC) in the harness's peer shape.

The bone chain and the depsgraph timing live in :mod:`bench.peers.blender_ik`; this adapter
resets the seed pose before each solve and reports Blender's evaluated tip, so residuals
are those a Blender user would see.
"""

from __future__ import annotations

import numpy as np

from bench.chains import ChainSpec
from bench.peers.base import Attempt, PeerUnavailableError, Track

SOLVER_NAMES = {"LEGACY": "Blender Standard IK", "ITASC": "Blender iTaSC"}
ITERATIONS = 500


class BlenderChain:
    """One armature per chain in the in-process Blender (bpy)."""

    def __init__(self, spec: ChainSpec, orientation: bool, ik_solver: str) -> None:
        self.name = SOLVER_NAMES[ik_solver]
        self.spec = spec
        self.orientation = orientation
        try:
            from bench.peers.blender_ik import BlenderChainIK

            self.ik = BlenderChainIK(spec, ik_solver=ik_solver, iterations=ITERATIONS)
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
        """Follow ``positions`` (T, 3) frame by frame from the seed pose."""
        self.ik.set_pose(self.seed)
        tips, seconds = self.ik.follow(np.asarray(positions, dtype=float))
        return Track(
            tips=np.asarray(tips, dtype=float),
            seconds=np.asarray(seconds, dtype=float),
            notes=["joint values per frame not exposed: no joint-velocity figures"],
        )
