"""Write bench/RESULTS.md from a finished run: machine line, tables, checks, profiles."""

from __future__ import annotations

import math
import pickle
import platform
import subprocess
from dataclasses import dataclass, field, replace
from datetime import datetime
from importlib import metadata
from pathlib import Path

import numpy as np

from bench.acceptance import Check
from bench.cases import RESTART_BUDGET, SOLVE_TIMEOUT
from bench.harness import CaseRun, PeerRun
from bench.metrics import ANGLE_TOLERANCE, LIMIT_SLACK, POSITION_TOLERANCE, Summary
from bench.sections import marked_sections
from bench.tasks import TaskCase
from bench.tracking import SPIKE, TrackSummary

ITERATION_DOFS = (7, 30, 100)
TRACIK = "TRAC-IK"


@dataclass
class BenchRun:
    """Everything one ``python -m bench`` produced."""

    chains: list[CaseRun]
    tasks: list[tuple[TaskCase, list[PeerRun]]]
    tracks: list[TrackSummary]
    checks: list[Check]
    profiles: dict[str, str] = field(default_factory=dict)
    started: datetime = field(default_factory=datetime.now)
    seconds: float = 0.0
    command: str = "make bench"
    plots: list[tuple[str, str]] = field(default_factory=list)
    notes: str = ""
    eval_speed: str = ""
    machine: str = field(default_factory=lambda: machine_line())
    versions: str = field(default_factory=lambda: versions_line())


SAVED = "last_run.pickle"
"""File name (in the output folder) of the pickled last run, for ``--rewrite``."""


def save_run(run: BenchRun, path: Path) -> None:
    """Pickle ``run`` to ``path`` (the task cases' sample builders are dropped)."""
    tasks = [(replace(case, make=None), runs) for case, runs in run.tasks]
    path.write_bytes(pickle.dumps(replace(run, tasks=tasks)))


def load_run(path: Path) -> BenchRun:
    """The run :func:`save_run` wrote (a file this bench wrote itself, never a foreign one)."""
    return pickle.loads(path.read_bytes())


def machine_line() -> str:
    """CPU model, logical cores, OS, Python and the load average, as one line."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    import os

    load = ", ".join(f"{v:.1f}" for v in os.getloadavg())
    return (
        f"{cpu}, {os.cpu_count()} logical cores, {platform.system()} {platform.release()}, "
        f"Python {platform.python_version()}, "
        f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', 'unset')}; shared and "
        f"noisy: load average {load} (1, 5, 15 min) when the report was written"
    )


def versions_line() -> str:
    """Package versions of every peer, and the commit of the solver measured."""
    parts = []
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
        ).stdout.strip()
        parts.append(f"reach-ik {commit or 'unknown'}")
    except OSError:
        parts.append("reach-ik (no git)")
    for name in ("numpy", "scipy", "ikpy", "pytracik", "pybullet", "matplotlib", "bpy"):
        try:
            parts.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            parts.append(f"{name} not installed")
    return ", ".join(parts)


def ms(seconds: float) -> str:
    """Seconds as a short millisecond string ('-' for nan)."""
    if seconds is None or not math.isfinite(seconds):
        return "-"
    return f"{1e3 * seconds:.3g}"


def sci(value: float | None) -> str:
    """A residual in short scientific notation ('-' when absent, 'inf' for no answer)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    return "inf" if math.isinf(value) else f"{value:.1e}"


def _failures(s: Summary) -> str:
    kinds = ("missed", "limits", "timeout", "error")
    parts = [f"{s.outcomes[k]} {k}" for k in kinds if s.outcomes[k]]
    return ", ".join(parts) or "none"


RESTARTS = {"internal": "own", "bench": "bench", "none": "none"}


def _versus(s: Summary, reference: Summary | None, field: str = "median_time_all") -> str:
    """Median wall (or CPU: ``field="median_cpu_all"``) time as a multiple of TRAC-IK's in
    the same run ('-' without TRAC-IK)."""
    if reference is None or reference.unavailable or not reference.attempted:
        return "-"
    mine, theirs = getattr(s, field), getattr(reference, field)
    if not (math.isfinite(mine) and math.isfinite(theirs) and theirs > 0):
        return "-"
    return f"{mine / theirs:.3g}x"


