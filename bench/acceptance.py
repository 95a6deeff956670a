"""The issue's acceptance targets, checked against a finished run.

Each check yields one row: what is asked, what was measured, and "met", "MISSED" or
"n/a" (with the reason, e.g. a peer that could not run).
"""

from __future__ import annotations

from dataclasses import dataclass

from bench.harness import CaseRun
from bench.metrics import Summary
from bench.peers.reach import GRADED
from bench.tracking import TrackSummary

REACH = "Reach IK"
TRACIK = "TRAC-IK"
SPEED_CASES = ("iiwa7 pose", "arm-7 pose", "chain-7 pose")
"""7-DOF full-pose cases of the speed target: median within 1.5x TRAC-IK's."""
SPEED_RATIO = 1.5
RATE = 0.995
CIRCLE_MS = 0.3


@dataclass(frozen=True)
class Check:
    """One acceptance row."""

    target: str
    measured: str
    status: str  # "met", "MISSED" or "n/a"


def _by_peer(run: CaseRun) -> dict[str, Summary]:
    return {s.peer: s for s in run.summaries()}


def _ok(summary: Summary | None) -> bool:
    return summary is not None and summary.unavailable is None and summary.attempted > 0


def _ms(seconds: float) -> str:
    return f"{1e3 * seconds:.3g} ms"


def _status(condition: bool) -> str:
    return "met" if condition else "MISSED"


def chain_checks(runs: list[CaseRun]) -> list[Check]:
    """Reach IK's solve rate on every chain case and its speed against TRAC-IK.

    Both Reach IK rows are checked: the default options, and the defaults with the graded
    distance tolerance.
    """
    checks = []
    for run in runs:
        peers = _by_peer(run)
        for name in (REACH, GRADED):
            checks += _reach_checks(run.case.name, name, peers)
    return checks


def _reach_checks(case: str, name: str, peers: dict[str, Summary]) -> list[Check]:
    reach = peers.get(name)
    if not _ok(reach):
        return [Check(f"{case}: {name} runs", "did not run", "MISSED")]
    checks = [
        Check(
            f"{case}: {name} solves >= {100 * RATE:g}%",
            f"{100 * reach.rate:.1f}% ({reach.solved}/{reach.attempted})",
            _status(reach.rate >= RATE),
        )
    ]
    if case not in SPEED_CASES:
        return checks
    tracik = peers.get(TRACIK)
    if not _ok(tracik):
        reason = "TRAC-IK did not run" if tracik is None else str(tracik.unavailable)
        return [*checks, Check(f"{case}: {name} median <= 1.5x TRAC-IK", reason, "n/a")]
    for what, field in (("median", "median_time_all"), ("median CPU time", "median_cpu_all")):
        mine, theirs = getattr(reach, field), getattr(tracik, field)
        ratio = mine / theirs
        checks.append(
            Check(
                f"{case}: {name} {what} <= {SPEED_RATIO:g}x TRAC-IK's (same run)",
                f"{_ms(mine)} vs {_ms(theirs)} (ratio {ratio:.2f}x)",
                _status(ratio <= SPEED_RATIO),
            )
        )
    return checks


def solver_checks(tracks: list[TrackSummary]) -> list[Check]:
    """Circle tracking time per frame (warm-started, 7 DOF, position goal)."""
    circle = next((t for t in tracks if t.peer == REACH and t.path == "circle"), None)
    if circle is None or circle.unavailable is not None:
        return [Check(f"circle tracking <= {CIRCLE_MS:g} ms/frame", "not run", "n/a")]
    return [
        Check(
            f"warm-started circle tracking (7 DOF): <= {CIRCLE_MS:g} ms per frame (median)",
            f"{_ms(circle.median_frame)} median, {_ms(circle.p95_frame)} p95, "
            f"{circle.within}/{circle.frames} frames within 1e-5",
            _status(circle.median_frame <= CIRCLE_MS * 1e-3),
        )
    ]
