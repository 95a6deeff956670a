"""Unreachable goals against reachable ones: the restarts' stop on agreement (issue 24).

``python -m bench.restart_agreement`` runs only this section and writes it into
``bench/RESULTS.md`` between its markers. On two 7-DOF figures -- issue 24's arm (seven
0.15 links turning alternately about the link and across it within +-2.5 rad, a 0.1 tool;
reach 1.15) and the KUKA iiwa 7 of the main bench -- and for position goals and full-pose
goals, three solves alternate target by target, each from the mid-range pose:

- reachable targets (forward kinematics of joint values uniform within the limits, as in
  the main bench), default options;
- unreachable targets (a direction uniform on the sphere, 1.2-2x the reach from the first
  joint; for full poses a uniformly random orientation too), default options;
- the same unreachable targets with the search as it was before the stop on agreement:
  every one of the default 100 restarts runs (``solver.search.restarts.AGREEING`` raised above
  them) and no time limit, "today's 100-restart answer".

Columns: the time of ``Solver.solve`` (median, p95; wall clock, so the machine's load is in
it), the unreachable median as a multiple of the reachable one, restarts and iterations,
and how often the answer has the same objective as the 100-restart one (relative 1e-6),
listing the rest. A last table solves the main bench's robot cases (same targets, same
grading: 1e-5 m and 1e-3 rad within the limits) with the default options: their solve
rates must stay at 100 %.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import numpy as np

from bench.cases import chain_cases
from bench.chains import ChainSpec, to_serial
from bench.metrics import grade
from bench.peers.base import Attempt
from bench.peers.reach import ReachModel
from bench.report import machine_line, versions_line
from bench.robots import robot_chain
from bench.sections import command_line, publish
from bench.serial import SerialChain, sample_targets
from solver.options import DEFAULT_RESTARTS
from solver.search import restarts

HERE = Path(__file__).resolve().parent
SECTION = "restart-agreement"
"""Marker name of this section in RESULTS.md."""
SAME = 1e-6
"""Relative objective difference within which two answers count as the same."""
ROBOT_CASES = ("iiwa7 pose", "xarm6 pose", "arm-7 pose")


def issue_arm() -> SerialChain:
    """Issue 24's arm: twist/pitch joints within +-2.5 rad, six 0.15 links, 0.25 to the tool."""
    axes = ("Y", "X", "Y", "X", "Y", "X", "Y")
    spec = ChainSpec(axes, (0.15,) * 6 + (0.25,), (-2.5,) * 7, (2.5,) * 7)
    return to_serial(spec, "arm-7 (issue 24)")


def reach_of(chain: SerialChain) -> float:
    """Sum of the offsets from the first joint to the tool: no pose reaches farther."""
    offsets = [np.linalg.norm(o[:3, 3]) for o in chain.origins[1:]]
    return float(sum(offsets) + np.linalg.norm(chain.tip[:3, 3]))


