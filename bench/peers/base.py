"""What every peer returns for one solve, and the per-solve time limit.

A peer is any object with a ``name``, ``solve(position, rotation) -> Attempt`` and
``track(positions) -> Track``; it is built from a :class:`bench.chains.ChainSpec`. Peers
report joint angles; the harness grades them with the chain's own forward kinematics.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np


class PeerUnavailableError(RuntimeError):
    """The peer cannot run on this machine (missing module, failed start-up); says why."""


class SolveTimeoutError(RuntimeError):
    """Raised inside a peer's objective when one solve exceeds its time limit."""


@dataclass
class Attempt:
    """One solve by one peer.

    angles: (n,) radians or None when the peer produced nothing; seconds: wall time of the
    solve call; tip (3,) / rotation (3, 3): the peer's own evaluation of the tip, set only by
    peers whose joint values are not the whole story (Blender reads the evaluated bone);
    iterations: optimiser iterations when the peer reports them; error: "timeout" or the
    exception text when the solve did not finish.
    """

    angles: np.ndarray | None
    seconds: float
    tip: np.ndarray | None = None
    rotation: np.ndarray | None = None
    iterations: int | None = None
    error: str | None = None


@dataclass
class Track:
    """A warm-started tracking run: one solve per frame.

    tips: (T, 3) tip positions; seconds: (T,) per-frame wall time; angles: (T, n) radians or
    None when the peer does not expose joint values per frame.
    """

    tips: np.ndarray
    seconds: np.ndarray
    angles: np.ndarray | None = None
    notes: list[str] = field(default_factory=list)


class Deadline:
    """A wall-clock limit for one solve; ``check()`` raises :class:`SolveTimeoutError` past it."""

    def __init__(self, seconds: float) -> None:
        self.limit = seconds
        self.end = time.perf_counter() + seconds

    def restart(self) -> None:
        """Start a new solve's clock."""
        self.end = time.perf_counter() + self.limit

    def check(self) -> None:
        """Raise :class:`SolveTimeoutError` if the current solve is over its limit."""
        if time.perf_counter() > self.end:
            raise SolveTimeoutError(f"over the {self.limit:g} s limit")
