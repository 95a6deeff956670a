"""Grading one attempt against its target, and summarising a peer's attempts on a case.

A solve counts as solved when the tip is within :data:`POSITION_TOLERANCE` of the target,
its rotation within :data:`ANGLE_TOLERANCE` of the target rotation (when the case has an
orientation goal), and no joint is outside its limits by more than :data:`LIMIT_SLACK`.
Residuals come from :func:`bench.serial.forward` of the peer's joint angles (Blender: its
evaluated tip), never from a peer's own kinematics. A timeout or an exception is a failure
with an infinite residual: failures are kept, never dropped.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field, replace

import numpy as np

from bench.peers.base import Attempt
from bench.serial import SerialChain, forward, rotation_angle

POSITION_TOLERANCE = 1e-5
"""Metres (scene units): TRAC-IK's benchmark tolerance."""
ANGLE_TOLERANCE = 1e-3
"""Radians: the tip rotation's angle from the target rotation (axis-angle)."""
LIMIT_SLACK = 1e-7
"""Radians a joint may exceed a limit by (floating-point round-off) before it is a violation."""


@dataclass(frozen=True)
class Record:
    """The graded outcome of one solve.

    position_error: scene units (inf when no answer); angle_error: radians or None for
    position-only cases; violation: radians beyond the worst-violated limit (0 = none);
    outcome: "solved", "missed", "limits", "timeout" or "error"; mismatch: scene units
    between the peer's own tip and the chain's forward kinematics of its angles (peers that
    report a tip), a check that the peer models the same chain; cpu: process CPU seconds of
    the solve call, which other load on the machine inflates less than wall time.
    """

    index: int
    seconds: float
    position_error: float
    angle_error: float | None
    violation: float
    outcome: str
    iterations: int | None = None
    mismatch: float | None = None
    detail: str = ""
    cpu: float = math.nan
    single: Record | None = None
    tries: int = 1

    @property
    def solved(self) -> bool:
        """True when the target was reached within tolerance and limits."""
        return self.outcome == "solved"

    @property
    def first(self) -> Record:
        """The graded first try from the seed pose (this record when it had one try)."""
        return self if self.single is None else self.single


def grade(
    chain: SerialChain,
    attempt: Attempt,
    index: int,
    position: np.ndarray,
    rotation: np.ndarray | None,
    position_tolerance: float = POSITION_TOLERANCE,
    angle_tolerance: float = ANGLE_TOLERANCE,
    cpu: float = math.nan,
) -> Record:
    """Grade ``attempt`` on target ``position`` (3,) [and ``rotation`` (3, 3) or None].

    When the bench restarted the peer (``attempt.single`` is set), the first try is graded
    too and kept as ``Record.single``.
    """
    single = None
    if attempt.single is not None:
        single = grade(
            chain, attempt.single, index, position, rotation, position_tolerance, angle_tolerance
        )
    record = _grade_one(
        chain, attempt, index, position, rotation, position_tolerance, angle_tolerance, cpu
    )
    return replace(record, single=single, tries=attempt.tries)


def _grade_one(
    chain: SerialChain,
    attempt: Attempt,
    index: int,
    position: np.ndarray,
    rotation: np.ndarray | None,
    position_tolerance: float,
    angle_tolerance: float,
    cpu: float,
) -> Record:
    if attempt.angles is None or attempt.error is not None:
        outcome = "timeout" if (attempt.error or "").startswith("timeout") else "error"
        return Record(
            index,
            attempt.seconds,
            math.inf,
            None if rotation is None else math.inf,
            0.0,
            outcome,
            attempt.iterations,
            detail=attempt.error or "no answer",
            cpu=cpu,
        )
    angles = np.asarray(attempt.angles, dtype=float)
    fk_tip, fk_rotation = forward(chain, angles)
    tip = fk_tip if attempt.tip is None else attempt.tip
    tip_rotation = fk_rotation if attempt.rotation is None else attempt.rotation
    mismatch = None if attempt.tip is None else float(np.linalg.norm(attempt.tip - fk_tip))
    position_error = float(np.linalg.norm(tip - position))
    angle_error = None if rotation is None else rotation_angle(tip_rotation, rotation)
    below = np.asarray(chain.lower) - angles
    above = angles - np.asarray(chain.upper)
    violation = float(max(0.0, below.max(), above.max()))
    if not np.all(np.isfinite(angles)):
        outcome = "error"
    elif violation > LIMIT_SLACK:
        outcome = "limits"
    elif position_error <= position_tolerance and (
        angle_error is None or angle_error <= angle_tolerance
    ):
        outcome = "solved"
    else:
        outcome = "missed"
    return Record(
        index,
        attempt.seconds,
        position_error,
        angle_error,
        violation,
        outcome,
        attempt.iterations,
        mismatch,
        cpu=cpu,
    )


