"""Reach IK as a peer: one reusable :class:`solver.Solver` per chain, retargeted per solve."""

from __future__ import annotations

import time

import numpy as np

import solver
from bench.chains import ChainSpec, forward
from bench.figures import build_figure, set_goal, tip_effector, tip_goal
from bench.peers.base import Attempt, Track

POSITION_TOLERANCE = 1e-5
"""Scene units: a target counts as reached within this distance."""
ANGLE_TOLERANCE = 0.01
"""Degrees: an orientation direction counts as reached within this angle."""
MAX_ITERATIONS = 1000
"""Iteration budget shared by every iterative peer in the benchmark."""
STOP_TOLERANCE = 1e-7
"""Scene units: where Reach IK itself stops (every peer is graded at POSITION_TOLERANCE).
Gauss-Newton converges quadratically at the end, so the last factor of 100 costs a fraction
of an iteration on average, and the accuracy comparison with Blender's IK measures the
solver, not the stopping rule. The scipy peers stop as soon as they are within
POSITION_TOLERANCE."""
STOP_ANGLE_TOLERANCE = 1e-3
"""Degrees: where Reach IK stops on orientation (graded at ANGLE_TOLERANCE)."""
RESTARTS = 10
"""Random restarts within the limits, used only when a solve ends at a local minimum that
misses the goal (TRAC-IK's remedy; the other peers have no such option)."""


class ReachModel:
    """Figure, tip constraint and Solver of a chain, plus coordinate <-> angle maps."""

    def __init__(
        self, spec: ChainSpec, orientation: bool, max_iterations: int = MAX_ITERATIONS
    ) -> None:
        self.spec = spec
        self.orientation = orientation
        self.figure, self.joints = build_figure(spec)
        start_position, start_rotation = forward(spec, spec.mid_range())
        self.goal = tip_goal(start_position, start_rotation if orientation else None)
        constraint = solver.Constraint(tip_effector(spec, orientation), self.goal, name="tip")
        self.solver = solver.Solver(
            self.figure,
            [constraint],
            tolerance=STOP_TOLERANCE,
            angle_tolerance=STOP_ANGLE_TOLERANCE,
            max_iterations=max_iterations,
            restarts=RESTARTS,
        )
        names = list(self.figure.joint_names)
        self._order = np.array([names.index(j) for j in self.joints])
        mid = dict(zip(self.joints, spec.mid_range(), strict=True))
        self.seed = np.array([mid[c] for c in self.figure.coordinate_names], dtype=float)

    def retarget(self, position: np.ndarray, rotation: np.ndarray | None) -> None:
        """Point the tip goal at a new target (rotation ignored without orientation)."""
        set_goal(self.goal, position, rotation if self.orientation else None)

    def angles(self, coords: np.ndarray) -> np.ndarray:
        """(n,) joint angles in link order for figure coordinates ``coords``."""
        return np.asarray(self.figure.joint_values(coords), dtype=float)[self._order]


class ReachChain:
    """Reach IK solving from the mid-range seed pose for every target."""

    name = "Reach IK"

    def __init__(self, spec: ChainSpec, orientation: bool) -> None:
        self.model = ReachModel(spec, orientation)

    def solve(self, position: np.ndarray, rotation: np.ndarray | None) -> Attempt:
        """Solve for one target from the seed pose; times only ``Solver.solve``."""
        self.model.retarget(position, rotation)
        start = time.perf_counter()
        result = self.model.solver.solve(initial=self.model.seed)
        seconds = time.perf_counter() - start
        return Attempt(self.model.angles(result.x), seconds, iterations=int(result.nit))

    def track(self, positions: np.ndarray) -> Track:
        """Follow ``positions`` (T, 3), warm-starting every frame from the previous solution."""
        angles, seconds = [], []
        initial = self.model.seed
        for position in positions:
            self.model.retarget(position, None)
            start = time.perf_counter()
            result = self.model.solver.solve(initial=initial)
            seconds.append(time.perf_counter() - start)
            initial = None
            angles.append(self.model.angles(result.x))
        angles_array = np.array(angles)
        tips = np.array([forward(self.model.spec, a)[0] for a in angles_array])
        return Track(tips=tips, seconds=np.array(seconds), angles=angles_array)
