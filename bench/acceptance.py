"""The issue's acceptance targets, checked against a finished run.

Each check yields one row: what is asked, what was measured, and "met", "MISSED" or
"n/a" (with the reason, e.g. a peer that could not run).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from bench.harness import CaseRun
from bench.metrics import Summary
from bench.tracking import TrackSummary

REACH = "Reach IK"
SCIPY = ("scipy SLSQP", "scipy trust-constr", "scipy L-BFGS-B")
BLENDER = ("Blender Standard IK", "Blender iTaSC")
SPEED_CASES = ("chain-7", "arm-7 pose", "chain-30")


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
    """Solve rate, speed ratios and accuracy ratios on the chain cases."""
    checks = []
    for run in runs:
        peers = _by_peer(run)
        reach = peers.get(REACH)
        if not _ok(reach):
            checks.append(Check(f"{run.case.name}: Reach IK runs", "did not run", "MISSED"))
            continue
        best_other = max(
            (s.rate for name, s in peers.items() if name != REACH and _ok(s)), default=math.nan
        )
        if best_other >= 0.9:
            checks.append(
                Check(
                    f"{run.case.name}: solve rate >= 99.5% "
                    f"(a peer reaches {100 * best_other:.0f}%)",
                    f"{100 * reach.rate:.1f}% ({reach.solved}/{reach.attempted})",
                    _status(reach.rate >= 0.995),
                )
            )
        if run.case.name in SPEED_CASES:
            ikpy = peers.get("ikpy")
            if _ok(ikpy):
                ratio = ikpy.median_time_all / reach.median_time_all
                checks.append(
                    Check(
                        f"{run.case.name}: median time <= 1/5 of ikpy's",
                        f"{_ms(reach.median_time_all)} vs {_ms(ikpy.median_time_all)} "
                        f"(ikpy / Reach = {ratio:.2f}x)",
                        _status(ratio >= 5.0),
                    )
                )
            scipy = [peers[m] for m in SCIPY if _ok(peers.get(m))]
            if scipy:
                best = min(scipy, key=lambda s: s.median_time_all)
                ratio = best.median_time_all / reach.median_time_all
                checks.append(
                    Check(
                        f"{run.case.name}: median time <= 1/3 of the best scipy method's",
                        f"{_ms(reach.median_time_all)} vs {best.peer} "
                        f"{_ms(best.median_time_all)} ({ratio:.2f}x)",
                        _status(ratio >= 3.0),
                    )
                )
        for name in BLENDER:
            blender = peers.get(name)
            if not _ok(blender):
                reason = "peer unavailable" if blender is None else blender.unavailable
                checks.append(Check(f"{run.case.name}: accuracy >= 100x {name}", reason, "n/a"))
                continue
            ratio = blender.median_position_error / max(reach.median_position_error, 1e-300)
            checks.append(
                Check(
                    f"{run.case.name}: accuracy >= 100x {name} (median position residual)",
                    f"{reach.median_position_error:.2e} vs {blender.median_position_error:.2e} "
                    f"({ratio:.3g}x)",
                    _status(ratio >= 100.0),
                )
            )
    return checks


def solver_checks(
    runs: list[CaseRun], task_summaries: dict[str, Summary], tracks: list[TrackSummary]
) -> list[Check]:
    """The solver issue's own targets: 7-DOF pose, tube 22 / 70, circle tracking."""
    checks = []
    arm = next((r for r in runs if r.case.name == "arm-7 pose"), None)
    reach = _by_peer(arm).get(REACH) if arm else None
    if _ok(reach):
        checks.append(
            Check(
                "7-DOF arm, position+orientation to 1e-5 / 0.01 deg: >= 99.5% solved",
                f"{100 * reach.rate:.1f}% ({reach.solved}/{reach.attempted})",
                _status(reach.rate >= 0.995),
            )
        )
        checks.append(
            Check(
                "7-DOF arm, position+orientation: median <= 3 ms",
                _ms(reach.median_time_all),
                _status(reach.median_time_all <= 3e-3),
            )
        )
    for prefix, limit in (("tube-22", 10e-3), ("tube-70", 40e-3)):
        s = task_summaries.get(prefix)
        if s is None:
            checks.append(Check(f"{prefix} task from neutral: <= {_ms(limit)}", "not run", "n/a"))
            continue
        checks.append(
            Check(
                f"{prefix} task from neutral: median <= {_ms(limit)}",
                f"{_ms(s.median_time_all)} ({s.solved}/{s.attempted} solved)",
                _status(s.median_time_all <= limit),
            )
        )
    circle = next((t for t in tracks if t.peer == REACH and t.path == "circle"), None)
    if circle is not None and circle.unavailable is None:
        checks.append(
            Check(
                "warm-started circle tracking (7 DOF): <= 1 ms per frame (median)",
                f"{_ms(circle.median_frame)} median, {_ms(circle.p95_frame)} p95, "
                f"{circle.within}/{circle.frames} frames within 1e-5",
                _status(circle.median_frame <= 1e-3),
            )
        )
    return checks
