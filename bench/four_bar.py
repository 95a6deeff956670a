"""A four-bar linkage driven through revolutions: per-step solve time, default against Newton.

``python -m bench.four_bar`` runs only this section and writes it into ``bench/RESULTS.md``
between its markers; ``python -m bench`` runs it after the methods section. The linkage is
the test fixture :mod:`bench.linkage` (a Grashof crank-rocker: crank 0.4, coupler 1.2,
rocker 1.0, base 1.2 scene units; size 1.2) with the crank held (rigidity 1: a driven
input), closed either by pinning the open chain's end to the base (``ground``) or by
holding the coupler's end on the rocker's hinge (``rocker``, both sides of the loop
moving). The crank turns by 1 degree a step, each solve warm-started from the previous
step's answer, tolerance ``1e-6`` of the size, the solver's other options at their
defaults; the default method (``"gauss-newton-hybrid"``) and ``"newton"`` alternate
revolution by revolution.

Columns: median and p95 wall time of ``Solver.solve`` per step (``time.perf_counter``
around the call only; the machine's load is in it) and of the process CPU time of the same
call (``time.process_time``: less of the load, none of the waiting), median and largest
iterations, the
largest closure residual over every step (distance of the loop's open end from its hinge
axis, as a share of the size), the largest joint change of a step as a share of the crank
step times the closed form's largest transmission ratio (at most 1 means no step left the
branch), and the largest distance from the closed-form pose on the starting branch.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import numpy as np

from bench.linkage import FourBar, four_bar, transmission
from bench.report import machine_line, versions_line
from bench.sections import write_section
from solver import Solver

HERE = Path(__file__).resolve().parent
SECTION = "four-bar"
"""Marker name of this section in RESULTS.md."""
METHODS = ("gauss-newton-hybrid", "newton")
CLOSURES = ("ground", "rocker")
STEPS = 360
"""Crank steps per revolution."""


@dataclass
class Row:
    """The steps of one linkage and method over every revolution."""

    closure: str
    method: str
    seconds: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)  # process CPU time of the same calls
    iterations: list[int] = field(default_factory=list)
    closure_max: float = 0.0  # share of the size
    step_share: float = 0.0  # largest joint change / (crank step x transmission)
    off_branch: float = 0.0  # radians from the closed form
    failed: int = 0  # steps without success


def _wrapped(difference: np.ndarray) -> np.ndarray:
    return np.angle(np.exp(1j * difference))


def revolution(linkage: FourBar, solver: Solver, ratio: float, row: Row) -> None:
    """One revolution of ``linkage`` by ``solver``, recorded into ``row``."""
    step = 2.0 * math.pi / STEPS
    q = linkage.coords(0.0)
    for k in range(1, STEPS + 1):
        start = q.copy()
        start[0] = k * step
        clock, cpu = time.perf_counter(), time.process_time()
        result = solver.solve(start)
        row.seconds.append(time.perf_counter() - clock)
        row.cpu.append(time.process_time() - cpu)
        row.iterations.append(result.nit)
        row.failed += not result.success
        row.closure_max = max(row.closure_max, linkage.closure_residual(result.x) / linkage.size)
        change = float(np.abs(_wrapped(result.x - q)).max())
        row.step_share = max(row.step_share, change / (step * ratio))
        exact = linkage.coords(k * step)
        row.off_branch = max(row.off_branch, float(np.abs(_wrapped(result.x - exact)).max()))
        q = result.x


def run(revolutions: int = 5, log=print) -> list[Row]:
    """Every closure and method, the methods alternating revolution by revolution."""
    rows = []
    for closure in CLOSURES:
        linkage = four_bar(closure=closure, crank_rigidity=1.0)
        ratio = transmission(linkage)
        solvers = {
            m: Solver(linkage.figure, [linkage.closure], method=m, tolerance=1e-6 * linkage.size)
            for m in METHODS
        }
        by_method = {m: Row(closure, m) for m in METHODS}
        for _ in range(revolutions):
            for m in METHODS:
                revolution(linkage, solvers[m], ratio, by_method[m])
        log(f"four-bar {closure}: done")
        rows += by_method.values()
    return rows


def section(rows: list[Row], command: str, started: datetime) -> str:
    """The markdown of this section."""
    lines = [
        "## Four-bar linkage: a driven revolution (`python -m bench.four_bar`)",
        "",
        f"Written by `{command}` on {started:%Y-%m-%d %H:%M}; {machine_line()}.",
        f"Versions: {versions_line()}. Grashof crank-rocker (0.4, 1.2, 1.0, base 1.2), crank "
        f"held and turned {360 // STEPS} degree a step, {len(rows[0].seconds) // STEPS} "
        "revolutions per row, warm-started; tolerance 1e-6 of the size.",
        "",
        "| closure | method | steps solved | ms per step: median (p95) | CPU ms per step: "
        "median (p95) | iterations: median (max) | closure max / size "
        "| largest step / (crank step x transmission) | off the closed form (rad) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        t, c = np.array(r.seconds) * 1e3, np.array(r.cpu) * 1e3
        lines.append(
            f"| {r.closure} | {r.method} | {len(t) - r.failed}/{len(t)} "
            f"| {np.median(t):.3g} ({np.quantile(t, 0.95):.3g}) "
            f"| {np.median(c):.3g} ({np.quantile(c, 0.95):.3g}) "
            f"| {np.median(r.iterations):.0f} ({max(r.iterations)}) | {r.closure_max:.1e} "
            f"| {r.step_share:.5f} | {r.off_branch:.1e} |"
        )
    return "\n".join(lines)


def write(rows: list[Row], results: Path, command: str, started: datetime) -> None:
    """Put this section into ``results`` (RESULTS.md), replacing an earlier one."""
    write_section(results, SECTION, section(rows, command, started))


def main(argv: list[str] | None = None) -> int:
    """Run the section and write it into bench/RESULTS.md (or ``--out``)."""
    parser = argparse.ArgumentParser(prog="python -m bench.four_bar", description=__doc__)
    parser.add_argument("--revolutions", type=int, default=5, help="revolutions per row")
    parser.add_argument("--out", type=Path, default=HERE, help="folder holding RESULTS.md")
    args = parser.parse_args(argv)
    given = sys.argv[1:] if argv is None else argv
    command = " ".join(["python -m bench.four_bar", *given])
    started = datetime.now()
    rows = run(args.revolutions)
    args.out.mkdir(parents=True, exist_ok=True)
    write(rows, args.out / "RESULTS.md", command, started)
    print(section(rows, command, started))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