def within_tolerance(
    chain: SerialChain, angles: np.ndarray, position: np.ndarray, rotation: np.ndarray | None
) -> bool:
    """Whether joint ``angles`` put the tip within the graded tolerances of the target.

    The stop check the bench gives peers without one of their own (run outside their
    timed region), and the restart test of :func:`bench.peers.base.with_restarts`.
    """
    tip, tip_rotation = forward(chain, angles)
    if np.linalg.norm(tip - position) > POSITION_TOLERANCE:
        return False
    return rotation is None or rotation_angle(tip_rotation, rotation) <= ANGLE_TOLERANCE


def solve_rate_at(
    records: list[Record], position_tolerance: float, angle_tolerance: float
) -> float:
    """Fraction of ``records`` within the given tolerances and the limits (0 when empty)."""
    if not records:
        return 0.0
    ok = 0
    for r in records:
        if r.outcome in ("timeout", "error", "limits"):
            continue
        angle_ok = r.angle_error is None or r.angle_error <= angle_tolerance
        ok += r.position_error <= position_tolerance and angle_ok
    return ok / len(records)


def _quantile(values: list[float], q: float) -> float:
    if not values:
        return math.nan
    # Failures carry infinite residuals; interpolating between two infinities gives nan.
    method = "linear" if np.all(np.isfinite(values)) else "nearest"
    return float(np.quantile(values, q, method=method))


@dataclass
class Summary:
    """One peer on one case. Times in seconds, residuals in scene units / degrees."""

    peer: str
    planned: int
    attempted: int
    solved: int
    solved_single: int = 0
    outcomes: Counter = field(default_factory=Counter)
    median_time_solved: float = math.nan
    p95_time_solved: float = math.nan
    median_time_all: float = math.nan
    p95_time_all: float = math.nan
    median_cpu_all: float = math.nan
    median_position_error: float = math.nan
    p95_position_error: float = math.nan
    median_angle_error: float | None = None
    max_violation: float = 0.0
    median_iterations: float | None = None
    max_mismatch: float | None = None
    unavailable: str | None = None
    note: str = ""

    @property
    def rate(self) -> float:
        """Solve rate over the attempted targets (nan when nothing ran)."""
        return self.solved / self.attempted if self.attempted else math.nan

    @property
    def rate_single(self) -> float:
        """Solve rate of the first try from the seed pose (before any bench restart)."""
        return self.solved_single / self.attempted if self.attempted else math.nan


def summarize(
    peer: str, records: list[Record], planned: int, unavailable: str | None = None, note: str = ""
) -> Summary:
    """Aggregate a peer's records on one case."""
    solved = [r for r in records if r.solved]
    summary = Summary(
        peer=peer,
        planned=planned,
        attempted=len(records),
        solved=len(solved),
        solved_single=sum(r.first.solved for r in records),
        outcomes=Counter(r.outcome for r in records),
        unavailable=unavailable,
        note=note,
    )
    if not records:
        return summary
    timed = [r.seconds for r in records if math.isfinite(r.seconds)]
    timed_solved = [r.seconds for r in solved if math.isfinite(r.seconds)]
    summary.median_time_solved = _quantile(timed_solved, 0.5)
    summary.p95_time_solved = _quantile(timed_solved, 0.95)
    summary.median_time_all = _quantile(timed, 0.5)
    summary.p95_time_all = _quantile(timed, 0.95)
    summary.median_cpu_all = _quantile([r.cpu for r in records if math.isfinite(r.cpu)], 0.5)
    summary.median_position_error = _quantile([r.position_error for r in records], 0.5)
    summary.p95_position_error = _quantile([r.position_error for r in records], 0.95)
    angles = [r.angle_error for r in records if r.angle_error is not None]
    summary.median_angle_error = _quantile(angles, 0.5) if angles else None
    summary.max_violation = max(r.violation for r in records)
    iterations = [r.iterations for r in records if r.iterations is not None]
    summary.median_iterations = float(np.median(iterations)) if iterations else None
    mismatches = [r.mismatch for r in records if r.mismatch is not None]
    summary.max_mismatch = max(mismatches) if mismatches else None
    return summary
