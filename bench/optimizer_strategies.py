"""The optimiser's two Hessian strategies side by side, and its cost per iteration vs n.

``python -m bench.optimizer_strategies [--quick]`` writes ``bench/OPTIMIZER_SCALING.md``:

1. Solve rate, iterations and evaluations of ``method="bfgs"`` (the Appendix as
   written) and ``method="gauss-newton-hybrid"`` on the benchmark's chains
   (position goals) and the 7-DOF arm (full pose), TRAC-IK's protocol: targets from
   random in-limit angles, each solved once from the mid-range pose, no restarts.
2. Time per iteration at n = 10, 30, 100, 300 links, split into the objective +
   gradient evaluations and the optimiser's own work (everything else: ``H``
   updates, active set, step cap).

Times are wall-clock medians on this machine; they are measurements, not targets.
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import numpy as np

import solver
from bench.chains import arm7, serial_chain, to_serial
from bench.figures import chain_figure, chain_tip, set_goal, tip_goal
from bench.serial import SerialChain, sample_targets
from solver.assembly.scale import ScaledProblem
from solver.optimizer import HESSIANS, make_strategy, minimize

HERE = Path(__file__).resolve().parent
TOLERANCE = 1e-5
"""Scene units: a target counts as reached within this distance."""
ANGLE_TOLERANCE = 0.01
"""Degrees: an orientation direction counts as reached within this angle."""
MAX_ITERATIONS = 1000


@dataclass
class Run:
    """One strategy on one case: per-target outcomes."""

    solved: list[bool]
    nit: list[int]
    nfev: list[int]
    seconds: list[float]

    def row(self) -> str:
        rate = 100.0 * float(np.mean(self.solved))
        return (
            f"{rate:.0f}% | {np.median(self.nit):.0f} | {np.mean(self.nit):.1f} | "
            f"{np.median(self.nfev):.0f} | {1e3 * np.median(self.seconds):.2f} ms"
        )


def _solver(
    chain: SerialChain, orientation: bool, hessian: str, max_iterations: int, **options: object
):
    """A Solver on ``chain``'s tip, its goal (to retarget) and the mid-range start coordinates.

    ``options``: further keyword options of :class:`solver.Solver` (e.g. ``step_limit``).
    """
    figure = chain_figure(chain)
    goal = tip_goal(np.zeros(3), np.eye(3) if orientation else None)
    constraint = solver.Constraint(chain_tip(chain, orientation), goal, name="tip")
    s = solver.Solver(
        figure,
        [constraint],
        tolerance=TOLERANCE,
        angle_tolerance=ANGLE_TOLERANCE,
        max_iterations=max_iterations,
        method=hessian,
        restarts=0,  # one optimiser run per target: the strategies, not the search
        time_limit=None,
        **options,  # type: ignore[arg-type]
    )
    mid = dict(zip(chain.joints, chain.mid_range(), strict=True))
    start = np.array([mid[name] for name in figure.coordinate_names], dtype=float)
    return s, goal, start


def run_case(
    chain: SerialChain, orientation: bool, hessian: str, count: int, **options: object
) -> Run:
    """Solve ``count`` sampled targets of ``chain`` with one method (``hessian``) and
    ``options`` (further :class:`solver.Solver` keywords)."""
    s, goal, start = _solver(chain, orientation, hessian, MAX_ITERATIONS, **options)
    targets = sample_targets(chain, count)
    run = Run([], [], [], [])
    for k in range(len(targets)):
        set_goal(goal, targets.positions[k], targets.rotations[k] if orientation else None)
        clock = time.perf_counter()
        result = s.solve(initial=start)
        run.seconds.append(time.perf_counter() - clock)
        run.solved.append(all(r.satisfied for r in result.residuals))
        run.nit.append(result.nit)
        run.nfev.append(result.nfev)
    return run


def per_iteration(n: int, hessian: str, count: int, repeats: int = 3) -> tuple[float, float, float]:
    """(total, evaluation, optimiser) milliseconds per iteration on an n-link chain.

    Runs :func:`solver.optimizer.minimize` on the scaled problem, as
    :meth:`solver.Solver.solve` does, with the objective wrapped in a timer, so
    the optimiser's share is the run's time minus its evaluations'.
    Each target is solved ``repeats`` times and the fastest run kept (the usual
    guard against other processes on the machine).
    """
    chain = to_serial(serial_chain(n))
    s, goal, start = _solver(chain, False, hessian, 60)
    strategy = make_strategy(hessian)
    targets = sample_targets(chain, count)
    total_time = evaluation_time = 0.0
    iterations = 0
    for k in range(len(targets)):
        set_goal(goal, targets.positions[k], None)
        problem = s.problem
        problem.rebase(start)
        scaled = ScaledProblem(problem, s.length)  # what Solver.solve hands the optimiser
        z0 = scaled.from_y(problem.from_coordinates(start))
        runs = [_timed_run(scaled, z0, strategy) for _ in range(repeats)]
        total, spent, nit = min(runs)
        total_time += total
        evaluation_time += spent
        iterations += nit
    per = 1e3 / max(iterations, 1)
    return per * total_time, per * evaluation_time, per * (total_time - evaluation_time)


def _timed_run(problem, y0: np.ndarray, strategy) -> tuple[float, float, int]:
    """(seconds in all, seconds in evaluations, iterations) of one ``minimize`` run."""
    spent = 0.0

    def timed(y: np.ndarray):
        nonlocal spent
        clock = time.perf_counter()
        e = problem.evaluate(y)
        _ = e.reached  # asked for on every pass; counted with the evaluation
        spent += time.perf_counter() - clock
        return e

    clock = time.perf_counter()
    outcome = minimize(timed, y0, problem.system, strategy, max_iterations=60)
    return time.perf_counter() - clock, spent, outcome.nit


def target_count(description: str) -> int:
    """Targets per case from the command line: 100, or 20 with ``--quick``."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--quick", action="store_true", help="fewer targets")
    return 20 if parser.parse_args().quick else 100