def case_table(
    summaries: list[Summary], orientation: bool, restarts: dict[str, str] | None = None
) -> list[str]:
    """One row per peer with every column of the protocol."""
    restarts = restarts or {}
    reference = next((s for s in summaries if s.peer == TRACIK), None)
    head = (
        "| peer | targets | restarts | solved, first try | solved | solve rate | "
        "median ms | p95 ms | median / TRAC-IK | median CPU ms | CPU / TRAC-IK | "
        "median residual | "
        "p95 residual | "
        + ("median angle (rad) | " if orientation else "")
        + "max limit excess (rad) | failures | note |"
    )
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    for s in summaries:
        if s.unavailable:
            cols = head.count("|") - 2
            lines.append(f"| {s.peer} | {s.unavailable} |" + " |" * (cols - 1))
            continue
        row = [
            s.peer,
            f"{s.attempted}/{s.planned}" if s.planned != s.attempted else str(s.attempted),
            RESTARTS.get(restarts.get(s.peer, "none"), "none"),
            f"{s.solved_single} ({100 * s.rate_single:.1f}%)",
            str(s.solved),
            f"{100 * s.rate:.1f}%",
            ms(s.median_time_all),
            ms(s.p95_time_all),
            _versus(s, reference),
            ms(s.median_cpu_all),
            _versus(s, reference, "median_cpu_all"),
            sci(s.median_position_error),
            sci(s.p95_position_error),
        ]
        if orientation:
            row.append(sci(s.median_angle_error))
        row += [sci(s.max_violation) if s.max_violation else "0", _failures(s), s.note]
        lines.append("| " + " | ".join(row) + " |")
    return lines


def headline(runs: list[CaseRun], tasks: list[tuple[TaskCase, list[PeerRun]]]) -> list[str]:
    """Solve rate and median time (all runs) of every peer on every case."""
    names: list[str] = []
    for run in runs:
        for r in run.runs:
            if r.name not in names:
                names.append(r.name)
    lines = [
        "| case | " + " | ".join(names) + " |",
        "|---|" + "---|" * len(names),
    ]
    rows = [(run.case.name, run.summaries()) for run in runs]
    rows += [(case.name, [r.summary() for r in prs]) for case, prs in tasks]
    for name, summaries in rows:
        by = {s.peer: s for s in summaries}
        reference = by.get(TRACIK)
        cells = []
        for peer in names:
            s = by.get(peer)
            if s is None:
                cells.append("not expressible")
            elif s.unavailable:
                expressible = not s.unavailable.startswith("not expressible")
                cells.append("unavailable" if expressible else "not expressible")
            elif not s.attempted:
                cells.append("not run")
            else:
                capped = "" if s.attempted == s.planned or not s.planned else f" (n={s.attempted})"
                versus = _versus(s, reference)
                cpu = _versus(s, reference, "median_cpu_all")
                versus = "" if versus == "-" else f" · {versus} (CPU {cpu})"
                cells.append(f"{100 * s.rate:.1f}% · {ms(s.median_time_all)} ms{versus}{capped}")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return lines


def iteration_table(runs: list[CaseRun]) -> list[str]:
    """Median seconds per iteration against DOF, and the fitted exponent."""
    by_n = {run.case.spec.n: run for run in runs if run.case.name.startswith("chain-")}
    dofs = [n for n in ITERATION_DOFS if n in by_n]
    peers = [r.name for r in by_n[dofs[0]].runs] if dofs else []
    lines = ["| peer | " + " | ".join(f"n = {n}" for n in dofs) + " | fitted exponent |"]
    lines.append("|---|" + "---|" * (len(dofs) + 1))
    for peer in peers:
        per_iteration = []
        for n in dofs:
            run = next(r for r in by_n[n].runs if r.name == peer)
            values = [
                r.seconds / r.iterations
                for r in run.records
                if r.iterations and math.isfinite(r.seconds)
            ]
            per_iteration.append(float(np.median(values)) if values else math.nan)
        good = [(n, v) for n, v in zip(dofs, per_iteration, strict=True) if math.isfinite(v)]
        if len(good) < 2:
            continue
        slope = np.polyfit(np.log([n for n, _ in good]), np.log([v for _, v in good]), 1)[0]
        cells = [f"{1e6 * v:.3g} µs" if math.isfinite(v) else "-" for v in per_iteration]
        lines.append(f"| {peer} | " + " | ".join(cells) + f" | {slope:.2f} |")
    return lines


