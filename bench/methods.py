"""Every solve method of ``Solver(method=...)`` on the bench's chains and a tracked figure-eight.

``python -m bench.methods`` runs only this section and writes it into ``bench/RESULTS.md``
between the markers below (replaced in place, added at the end when missing);
``python -m bench`` runs it after the main report. For every method in
:data:`solver.methods.METHODS`, on the same chain cases as the main bench (same targets,
same mid-range start, same grading tolerances) and on the 7-DOF arm with position goals
only, two peers alternate target by target with every other method: the method with the
solver's default options (restarts and the 1 s time limit included) and the same method
from the single start (``restarts=0``). Columns: solve rate, median and p95 iterations
(``IKResult.nit``, all runs) and median and p95 time of the solver call only
(``Solver.solve``, failures included).

Smoothness: each method tracks the 7-DOF arm's figure-eight (``bench.tracking``'s path, the
preset path of the Jacobian-transpose/CCD seed) warm-started from the previous frame, with
its default options and from single starts; the largest joint step between frames
(max |dtheta|, radians), the worst tip error and the per-frame time.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import numpy as np

from bench.cases import CHAIN_DOFS, SOLVE_TIMEOUT, chain_cases
from bench.chains import arm7, to_serial
from bench.harness import CaseRun, ChainCase, PeerDef, run_case
from bench.report import machine_line, ms, sci, versions_line
from bench.sections import write_section
from bench.tracking import FRAMES, SPIKE, TrackSummary, paths, summarize_track, tracking_case
from solver.methods import METHODS

HERE = Path(__file__).resolve().parent
SECTION = "methods"
"""Marker name of this section in RESULTS.md."""
SINGLE = "single start"
RESTARTED = "with restarts"
PATH = "figure-eight"
POSITION_CASE = "arm-7 position"


def peer_name(method: str, start: str) -> str:
    """The peer's name: the method and how it starts (:data:`SINGLE` or :data:`RESTARTED`)."""
    return f"{method}, {start}"


def _build(method: str, restarts: int | None) -> Callable[[ChainCase], object]:
    def build(case: ChainCase) -> object:
        from bench.peers.reach import ReachChain

        start = RESTARTED if restarts is None else SINGLE
        name = peer_name(method, start)
        if restarts is None:
            return ReachChain(case.chain, case.orientation, name=name, method=method)
        return ReachChain(case.chain, case.orientation, name=name, method=method, restarts=restarts)

    return build


def method_peers(methods: tuple[str, ...] = METHODS) -> list[PeerDef]:
    """Two peers per method: default options, then single start (``restarts=0``)."""
    out = []
    for method in methods:
        out.append(PeerDef(peer_name(method, RESTARTED), _build(method, None), restarts="internal"))
        out.append(PeerDef(peer_name(method, SINGLE), _build(method, 0)))
    return out


def position_case(count: int = 100) -> ChainCase:
    """The 7-DOF arm with position-only goals (the tip's point of each sampled pose): the
    task the Jacobian transpose and CCD are usually given."""
    spec = arm7()
    return ChainCase(POSITION_CASE, to_serial(spec, "arm-7"), False, count, spec=spec)


@dataclass
class MethodsRun:
    """Everything one run of this section produced."""

    chains: list[CaseRun]
    tracks: list[TrackSummary]
    methods: tuple[str, ...]
    started: datetime
    seconds: float
    command: str
    budget: float
    machine: str
    versions: str


