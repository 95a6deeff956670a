"""ikpy (pure Python IK on scipy.optimize.least_squares) on an equivalent chain.

The ikpy chain is built from the same link geometry: an ``OriginLink``, one revolute
``URDFLink`` per link (link 0 turned by the rest frame, rpy = (pi/2, 0, 0), i.e. a rotation
of +90 degrees about X; later links offset ``(0, lengths[i-1], 0)``), and a fixed tip link
``(0, lengths[-1], 0)`` along the last link.
"""

from __future__ import annotations

import time
import warnings

import numpy as np
from ikpy.chain import Chain
from ikpy.link import OriginLink, URDFLink

from bench.chains import AXIS_VECTORS, ChainSpec, forward
from bench.peers.base import Attempt, Deadline, SolveTimeoutError, Track

TOLERANCE = 1e-12
"""ikpy's ``tol`` (least_squares ftol and xtol): tight enough that 1e-5 is reachable."""


class _TimedChain(Chain):
    """A Chain whose forward kinematics checks a per-solve deadline (ikpy calls it per step)."""

    deadline: Deadline | None = None

    def forward_kinematics(self, joints, full_kinematics=False, backend="numpy"):
        if self.deadline is not None:
            self.deadline.check()
        return super().forward_kinematics(joints, full_kinematics=full_kinematics, backend=backend)


def build_ikpy_chain(spec: ChainSpec) -> Chain:
    """An ikpy Chain equivalent to ``spec``; joint vector = [0, angles..., 0]."""
    links = [OriginLink()]
    for i, (axis, lo, hi) in enumerate(zip(spec.axes, spec.lower, spec.upper, strict=True)):
        links.append(
            URDFLink(
                name=f"link{i}",
                origin_translation=np.array([0.0, 0.0 if i == 0 else spec.lengths[i - 1], 0.0]),
                origin_orientation=np.array([np.pi / 2 if i == 0 else 0.0, 0.0, 0.0]),
                rotation=AXIS_VECTORS[axis],
                bounds=(lo, hi),
            )
        )
    links.append(
        URDFLink(
            name="tip",
            origin_translation=np.array([0.0, spec.lengths[-1], 0.0]),
            origin_orientation=np.zeros(3),
            joint_type="fixed",
        )
    )
    mask = [False] + [True] * spec.n + [False]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _TimedChain(links, active_links_mask=mask, name="bench")


class IkpyChain:
    """``Chain.inverse_kinematics`` from the mid-range seed pose (orientation mode "all")."""

    name = "ikpy"

    def __init__(self, spec: ChainSpec, orientation: bool, timeout: float = 10.0) -> None:
        self.spec = spec
        self.orientation = orientation
        self.chain = build_ikpy_chain(spec)
        self.chain.deadline = Deadline(timeout)
        self.seed = np.concatenate([[0.0], spec.mid_range(), [0.0]])

    def _inverse(self, position: np.ndarray, rotation: np.ndarray | None, initial: np.ndarray):
        kwargs = {"initial_position": initial, "tol": TOLERANCE}
        if self.orientation and rotation is not None:
            kwargs.update(target_orientation=rotation, orientation_mode="all")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return np.asarray(self.chain.inverse_kinematics(position, **kwargs), dtype=float)

    def solve(self, position: np.ndarray, rotation: np.ndarray | None) -> Attempt:
        """Solve one target; over the time limit counts as a failed solve."""
        self.chain.deadline.restart()
        start = time.perf_counter()
        try:
            full = self._inverse(position, rotation, self.seed)
        except SolveTimeoutError as timeout:
            return Attempt(None, time.perf_counter() - start, error=f"timeout ({timeout})")
        return Attempt(full[1:-1], time.perf_counter() - start)

    def track(self, positions: np.ndarray) -> Track:
        """Follow ``positions`` (T, 3), warm-starting each frame from the previous answer."""
        full = self.seed
        angles, seconds = [], []
        for position in positions:
            self.chain.deadline.restart()
            start = time.perf_counter()
            try:
                full = self._inverse(position, None, full)
            except SolveTimeoutError:
                pass
            seconds.append(time.perf_counter() - start)
            angles.append(full[1:-1].copy())
        angles_array = np.array(angles)
        tips = np.array([forward(self.spec, a)[0] for a in angles_array])
        return Track(tips=tips, seconds=np.array(seconds), angles=angles_array)