def header(title: str, module: str, count: int) -> list[str]:
    """The title and protocol paragraph of a report made of :func:`run_case` runs."""
    return [
        f"# {title}",
        "",
        f"Written by `python -m {module}` on {datetime.now():%Y-%m-%d}; "
        f"{platform.processor() or platform.machine()}, Python {platform.python_version()}, "
        f"numpy {np.__version__}. {count} targets per case from random in-limit angles, "
        "each solved once from the mid-range pose, no restarts, no time limit, iteration "
        f"limit {MAX_ITERATIONS}; solved = within {TOLERANCE} units and {ANGLE_TOLERANCE} "
        f"degrees. Load average at the start: {os.getloadavg()[0]:.1f} on "
        f"{os.cpu_count()} cores (times from a loaded machine are inflated; iteration "
        "counts are not).",
        "",
    ]


def method_rows(variants: Sequence[tuple[str, str, dict[str, object]]], count: int) -> list[str]:
    """A table of :func:`run_case` runs: its head, then a row per case and variant.

    ``variants`` are ``(row label, method, further Solver options)``; the cases are
    ``chain-3``, ``chain-7``, ``chain-10`` (position goal) and the 7-DOF arm (full pose).
    Each row is printed as soon as it is measured.
    """
    lines = [
        "| case | method | solved | median nit | mean nit | median nfev | median time |",
        "|---|---|---|---|---|---|---|",
    ]
    cases = [(f"chain-{n}", to_serial(serial_chain(n)), False) for n in (3, 7, 10)]
    cases.append(("arm-7 pose", to_serial(arm7()), True))
    for name, chain, orientation in cases:
        for label, method, options in variants:
            run = run_case(chain, orientation, method, count, **options)
            lines.append(f"| {name} | {label} | {run.row()} |")
            print(lines[-1], flush=True)
    return lines


def main() -> None:
    count = target_count(__doc__.splitlines()[0])
    lines = [
        *header(
            "Optimiser: Hessian strategies and cost per iteration",
            "bench.optimizer_strategies",
            count,
        ),
        "## Strategies",
        "",
        "| case | hessian | solved | median nit | mean nit | median nfev | median time |",
        "|---|---|---|---|---|---|---|",
    ]
    cases = [(f"chain-{n}", to_serial(serial_chain(n)), False) for n in (3, 7, 10, 30)]
    cases.append(("arm-7 pose", to_serial(arm7()), True))
    for name, chain, orientation in cases:
        for hessian in HESSIANS:
            run = run_case(chain, orientation, hessian, count)
            lines.append(f"| {name} | {hessian} | {run.row()} |")
            print(lines[-1], flush=True)
    lines += [
        "",
        "## Time per iteration",
        "",
        "Position goal on `serial_chain(n)`, iteration limit 60, `minimize` called "
        "directly with a timer around the objective: summed time over all targets "
        "divided by summed iterations (fastest of 3 runs per target), split into "
        "objective + gradient evaluations "
        "(line-search evaluations included) and the optimiser's own work (the rest: "
        "H updates, active set, step cap); milliseconds.",
        "",
        "| n | hessian | total / iteration | evaluations / iteration | optimiser / iteration |",
        "|---|---|---|---|---|",
    ]
    for n in (10, 30, 100, 300):
        for hessian in HESSIANS:
            total, ev, rest = per_iteration(n, hessian, max(10, count // 2))
            lines.append(f"| {n} | {hessian} | {total:.3f} | {ev:.3f} | {rest:.3f} |")
            print(lines[-1], flush=True)
    (HERE / "OPTIMIZER_SCALING.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