def run_methods(
    count: int = 100,
    frames: int = FRAMES,
    budget: float = 25.0,
    only: set[str] | None = None,
    methods: tuple[str, ...] = METHODS,
    log: Callable[[str], None] = print,
    command: str = "python -m bench.methods",
) -> MethodsRun:
    """Every method on every chain case (``only``: case names) and on the figure-eight.

    ``budget``: seconds each peer may spend on one case (the harness's cap).
    """
    started, clock = datetime.now(), time.perf_counter()
    definitions = method_peers(methods)
    chains = []
    for case in [*chain_cases(count, CHAIN_DOFS), position_case(count)]:
        if only and case.name not in only:
            continue
        log(f"methods: {case.name}")
        chains.append(run_case(case, definitions, budget, log, SOLVE_TIMEOUT))
    tracks = run_tracks(definitions, frames, log)
    return MethodsRun(
        chains,
        tracks,
        methods,
        started,
        time.perf_counter() - clock,
        command,
        budget,
        machine_line(),
        versions_line(),
    )


def run_tracks(
    definitions: list[PeerDef], frames: int, log: Callable[[str], None]
) -> list[TrackSummary]:
    """Each peer tracking the figure-eight, warm-started frame by frame."""
    case = tracking_case()
    targets = paths(frames)[PATH]
    out = []
    for definition in definitions:
        peer = definition.build(case)
        summary = summarize_track(definition.name, PATH, targets, peer.track(targets))  # type: ignore[attr-defined]
        log(
            f"  {definition.name:36s} {summary.within}/{summary.frames} frames, "
            f"max step {summary.max_step:.3g} rad, max error {summary.max_error:.2e}"
        )
        out.append(summary)
    return out


def _quantiles(values: list[float]) -> tuple[float, float]:
    if not values:
        return math.nan, math.nan
    return float(np.median(values)), float(np.quantile(values, 0.95))


