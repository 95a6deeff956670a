"""ikpy (pure Python IK on scipy's least_squares) on the chain's URDF text.

ikpy reads :func:`bench.serial.to_urdf` of the chain with its own URDF parser
(``Chain.from_urdf_file``): a base link, one ``URDFLink`` per revolute joint and the
fixed tip. It stops by its own tolerance (``tol``, given to least_squares); restarts from
random starts in the limits come from :func:`bench.peers.base.with_restarts`.
"""

from __future__ import annotations

import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
from ikpy.chain import Chain

from bench.metrics import within_tolerance
from bench.peers.base import (
    Attempt,
    Deadline,
    SolveTimeoutError,
    Track,
    warm_track,
    with_restarts,
)
from bench.serial import SerialChain, to_urdf

TOLERANCE = 1e-12
"""ikpy's ``tol`` (least_squares ftol and xtol): tight enough that 1e-5 is reachable."""


class _TimedChain(Chain):
    """A Chain whose forward kinematics checks a per-solve deadline (ikpy calls it per step)."""

    deadline: Deadline | None = None

    def forward_kinematics(self, joints, full_kinematics=False, backend="numpy"):
        if self.deadline is not None:
            self.deadline.check()
        return super().forward_kinematics(joints, full_kinematics=full_kinematics, backend=backend)


def build_ikpy_chain(chain: SerialChain) -> Chain:
    """ikpy's Chain of ``chain`` from its URDF text; joint vector = [0, angles..., 0]."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"{chain.name}.urdf"
        path.write_text(to_urdf(chain))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            built = _TimedChain.from_urdf_file(
                str(path), base_elements=[chain.base_link], symbolic=False
            )
    kinds = [link.joint_type for link in built.links]
    if kinds != ["fixed"] + ["revolute"] * chain.n + ["fixed"]:
        raise ValueError(f"ikpy read joints {kinds} for chain {chain.name!r}")
    built.active_links_mask = np.array([False] + [True] * chain.n + [False])
    return built


class IkpyChain:
    """``Chain.inverse_kinematics`` from the mid-range seed pose (orientation mode "all")."""

    name = "ikpy"

    def __init__(
        self, chain: SerialChain, orientation: bool, timeout: float, budget: float
    ) -> None:
        self.spec = chain
        self.orientation = orientation
        self.chain = build_ikpy_chain(chain)
        self.chain.deadline = Deadline(timeout)
        self.budget = budget
        self.rng = np.random.default_rng(7)
        self.seed = chain.mid_range()
        self._target: tuple[np.ndarray, np.ndarray | None] = (np.zeros(3), None)

    def _inverse(self, position: np.ndarray, rotation: np.ndarray | None, initial: np.ndarray):
        kwargs = {"initial_position": np.concatenate([[0.0], initial, [0.0]]), "tol": TOLERANCE}
        if self.orientation and rotation is not None:
            kwargs.update(target_orientation=rotation, orientation_mode="all")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            full = self.chain.inverse_kinematics(position, **kwargs)
        return np.asarray(full, dtype=float)[1:-1]

    def reached(self, angles: np.ndarray) -> bool:
        """Within the graded tolerances of the current target (bench FK)."""
        return within_tolerance(self.spec, angles, *self._target)

    def attempt(self, start: np.ndarray) -> Attempt:
        """One ``inverse_kinematics`` call from ``start``; over the time limit is a failure."""
        position, rotation = self._target
        self.chain.deadline.restart()
        began, began_cpu = time.perf_counter(), time.process_time()
        try:
            angles = self._inverse(position, rotation, start)
        except SolveTimeoutError as timeout:
            return Attempt(None, time.perf_counter() - began, error=f"timeout ({timeout})")
        cpu = time.process_time() - began_cpu
        return Attempt(angles, time.perf_counter() - began, cpu=cpu)

    def solve(self, position: np.ndarray, rotation: np.ndarray | None) -> Attempt:
        """From the mid-range seed, then random restarts within the budget."""
        self._target = (np.asarray(position, float), rotation if self.orientation else None)
        return with_restarts(
            self.attempt,
            self.seed,
            self.spec.lower,
            self.spec.upper,
            self.reached,
            self.budget,
            self.rng,
        )

    def track(self, positions: np.ndarray) -> Track:
        """Follow ``positions`` (T, 3), warm-starting each frame from the previous answer."""

        def retarget(position: np.ndarray) -> None:
            self._target = (position, None)

        return warm_track(self.spec, self.seed, positions, retarget, self.attempt)