def tracking_table(tracks: list[TrackSummary]) -> list[str]:
    """Per-frame time, accuracy and joint-velocity spikes of every peer on every path."""
    lines = [
        "| path | peer | frames within 1e-5 | median ms/frame | p95 ms/frame | max ms/frame | "
        f"median error | max error | max abs dtheta (rad) | frames with dtheta > {SPIKE} |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for t in tracks:
        if t.unavailable:
            lines.append(f"| {t.path} | {t.peer} | {t.unavailable} | | | | | | | |")
            continue
        step = "n/a" if t.max_step is None else f"{t.max_step:.3g}"
        spikes = "n/a" if t.spikes is None else str(t.spikes)
        lines.append(
            f"| {t.path} | {t.peer} | {t.within}/{t.frames} | {ms(t.median_frame)} | "
            f"{ms(t.p95_frame)} | {ms(t.max_frame)} | {sci(t.median_error)} | "
            f"{sci(t.max_error)} | {step} | {spikes} |"
        )
    return lines


def _version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "(not installed)"


PROTOCOL = f"""\
Protocol (TRAC-IK's): for each chain, joint angles are sampled uniformly within the limits
from a fixed RNG seed; forward kinematics gives full-pose targets (tip position and
rotation); every peer solves every target from the same seed pose (the middle of each joint
range). Peers are alternated target by target (the order rotates by one each target) in one
process. A solve counts as **solved** when the tip is within {POSITION_TOLERANCE:g} m of the
target, its rotation within {ANGLE_TOLERANCE:g} rad of the target rotation (axis-angle), and no
joint exceeds a limit by more than {LIMIT_SLACK:g} rad. Grading uses the bench's own forward
kinematics (bench/serial.py: plain 4x4 products, checked against TRAC-IK's KDL and ikpy in
tests/test_bench_urdf.py) of each peer's joint angles, never a peer's own; Blender's rows
use its evaluated bone tip. Timeouts, errors and limit violations are failures, counted,
never dropped. Times are `time.perf_counter` around the solve call only (model building is
not timed); for Blender, the depsgraph evaluation. Time columns include failures. CPU
columns are the process CPU time of the same call (all threads: TRAC-IK runs two, Blender's
depsgraph may use more; scipy's with its stop-check callback's CPU time subtracted).

Peers: **Reach IK with its default options** (`solver.Solver(figure, [constraint])`, reused
and retargeted per solve; default orientation weight, tolerances, iteration limit, restarts
and time limit); **TRAC-IK** (pytracik {_version("pytracik")}, Speed mode, timeout
{RESTART_BUDGET:g} s, epsilon 1e-5/sqrt(3) per twist component so its own stop implies the
graded 1e-5 m); **scipy least_squares** (trf, with bounds; dogbox in tracking) on the
residual vector whose squared norm is Reach IK's objective, and **scipy SLSQP / L-BFGS-B**
on that objective and its analytic gradient, all three stopped by a callback at the graded
tolerance whose time is subtracted (so no peer is timed doing the bench's checking) and
otherwise by tight internal tolerances; **ikpy** `Chain.inverse_kinematics` (least_squares,
`tol=1e-12`, orientation mode "all") on the chain's URDF; **Blender's Standard IK and
iTaSC** through bpy on an equivalent bone chain (robots: bones at the URDF joint frames, IK
limits clamped to Blender's [-pi, pi]), at their tightest settings (10000 / 1000 iterations,
iTaSC precision 1e-6); bpy's float32 pose limits their accuracy to about 1e-7.
A second Reach IK row, **Reach IK, tolerance 1e-5**, is the same solver with `tolerance`
set to the graded 1e-5 m (every other option default). Reach IK's default distance
tolerance is relative to the chain's reach (1e-6 of it at the measured commit, 1.26e-6 m on
the iiwa): tighter than the grade, so the second row stops earlier and is a little faster.

Restarts: TRAC-IK and Reach IK restart by themselves ("own"). scipy and ikpy have no
restarts, so the bench gives them TRAC-IK's: after the first try from the seed it restarts
them from uniform random in-limit starts until a try is within tolerance (checked outside
the timed region) or their summed solve time passes {RESTART_BUDGET:g} s ("bench").
"solved, first try" is the single-start result; "solved", the time and residual columns
are with those restarts. For Reach IK a first try counts as solved when the solver did not
restart (its first run met the goal by its own test; `IKResult.restarts` is 0); TRAC-IK's
restarts are not visible from outside, so its first-try column repeats its final result.
Blender's IK has no restart: single start only.

Caps: slow peers get fewer targets (ikpy 50, 20 from 30 DOF, 10 at 100 DOF; scipy and
Blender 30 at 100 DOF), every peer stops after a per-case time budget (shown as
attempted/planned with the reason in the note column), and one solve over
{SOLVE_TIMEOUT:g} s is a timeout.

Chains: `iiwa7` (KUKA LBR iiwa 7 R800, 7 DOF) and `xarm6` (UFACTORY xArm 6, 6 DOF), read by
bench/urdf.py from the URDF files that the `pybullet` wheel ships in `pybullet_data`;
`arm-7` a 7-DOF twist/pitch arm (1.1 units) and `chain-n` X/Z chains of n links
(lengths varying up to 3x, summing to 1 unit; asymmetric limits), all full-pose goals.
Geometry: bench/chains.py, bench/robots.py.
"""


def write_results(run: BenchRun, path: Path) -> None:
    """Write the whole report to ``path`` (Markdown)."""
    from bench.tasks import TaskCase  # noqa: F401  (documented input type)

    out = [
        "# Reach IK: how it compares",
        "",
        f"- Machine: {run.machine}",
        f"- Versions: {run.versions}",
        f"- Date: {run.started.astimezone().strftime('%Y-%m-%d %H:%M %Z')}; "
        f"command `{run.command}`; whole run {run.seconds / 60:.1f} min",
        "",
        PROTOCOL,
        "## Headline: solve rate · median wall time (ms, all runs) · "
        "ratio to TRAC-IK (wall, and CPU)",
        "",
        *headline(run.chains, run.tasks),
        "",
        "## Acceptance targets",
        "",
        "| target | measured | status |",
        "|---|---|---|",
        *[f"| {c.target} | {c.measured} | {c.status} |" for c in run.checks],
        "",
    ]
    if run.notes:
        out += ["## Analysis", "", run.notes.strip(), ""]
    out += ["## Chains, per case", ""]
    for case_run in run.chains:
        chain = case_run.case.chain
        goal = "position+orientation" if case_run.case.orientation else "position"
        source = f" From {case_run.case.source}." if case_run.case.source else ""
        restarts = {r.name: r.restarts for r in case_run.runs}
        out += [
            f"### {case_run.case.name} ({chain.n} DOF, {goal}, {case_run.case.count} targets)",
            "",
            *([source.strip(), ""] if source else []),
            *case_table(case_run.summaries(), case_run.case.orientation, restarts),
            "",
        ]
    out += [
        "## Per-iteration cost against DOF (median seconds per iteration, chain cases)",
        "",
        "The paper's claim for the active-set BFGS is O(n^2) per iteration; the exponent is "
        "the slope of log(time per iteration) against log(n).",
        "",
        *iteration_table(run.chains),
        "",
        "## Human figure (examples/human.py)",
        "",
    ]
    for case, peer_runs in run.tasks:
        out += [
            f"### {case.name}",
            "",
            case.description + ". TRAC-IK, Blender's IK and ikpy cannot express this task "
            "(several end-effectors with plane/line/aim goals in one solve). The scipy "
            "peers get one start (no restarts) and the joint limits as bounds. Graded by "
            "bench/tree_fk.py, a forward kinematics written apart from the solver's: every "
            "constraint within 1e-5 m and every direction within 1e-3 rad.",
            "",
            *case_table(
                [r.summary() for r in peer_runs], True, {r.name: r.restarts for r in peer_runs}
            ),
            "",
        ]
    if not run.tasks:
        out += ["Not run (see the log).", ""]
    out += [
        "The Rigify human metarig through the Blender bridge is not measured here: these "
        "cases use the procedural human figure of examples/human.py.",
        "",
        "## Tracking (7-DOF arm, position goal, warm-started)",
        "",
        *tracking_table(run.tracks),
        "",
        "## Plots",
        "",
    ]
    out += [f"![{title}]({name})" for name, title in run.plots]
    out += [""]
    out += [
        "## Objective + gradient against a minimal kinematics sketch "
        "(`python -m bench.eval_speed`)",
        "",
    ]
    out += ["```", (run.eval_speed or "not run").rstrip(), "```", ""]
    if run.profiles:
        out += ["## Profiles (pyinstrument, Reach IK)", ""]
        for title, text in run.profiles.items():
            out += [f"### {title}", "", "```", text.rstrip(), "```", ""]
    out += [f"{kept}\n" for kept in marked_sections(path)]  # live update, methods
    path.write_text("\n".join(out) + "\n")


def readme_section(run: BenchRun, image_prefix: str = "bench/") -> str:
    """The README's "How it compares" section: headline table, checks summary, one plot."""
    met = sum(c.status == "met" for c in run.checks)
    missed = [c for c in run.checks if c.status == "MISSED"]
    out = [
        "## How it compares",
        "",
        "Every case is solved by every peer on the same targets in one run (`make bench`), "
        "with TRAC-IK's protocol: random joint configurations within the limits give "
        "full-pose targets, each solved from the mid-range pose; solved = within 1e-5 m and "
        "1e-3 rad by the bench's own forward kinematics, inside the joint limits. Reach IK "
        "runs with its default options. Cells: solve rate (with restarts where the peer has "
        "them or the bench gives them), median wall time per solve (ms), and that time as a "
        "multiple of TRAC-IK's in the same run (in brackets: the same ratio of CPU times, "
        "which the machine's other load distorts less; TRAC-IK's CPU time counts both of its "
        "racing threads). Peers: TRAC-IK (C++) via pytracik, "
        "scipy's least_squares, SLSQP and L-BFGS-B on Reach IK's own residuals/objective, "
        "ikpy, and Blender's own IK (Standard, iTaSC) through bpy. Robots: KUKA iiwa 7 and "
        "xArm 6 from the URDFs in `pybullet_data`.",
        "",
        f"Machine: {run.machine}; {run.started.astimezone().strftime('%Y-%m-%d')}.",
        "",
        *headline(run.chains, run.tasks),
        "",
        f"![Median solve time against DOF]({image_prefix}time_vs_dof.png)",
        "",
        f"Acceptance targets: {met} met, {len(missed)} missed, "
        f"{sum(c.status == 'n/a' for c in run.checks)} not applicable. Full tables, "
        "tracking, per-iteration cost, profiles and the analysis of every miss (where Reach "
        f"IK loses, and why): [{image_prefix}RESULTS.md]({image_prefix}RESULTS.md). "
        f"Blender's own bake against ours (`make bench-blender`): "
        f"[{image_prefix}BLENDER_RESULTS.md]({image_prefix}BLENDER_RESULTS.md).",
        "",
    ]
    return "\n".join(out)


def write_readme_section(run: BenchRun, readme: Path) -> None:
    """Replace the "## How it compares" section of ``readme`` (up to the next "## ")."""
    text = readme.read_text()
    start = text.index("## How it compares\n")
    end = text.find("\n## ", start + 1)
    end = len(text) if end < 0 else end + 1
    readme.write_text(text[:start] + readme_section(run) + "\n" + text[end:])