def case_rows(run: CaseRun, methods: tuple[str, ...]) -> list[str]:
    """One row per method and start on one case."""
    lines = [
        "| method | start | targets | solved | solve rate | median iterations | "
        "p95 iterations | median ms | p95 ms | median residual | max limit excess | note |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    by_name = {r.name: r for r in run.runs}
    for method in methods:
        for start in (SINGLE, RESTARTED):
            peer = by_name[peer_name(method, start)]
            s = peer.summary()
            if s.unavailable:
                lines.append(f"| {method} | {start} | {s.unavailable} | | | | | | | | | |")
                continue
            iterations = [float(r.iterations) for r in peer.records if r.iterations is not None]
            seconds = [r.seconds for r in peer.records if math.isfinite(r.seconds)]
            it50, it95 = _quantiles(iterations)
            t50, t95 = _quantiles(seconds)
            targets = str(s.attempted) if s.attempted == s.planned else f"{s.attempted}/{s.planned}"
            lines.append(
                f"| {method} | {start} | {targets} | {s.solved} | {100 * s.rate:.1f}% | "
                f"{it50:.0f} | {it95:.0f} | {ms(t50)} | {ms(t95)} | "
                f"{sci(s.median_position_error)} | "
                f"{sci(s.max_violation) if s.max_violation else '0'} | {s.note} |"
            )
    return lines


def headline_rows(run: MethodsRun) -> list[str]:
    """Per method and case: solve rate single start / with restarts, median ms with restarts."""
    names = [c.case.name for c in run.chains]
    lines = [
        "| method | " + " | ".join(names) + " |",
        "|---|" + "---|" * len(names),
    ]
    for method in run.methods:
        cells = []
        for case_run in run.chains:
            by = {s.peer: s for s in case_run.summaries()}
            single, restarted = by[peer_name(method, SINGLE)], by[peer_name(method, RESTARTED)]
            if single.unavailable or restarted.unavailable:
                cells.append("unavailable")
                continue
            cells.append(
                f"{100 * single.rate:.0f}% / {100 * restarted.rate:.0f}% · "
                f"{ms(restarted.median_time_all)} ms"
            )
        lines.append(f"| {method} | " + " | ".join(cells) + " |")
    return lines


def track_rows(tracks: list[TrackSummary]) -> list[str]:
    """Smoothness and accuracy of each method and start on the figure-eight."""
    lines = [
        "| method, start | frames within 1e-5 | max abs dtheta per frame (rad) | "
        f"median abs dtheta (rad) | frames with dtheta > {SPIKE} | max tip error | "
        "median ms/frame | p95 ms/frame |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for t in tracks:
        lines.append(
            f"| {t.peer} | {t.within}/{t.frames} | {t.max_step:.3g} | {t.median_step:.3g} | "
            f"{t.spikes} | {sci(t.max_error)} | {ms(t.median_frame)} | {ms(t.p95_frame)} |"
        )
    return lines


def section(run: MethodsRun) -> str:
    """The Markdown section (between its markers' contents) of ``run``."""
    count = run.chains[0].case.count if run.chains else 0
    frames = run.tracks[0].frames if run.tracks else 0
    out = [
        "## Methods (`python -m bench.methods`)",
        "",
        f"- Machine: {run.machine}",
        f"- Versions: {run.versions}",
        f"- Date: {run.started.astimezone().strftime('%Y-%m-%d %H:%M %Z')}; command "
        f"`{run.command}`; this section took {run.seconds:.0f} s",
        *(
            []
            if run.command.startswith("make bench") or run.command.startswith("python -m bench ")
            else [
                "- Run alone, not as part of a full `make bench`: the rest of this file comes "
                "from the run dated at its top, on another commit and machine load.",
            ]
        ),
        "",
        f"Every `method=` of `solver.Solver` on the chain cases above ({count} targets "
        "each, the same targets, mid-range start and grading: within 1e-5 m and 1e-3 rad, "
        f"inside the limits), and on `{POSITION_CASE}`: the arm-7 targets' tip points "
        "alone (position goals, within 1e-5 m). Two rows per method, alternated target by "
        "target with every other method: *single start* (`restarts=0`: one local run from "
        "the start) and *with restarts* (the solver's default options: restarts from "
        "perturbed, then random starts within the 1 s time limit). Iterations are "
        "`IKResult.nit` (all runs); times are the `Solver.solve` call only, failures "
        "included. A peer stops after "
        f"{run.budget:g} s of solving on a case (shown as attempted/planned).",
        "",
        "Solve rate single start / with restarts · median ms with restarts:",
        "",
        *headline_rows(run),
        "",
    ]
    for case_run in run.chains:
        out += [f"### {case_run.case.name}", "", *case_rows(case_run, run.methods), ""]
    out += [
        f"### Smoothness: tracking the {PATH} (arm-7, position goal, {frames} frames)",
        "",
        "Warm-started from the previous frame's answer (the first frame from the mid-range "
        "pose); max abs dtheta is the largest change of any joint between two consecutive "
        "frames, the error the tip's distance to that frame's target.",
        "",
        *track_rows(run.tracks),
    ]
    return "\n".join(out)


def write(run: MethodsRun, results: Path) -> None:
    """Put this section into ``results`` (RESULTS.md), replacing an earlier one."""
    write_section(results, SECTION, section(run))


def main(argv: list[str] | None = None) -> int:
    """Run the section and write it into bench/RESULTS.md (or ``--out``)."""
    parser = argparse.ArgumentParser(prog="python -m bench.methods", description=__doc__)
    parser.add_argument("--count", type=int, default=100, help="targets per chain case")
    parser.add_argument("--frames", type=int, default=FRAMES, help="frames of the figure-eight")
    parser.add_argument("--budget", type=float, default=25.0, help="seconds per peer per case")
    parser.add_argument("--only", default="", help="comma-separated chain case names")
    parser.add_argument("--out", type=Path, default=HERE, help="folder holding RESULTS.md")
    args = parser.parse_args(argv)
    only = {s.strip() for s in args.only.split(",") if s.strip()} or None
    given = sys.argv[1:] if argv is None else argv
    command = " ".join(["python -m bench.methods", *given])
    run = run_methods(args.count, args.frames, args.budget, only, command=command)
    args.out.mkdir(parents=True, exist_ok=True)
    write(run, args.out / "RESULTS.md")
    print(section(run))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
