"""What every peer returns for one solve, and the per-solve time limit.

A peer is any object with a ``name``, ``solve(position, rotation) -> Attempt`` and
``track(positions) -> Track``; it is built from a case (a :class:`bench.serial.SerialChain`
and whether the goal has an orientation). Peers report joint angles; the harness grades
them with the bench's own forward kinematics.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np

from bench.serial import SerialChain, forward


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
    exception text when the solve did not finish; single: the first try from the seed pose
    when the bench restarted the peer (see :func:`with_restarts`), and tries: how many
    starts were used; cpu: process CPU seconds of the solve when the peer measures them
    itself (to leave out the bench's checks), else None (the harness measures the call).
    """

    angles: np.ndarray | None
    seconds: float
    tip: np.ndarray | None = None
    rotation: np.ndarray | None = None
    iterations: int | None = None
    error: str | None = None
    single: Attempt | None = None
    tries: int = 1
    cpu: float | None = None


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


def with_restarts(
    attempt: Callable[[np.ndarray], Attempt],
    seed: np.ndarray,
    lower: np.ndarray,
    upper: np.ndarray,
    reached: Callable[[np.ndarray], bool],
    budget: float,
    rng: np.random.Generator,
) -> Attempt:
    """TRAC-IK's remedy for a peer that has none: restart from random starts in the limits.

    ``attempt(start)`` runs one timed solve; ``reached(angles)`` (untimed) says whether an
    answer is within tolerance. After the first try from ``seed`` the peer restarts from
    uniform random starts in ``[lower, upper]`` until an answer is reached or the summed
    timed seconds exceed ``budget``. Returns the last try's answer (the reached one, or the
    last) with the summed seconds and iterations, ``single`` = the first try.
    """
    first = attempt(seed)
    current, seconds, iterations, tries = first, first.seconds, first.iterations or 0, 1
    cpu = first.cpu
    while (
        current.error is None
        and current.angles is not None
        and not reached(current.angles)
        and seconds < budget
    ):
        current = attempt(rng.uniform(lower, upper))
        seconds += current.seconds
        cpu = None if cpu is None or current.cpu is None else cpu + current.cpu
        iterations += current.iterations or 0
        tries += 1
    if tries == 1:
        return first
    return replace(
        current,
        seconds=seconds,
        iterations=iterations if first.iterations is not None else None,
        single=first,
        tries=tries,
        cpu=cpu,
    )


def warm_track(
    chain: SerialChain,
    seed: np.ndarray,
    positions: np.ndarray,
    retarget: Callable[[np.ndarray], None],
    attempt: Callable[[np.ndarray], Attempt],
) -> Track:
    """Follow ``positions`` (T, 3): ``retarget(position)``, then ``attempt(start)`` from the
    previous frame's answer (``seed`` for the first frame; kept when a frame gives none)."""
    current = np.asarray(seed, dtype=float)
    angles, seconds = [], []
    for position in positions:
        retarget(np.asarray(position, dtype=float))
        result = attempt(current)
        if result.angles is not None:
            current = result.angles
        seconds.append(result.seconds)
        angles.append(np.array(current))
    angles_array = np.array(angles)
    tips = np.array([forward(chain, a)[0] for a in angles_array])
    return Track(tips=tips, seconds=np.array(seconds), angles=angles_array)
