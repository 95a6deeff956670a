"""TRAC-IK (C++: KDL's Newton solver and NLopt's SQP raced, with random restarts) via pytracik.

The chain reaches TRAC-IK as URDF text (:func:`bench.serial.to_urdf`: for the robots, the
same joints as their shipped URDF file, see tests/test_bench_urdf.py). TRAC-IK stops by its
own test (each twist component within ``epsilon``) or at its ``timeout``, restarting from
random seeds inside that time by itself. pytracik solves full poses only (no bounds on the
twist are exposed), so position-only cases are not expressible.

pytracik stores the joint limits as float32: a limit may move outward by up to ~1e-7 rad,
inside the grading's :data:`bench.metrics.LIMIT_SLACK`.
"""

from __future__ import annotations

import math
import time

import numpy as np

from bench.metrics import POSITION_TOLERANCE
from bench.peers.base import Attempt, PeerUnavailableError, Track
from bench.serial import SerialChain, quaternion, to_urdf

EPSILON = POSITION_TOLERANCE / math.sqrt(3.0)
"""TRAC-IK's tolerance on each twist component (metres / radians). Its default, 1e-5 per
component, lets the tip end up to 1.7e-5 m away; 1e-5/sqrt(3) makes its own stop imply the
graded 1e-5 m (and far less than the graded 1e-3 rad)."""


class TracIKChain:
    """``TRAC_IK(base, tip, urdf, timeout, epsilon, Speed)`` from the mid-range seed."""

    name = "TRAC-IK"

    def __init__(self, chain: SerialChain, orientation: bool, timeout: float) -> None:
        if not orientation:
            raise PeerUnavailableError("not expressible: pytracik solves full poses only")
        try:
            import pytracik
        except ImportError as error:
            raise PeerUnavailableError(f"pytracik not installed: {error}") from error
        self.pytracik = pytracik
        self.chain = chain
        self.solver = pytracik.TRAC_IK(
            chain.base_link,
            chain.tip_link,
            to_urdf(chain),
            timeout,
            EPSILON,
            pytracik.SolveType.Speed,
        )
        if pytracik.get_num_joints(self.solver) != chain.n:
            raise PeerUnavailableError("TRAC-IK read a different number of joints")
        self.seed = chain.mid_range()

    def solve(self, position: np.ndarray, rotation: np.ndarray | None) -> Attempt:
        """One ``ik`` call; a negative status (no solution in time) keeps the returned angles."""
        assert rotation is not None
        x, y, z = (float(v) for v in position)
        qx, qy, qz, qw = quaternion(rotation)
        start = time.perf_counter()
        out = self.pytracik.ik(self.solver, self.seed, x, y, z, qx, qy, qz, qw)
        seconds = time.perf_counter() - start
        return Attempt(np.array(out[1:], dtype=float), seconds)

    def track(self, positions: np.ndarray) -> Track:
        """Not expressible: tracking targets are positions only."""
        raise PeerUnavailableError("not expressible: pytracik solves full poses only")
