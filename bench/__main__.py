"""``python -m bench`` (``make bench``): every case against every peer, then RESULTS.md + PNGs.

``--quick`` is a reduced run (fewer targets and frames) for trying changes; the committed
RESULTS.md comes from a full run.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
import traceback
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from bench import four_bar, methods, plots
from bench.acceptance import chain_checks, solver_checks
from bench.cases import CHAIN_DOFS, SOLVE_TIMEOUT, chain_cases, peers
from bench.harness import run_case
from bench.report import (
    SAVED,
    BenchRun,
    load_run,
    readme_section,
    save_run,
    write_readme_section,
    write_results,
)
from bench.tracking import FRAMES, run_tracking

HERE = Path(__file__).resolve().parent


def log(message: str) -> None:
    """Progress to stdout, flushed (the full run takes minutes)."""
    print(message, flush=True)


def run_tasks(count: int, only: set[str] | None):
    """The human-figure cases, or an empty list (with the reason logged) if unavailable."""
    try:
        from bench.human_cases import human_cases
        from bench.peers.scipy_peer import METHODS
        from bench.tasks import ReachTask, ScipyTask, run_task_case

        cases = human_cases(count)
    except Exception as error:
        log(f"human cases unavailable: {type(error).__name__}: {error}")
        return []
    out = []
    for case in cases:
        if only and case.name not in only:
            continue
        log(f"{case.name}: {case.count} samples")
        task_peers = [ReachTask()] + [ScipyTask(m) for m in METHODS]
        out.append((case, run_task_case(case, task_peers, log=log)))
    return out


def run_profiles(chains, tasks) -> dict[str, str]:
    """pyinstrument trees of Reach IK on the speed-critical cases."""
    from bench.peers.reach import ReachChain
    from bench.profiling import profile
    from bench.tasks import ReachTask

    out = {}
    for run in chains:
        if run.case.name not in ("iiwa7 pose", "arm-7 pose", "chain-30 pose"):
            continue
        targets = run.case.targets()
        peer = ReachChain(run.case.chain, run.case.orientation)
        k = 20 if run.case.chain.n < 100 else 3

        def work(peer=peer, targets=targets, k=k, orientation=run.case.orientation):
            for i in range(k):
                peer.solve(targets.positions[i], targets.rotations[i] if orientation else None)

        out[f"{run.case.name}: {k} solves"] = profile(work)
    for case, _ in tasks:
        if case.name == "tube-22":
            reach = ReachTask()

            def tube(reach=reach, case=case):
                for i in range(5):
                    reach.solve(case.make(i), i)

            out["tube-22: 5 solves"] = profile(tube)
    return out


def run_module(name: str) -> subprocess.CompletedProcess[str]:
    """``python -m name`` from the repository root, output captured (15 min at most)."""
    return subprocess.run(
        [sys.executable, "-m", name],
        capture_output=True,
        text=True,
        check=False,
        cwd=HERE.parent,
        timeout=900,
    )


def run_eval_speed(log: Callable[[str], None]) -> str:
    """Output of ``python -m bench.eval_speed`` (objective + gradient against a minimal
    batched-numpy kinematics sketch), or why it did not run."""
    if not (HERE / "eval_speed.py").exists():
        return "bench/eval_speed.py is not on this branch: not run."
    log("eval_speed")
    done = run_module("bench.eval_speed")
    text = done.stdout.strip()
    if done.returncode:
        text += f"\n(exit status {done.returncode})\n{done.stderr.strip()[-2000:]}"
    return text


def run_batch(log: Callable[[str], None]) -> None:
    """``python -m bench.batch`` (the batched solver against TRAC-IK and a loop of single
    solves; it writes its own section of RESULTS.md); its failure is logged, not raised."""
    log("batch")
    done = run_module("bench.batch")
    if done.returncode:
        log(f"batch failed ({done.returncode}): {done.stderr.strip()[-2000:]}")


def run_live_update(log: Callable[[str], None]) -> None:
    """``python -m bench.live_update`` in its own Blender (it adds its section to RESULTS.md
    after the report is written); its failure is logged, not raised."""
    log("live_update")
    done = run_module("bench.live_update")
    if done.returncode:
        log(f"live_update failed ({done.returncode}): {done.stderr.strip()[-2000:]}")


def main(argv: list[str] | None = None) -> int:
    """Run the bench and write bench/RESULTS.md and the plots; returns 0."""
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="reduced run: fewer targets")
    parser.add_argument("--count", type=int, default=None, help="targets per chain case")
    parser.add_argument("--no-blender", action="store_true", help="leave out the bpy peers")
    parser.add_argument("--only", default="", help="comma-separated case names to run")
    parser.add_argument("--out", type=Path, default=HERE, help="folder for RESULTS.md and PNGs")
    parser.add_argument("--budget", type=float, default=25.0, help="seconds per peer per case")
    parser.add_argument("--no-eval-speed", action="store_true", help="skip bench.eval_speed")
    parser.add_argument(
        "--no-methods", action="store_true", help="skip bench.methods (every solve method)"
    )
    parser.add_argument("--no-batch", action="store_true", help="skip bench.batch")
    parser.add_argument(
        "--rewrite", action="store_true", help="re-render the last saved run with NOTES.md"
    )
    args = parser.parse_args(argv)
    if args.rewrite:
        return rewrite(args.out)

    started, clock = datetime.now(), time.perf_counter()
    count = args.count or (20 if args.quick else 100)
    only = {s.strip() for s in args.only.split(",") if s.strip()} or None
    peer_defs = peers(blender=not args.no_blender)
    log(f"Reach IK bench: {count} targets per chain case, peers: {[p.name for p in peer_defs]}")

    chains = []
    for case in chain_cases(count, CHAIN_DOFS):
        if only and case.name not in only:
            continue
        log(f"{case.name}: {case.chain.n} DOF, {'pose' if case.orientation else 'position'}")
        chains.append(run_case(case, peer_defs, budget=args.budget, log=log, timeout=SOLVE_TIMEOUT))

    tasks = run_tasks(5 if args.quick else 20, only)
    tracks = (
        []
        if only and "tracking" not in only
        else run_tracking(peer_defs, frames=60 if args.quick else FRAMES, log=log)
    )
    try:
        profiles = run_profiles(chains, tasks)
    except Exception:
        profiles = {"profiling failed": traceback.format_exc()}

    eval_speed = "" if args.no_eval_speed else run_eval_speed(log)
    checks = chain_checks(chains) + solver_checks(tracks)
    args.out.mkdir(parents=True, exist_ok=True)
    pictures = []
    if chains:
        plots.time_vs_dof(chains, args.out / "time_vs_dof.png")
        pictures.append(("time_vs_dof.png", "Median solve time against DOF"))
        rate_cases = tuple(c.case.name for c in chains)
        plots.rate_vs_tolerance(chains, args.out / "solve_rate_vs_tolerance.png", rate_cases)
        pictures.append(("solve_rate_vs_tolerance.png", "Solve rate against tolerance"))
        plots.residuals(chains, args.out / "residuals.png")
        pictures.append(("residuals.png", "Residual distributions"))
    if tracks:
        plots.tracking(tracks, args.out / "tracking_circle.png")
        pictures.append(("tracking_circle.png", "Per-frame time, circle tracking"))
    notes_path = HERE / "NOTES.md"
    given = sys.argv[1:] if argv is None else argv
    command = "python -m bench " + " ".join(given) if given else "make bench"
    bench_run = BenchRun(
        chains=chains,
        tasks=tasks,
        tracks=tracks,
        checks=checks,
        profiles=profiles,
        started=started,
        seconds=time.perf_counter() - clock,
        command=command,
        plots=pictures,
        notes=notes_path.read_text() if notes_path.exists() else "",
        eval_speed=eval_speed,
    )
    save_run(bench_run, args.out / SAVED)
    write_reports(bench_run, args.out)
    if not args.no_methods:
        frames = 60 if args.quick else FRAMES
        methods.write(
            methods.run_methods(count, frames, args.budget, only, log=log, command=command),
            args.out / "RESULTS.md",
        )
    if not only or "four-bar" in only:
        four_bar.write(four_bar.run(log=log), args.out / "RESULTS.md", command, started)
    if not args.no_batch and args.out == HERE:
        run_batch(log)
    if not args.no_blender and args.out == HERE:
        run_live_update(log)
    log(f"wrote {args.out / 'RESULTS.md'} in {(time.perf_counter() - clock) / 60:.1f} min")
    for c in checks:
        log(f"  [{c.status}] {c.target}: {c.measured}")
    return 0


def write_reports(bench_run: BenchRun, out: Path) -> None:
    """RESULTS.md in ``out``; the README's section in place when ``out`` is bench/ itself."""
    write_results(bench_run, out / "RESULTS.md")
    if out == HERE:
        write_readme_section(bench_run, HERE.parent / "README.md")
    else:
        (out / "README_section.md").write_text(readme_section(bench_run))


def rewrite(out: Path) -> int:
    """Re-render the reports of the run saved in ``out`` with the current NOTES.md (the
    acceptance checks are recomputed from its records)."""
    bench_run = load_run(out / SAVED)
    notes_path = HERE / "NOTES.md"
    bench_run.notes = notes_path.read_text() if notes_path.exists() else ""
    bench_run.checks = chain_checks(bench_run.chains) + solver_checks(bench_run.tracks)
    write_reports(bench_run, out)
    log(f"rewrote {out / 'RESULTS.md'} from {out / SAVED}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
