"""Run one case against every peer, alternating peers target by target.

For target k the peers run in an order rotated by k, so slow drifts of the shared machine
(other processes, thermal state) fall on every peer alike. Each peer may be capped to a
number of targets (slow peers at large DOF) and has a wall-clock budget per case; targets
it did not get to are reported as the cap, and each single solve has a time limit beyond
which it is a failure.
"""

from __future__ import annotations

import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from bench.chains import ChainSpec
from bench.metrics import Record, Summary, grade, summarize
from bench.peers.base import Attempt, PeerUnavailableError
from bench.serial import SerialChain, Targets, sample_targets


@dataclass(frozen=True)
class ChainCase:
    """A chain and a goal type: ``count`` targets sampled with a fixed seed.

    spec: the procedural description when the chain has one (Blender's peers need it).
    """

    name: str
    chain: SerialChain
    orientation: bool
    count: int = 100
    seed: int = 1
    spec: ChainSpec | None = None
    source: str = ""

    def targets(self) -> Targets:
        """The case's targets (deterministic)."""
        return sample_targets(self.chain, self.count, seed=self.seed)


@dataclass(frozen=True)
class PeerDef:
    """How to build a peer for a case, and how many targets it gets at ``n`` DOF.

    restarts: "internal" (the peer restarts by itself: TRAC-IK, Reach IK's defaults),
    "bench" (:func:`bench.peers.base.with_restarts` restarts it) or "none".
    """

    name: str
    build: Callable[[ChainCase], object]
    cap: Callable[[int], int | None] = lambda n: None
    restarts: str = "none"


@dataclass
class PeerRun:
    """A peer's graded records on one case and why it may have stopped early."""

    name: str
    records: list[Record] = field(default_factory=list)
    restarts: str = "none"
    planned: int = 0
    unavailable: str | None = None
    note: str = ""
    spent: float = 0.0

    def summary(self) -> Summary:
        """Aggregate the records (see :func:`bench.metrics.summarize`)."""
        return summarize(self.name, self.records, self.planned, self.unavailable, self.note)


@dataclass
class CaseRun:
    """Every peer's run on one case."""

    case: ChainCase
    runs: list[PeerRun]

    def summaries(self) -> list[Summary]:
        """One summary per peer, in peer order."""
        return [r.summary() for r in self.runs]


def _build(peer: PeerDef, case: ChainCase) -> tuple[object | None, str | None]:
    try:
        return peer.build(case), None
    except PeerUnavailableError as error:
        return None, str(error)
    except Exception as error:  # a broken peer is reported, the bench goes on
        return None, f"{type(error).__name__}: {error}"


def run_case(
    case: ChainCase,
    peers: list[PeerDef],
    budget: float = 25.0,
    log: Callable[[str], None] = print,
    timeout: float = 5.0,
) -> CaseRun:
    """Solve every target of ``case`` with every peer; ``budget`` seconds per peer.

    A solve longer than ``timeout`` seconds is a failure ("timeout") whatever it returned.
    """
    targets = case.targets()
    built, runs = [], []
    for peer in peers:
        instance, reason = _build(peer, case)
        cap = peer.cap(case.chain.n)
        planned = case.count if cap is None else min(cap, case.count)
        note = "" if planned == case.count else f"capped at {planned} of {case.count} targets"
        runs.append(
            PeerRun(
                peer.name, restarts=peer.restarts, planned=planned, unavailable=reason, note=note
            )
        )
        built.append(instance)
        if reason:
            log(f"  {peer.name}: peer unavailable: {reason}")
    live = [i for i, b in enumerate(built) if b is not None]
    for k in range(len(targets)):
        position = targets.positions[k]
        rotation = targets.rotations[k] if case.orientation else None
        shift = k % len(live) if live else 0
        for i in live[shift:] + live[:shift]:
            run = runs[i]
            if len(run.records) >= run.planned:
                continue
            if run.spent > budget:
                run.planned = len(run.records)
                run.note = f"stopped after {run.spent:.0f} s budget at {run.planned} targets"
                continue
            start, cpu = time.perf_counter(), time.process_time()
            try:
                attempt = built[i].solve(position, rotation)
            except Exception as error:  # reported as a failed solve, never dropped
                detail = "".join(traceback.format_exception_only(error)).strip()
                attempt = Attempt(None, time.perf_counter() - start, error=detail)
            cpu = time.process_time() - cpu if attempt.cpu is None else attempt.cpu
            if attempt.error is None and attempt.seconds > timeout:
                # Peers that cannot be interrupted get the same limit after the fact.
                attempt = replace(attempt, error=f"timeout (took {attempt.seconds:.1f} s)")
            run.spent += time.perf_counter() - start
            run.records.append(grade(case.chain, attempt, k, position, rotation, cpu=cpu))
    for run in runs:
        if not run.unavailable:
            s = run.summary()
            log(
                f"  {run.name:22s} {s.solved:4d}/{s.attempted:<4d} solved "
                f"({s.solved_single:4d} first try)  "
                f"median {1e3 * s.median_time_all:9.3f} ms  "
                f"median residual {s.median_position_error:.2e}"
            )
    return CaseRun(case, runs)