def random_rotation(rng: np.random.Generator) -> np.ndarray:
    """(3, 3) a rotation uniform over SO(3) (from a uniform unit quaternion)."""
    q = rng.normal(size=4)
    x, y, z, w = q / np.linalg.norm(q)
    return np.array(
        [
            [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
            [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
            [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
        ]
    )


def unreachable(chain: SerialChain, count: int, seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """``count`` targets (position (3,), rotation (3, 3)) 1.2-2x the reach from joint 0."""
    rng = np.random.default_rng([seed, chain.n])
    origin, reach = chain.origins[0][:3, 3], reach_of(chain)
    out = []
    for _ in range(count):
        direction = rng.normal(size=3)
        direction /= np.linalg.norm(direction)
        out.append((origin + direction * reach * rng.uniform(1.2, 2.0), random_rotation(rng)))
    return out


@contextmanager
def full_search() -> Iterator[None]:
    """The search before the stop on agreement: every restart runs."""
    saved = restarts.AGREEING
    restarts.AGREEING = DEFAULT_RESTARTS + 1
    try:
        yield
    finally:
        restarts.AGREEING = saved


@dataclass
class Solve:
    """One solve: wall seconds, objective, restarts, iterations, goal met."""

    seconds: float
    fun: float
    restarts: int
    nit: int
    success: bool


def timed(model: ReachModel, position: np.ndarray, rotation: np.ndarray) -> Solve:
    """Retarget ``model`` and solve from its mid-range seed; times ``Solver.solve`` only."""
    model.retarget(position, rotation)
    start = time.perf_counter()
    result = model.solver.solve(initial=model.seed)
    seconds = time.perf_counter() - start
    return Solve(seconds, result.fun, result.restarts, result.nit, result.success)


@dataclass
class Row:
    """One figure and goal kind."""

    figure: str
    goal: str
    reachable: list[Solve] = field(default_factory=list)
    default: list[Solve] = field(default_factory=list)
    full: list[Solve] = field(default_factory=list)

    def differing(self) -> list[tuple[int, float, float]]:
        """(target, objective, 100-restart objective) where the answers differ."""
        return [
            (i, d.fun, f.fun)
            for i, (d, f) in enumerate(zip(self.default, self.full, strict=True))
            if abs(d.fun - f.fun) > SAME * abs(f.fun)
        ]


def run_row(chain: SerialChain, orientation: bool, count: int, log=print) -> Row:
    """Reachable, unreachable and 100-restart solves of one figure, alternating by target."""
    row = Row(chain.name, "full pose" if orientation else "position")
    default, full = ReachModel(chain, orientation), ReachModel(chain, orientation, time_limit=None)
    reachable = sample_targets(chain, count, seed=2)
    for i, (position, rotation) in enumerate(unreachable(chain, count, seed=24)):
        row.reachable.append(timed(default, reachable.positions[i], reachable.rotations[i]))
        row.default.append(timed(default, position, rotation))
        with full_search():
            row.full.append(timed(full, position, rotation))
        if (i + 1) % 20 == 0:
            log(f"{row.figure}, {row.goal}: {i + 1}/{count}")
    return row


@dataclass
class RobotRate:
    """The main bench's robot case solved with the default options."""

    case: str
    solved: int
    count: int
    median: float


def robot_rates(count: int) -> list[RobotRate]:
    """Solve rates of Reach IK's default options on :data:`ROBOT_CASES` (bench grading)."""
    out = []
    for case in chain_cases(count, ()):
        if case.name not in ROBOT_CASES:
            continue
        model = ReachModel(case.chain, case.orientation)
        targets, solved, seconds = case.targets(), 0, []
        for i in range(len(targets)):
            s = timed(model, targets.positions[i], targets.rotations[i])
            angles = np.array(model.solver.last, dtype=float)
            record = grade(
                case.chain, Attempt(angles, s.seconds), i, targets.positions[i],
                targets.rotations[i] if case.orientation else None,
            )  # fmt: skip
            solved += record.outcome == "solved"
            seconds.append(s.seconds)
        out.append(RobotRate(case.name, solved, len(targets), float(np.median(seconds))))
    return out


def _ms(values: list[float], q: float) -> str:
    return f"{1e3 * float(np.quantile(values, q)):.3g}"


def section(rows: list[Row], rates: list[RobotRate], command: str, started: datetime) -> str:
    """The markdown of this section."""
    lines = [
        "## Unreachable goals: restarts stop when they agree (`python -m bench.restart_agreement`)",
        "",
        f"Written by `{command}` on {started:%Y-%m-%d %H:%M}; {machine_line()}.",
        f"Versions: {versions_line()}. Rule: `solver.search.restarts` (AGREEING = "
        f"{restarts.AGREEING}, AGREEMENT = {restarts.AGREEMENT:g}).",
        "",
        "| figure | goal | reachable: solved, median ms (p95) | unreachable: median ms (p95) "
        "| ratio | restarts: median (max) | iterations: median | same as 100 restarts "
        "| 100 restarts: median ms |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        solved = sum(s.success for s in r.reachable)
        reach_t = [s.seconds for s in r.reachable]
        t = [s.seconds for s in r.default]
        same = len(r.default) - len(r.differing())
        lines.append(
            f"| {r.figure} | {r.goal} | {solved}/{len(r.reachable)}, {_ms(reach_t, 0.5)} "
            f"({_ms(reach_t, 0.95)}) | {_ms(t, 0.5)} ({_ms(t, 0.95)}) "
            f"| {np.median(t) / np.median(reach_t):.1f}x "
            f"| {np.median([s.restarts for s in r.default]):.0f} "
            f"({max(s.restarts for s in r.default)}) "
            f"| {np.median([s.nit for s in r.default]):.0f} "
            f"| {same}/{len(r.default)} | {_ms([s.seconds for s in r.full], 0.5)} |"
        )
    lines += ["", "Answers whose objective differs from the 100-restart answer's:", ""]
    differing = [(r, d) for r in rows for d in r.differing()]
    if not differing:
        lines.append("none.")
    for r, (i, fun, full) in differing:
        lines.append(
            f"- {r.figure}, {r.goal}, target {i}: G = {fun:.6g} against {full:.6g} "
            f"({(fun - full) / abs(full):+.2%}), after {r.default[i].restarts} restarts"
        )
    lines += [
        "",
        "The main bench's robot cases with the default options (same targets and grading):",
        "",
        "| case | solved | median ms |",
        "|---|---|---|",
    ]
    lines += [f"| {r.case} | {r.solved}/{r.count} | {1e3 * r.median:.3g} |" for r in rates]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Run the section and write it into bench/RESULTS.md (or ``--out``)."""
    parser = argparse.ArgumentParser(prog="python -m bench.restart_agreement")
    parser.add_argument("--count", type=int, default=100, help="targets per figure and goal")
    parser.add_argument("--out", type=Path, default=HERE, help="folder holding RESULTS.md")
    args = parser.parse_args(argv)
    command = command_line("python -m bench.restart_agreement", argv)
    started = datetime.now()
    rows = [
        run_row(chain, orientation, args.count)
        for chain in (issue_arm(), robot_chain("iiwa7"))
        for orientation in (False, True)
    ]
    rates = robot_rates(args.count)
    publish(args.out, SECTION, section(rows, rates, command, started))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
