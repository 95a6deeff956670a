"""The batched solver (:mod:`solver.batch`, issue 21) against TRAC-IK and a loop of single
solves: ``python -m bench.batch`` runs only this section and writes it into
``bench/RESULTS.md`` between its markers; ``python -m bench`` runs it after the main report.

Protocol (the main bench's, :mod:`bench.cases`): random in-limit angles of the chain ->
forward kinematics -> full-pose targets (:func:`bench.serial.sample_targets`, seed 1: the
first 100 are the main bench's), every solve from the mid-range seed, graded by the bench's
own forward kinematics (:func:`bench.metrics.grade`: 1e-5 m, 1e-3 rad, joint limits within
:data:`bench.metrics.LIMIT_SLACK`). The batch runs with its default options (``"dls"``,
restarts as a single solve's, ``time_limit`` pooled over the batch) and the solver's default
tolerances. In the same run on the same targets: TRAC-IK (0.1 s timeout, as in the main
bench) one target after another, and a loop of single solves by Reach IK with its default
options (``solver.Solver``, the main bench's "Reach IK" peer) on the first :data:`LOOP`.
Wall time and process CPU time of the whole batch call are divided by B ("per solve"); a
loop's figure is its mean (its throughput), TRAC-IK's its median (the issue's yardstick).
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path

import numpy as np

import solver
from bench.chains import serial_chain, to_serial
from bench.figures import chain_figure, chain_tip, tip_goal
from bench.metrics import grade
from bench.peers.base import Attempt, PeerUnavailableError
from bench.report import machine_line, ms, versions_line
from bench.sections import command_line, publish
from bench.serial import SerialChain, Targets, sample_targets
from solver.batch import BatchSolver

HERE = Path(__file__).resolve().parent
SECTION = "batch"
"""Marker name of this section in RESULTS.md."""
COUNT = 1000
"""Targets per robot (the issue's 1,000)."""
LOOP = 100
"""Targets solved one by one by the single Reach IK solve (the loop it is compared with)."""
SIZES = (1, 10, 100, 1000, 10000)
"""Batch sizes of the scaling rows (iiwa7)."""
SMALL_BATCHES = 100
"""Problems solved in all at the small sizes (B = 1: 100 calls, B = 10: 10 calls)."""
DOFS = (7, 30, 100)
DOF_BATCH = 100
"""B of the DOF rows (the procedural X/Z chains of the main bench)."""
ROBOTS = ("iiwa7", "xarm6")
REPEATS = 3
"""Times each robot's batch of :data:`COUNT` is solved (its median wall time is reported)."""
FLOOR_SIZES = (10, 100, 1000, 10000)
"""B of the floor rows: one evaluation and one step of the iiwa7's batch, timed alone."""


@dataclass
class BatchTiming:
    """One timed batch (or several of the same size, summed)."""

    count: int
    wall: float
    cpu: float
    solved: int
    violations: int
    restarts: int
    max_nit: int
    passes: int = 0
    mean_nit: float = 0.0
    run_iterations: int = 0
    walls: tuple[float, ...] = ()

    @property
    def rate(self) -> float:
        return self.solved / self.count


def _poses(targets: Targets, index: slice) -> np.ndarray:
    rotations, positions = targets.rotations[index], targets.positions[index]
    poses = np.zeros((len(positions), 4, 4))
    poses[:, :3, :3] = rotations
    poses[:, :3, 3] = positions
    poses[:, 3, 3] = 1.0
    return poses


class BatchModel:
    """The chain's figure, tip constraint and a :class:`BatchSolver` (default options)."""

    def __init__(self, chain: SerialChain) -> None:
        self.chain = chain
        self.figure = chain_figure(chain)
        position, rotation = chain.tip[:3, 3], chain.tip[:3, :3]
        goal = tip_goal(position, rotation)
        self.constraint = solver.Constraint(chain_tip(chain, True), goal, name="tip")
        self.solver = BatchSolver(self.figure, [self.constraint])
        self.seed = chain.mid_range()

    def solve(self, targets: Targets, start: int, count: int) -> tuple[BatchTiming, np.ndarray]:
        """Solve targets ``start`` .. ``start + count`` as one batch; timings and angles."""
        poses = _poses(targets, slice(start, start + count))
        wall, cpu = time.perf_counter(), time.process_time()
        result = self.solver.solve({"tip": poses}, self.seed)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        solved = violations = 0
        for b in range(count):
            k = start + b
            record = grade(
                self.chain,
                Attempt(result.x[b], wall / count),
                k,
                targets.positions[k],
                targets.rotations[k],
            )
            solved += record.outcome == "solved"
            violations += record.outcome == "limits"
        timing = BatchTiming(
            count,
            wall,
            cpu,
            solved,
            violations,
            int(result.restarts.sum()),
            int(result.nit.max()),
            result.iterations,
            float(result.nit.mean()),
            result.run_iterations,
        )
        return timing, result.x


def batches(model: BatchModel, targets: Targets, size: int, total: int) -> BatchTiming:
    """``total`` problems in batches of ``size`` (timings summed)."""
    parts = [model.solve(targets, start, size)[0] for start in range(0, total, size)]
    return BatchTiming(
        sum(p.count for p in parts),
        sum(p.wall for p in parts),
        sum(p.cpu for p in parts),
        sum(p.solved for p in parts),
        sum(p.violations for p in parts),
        sum(p.restarts for p in parts),
        max(p.max_nit for p in parts),
        max(p.passes for p in parts),
        float(np.mean([p.mean_nit for p in parts])),
        sum(p.run_iterations for p in parts),
    )


def repeated(model: BatchModel, targets: Targets, count: int, times: int) -> BatchTiming:
    """The batch of the first ``count`` targets solved ``times`` times: the run of median
    wall time, with every run's wall time in ``walls`` (the answers are the same each time)."""
    runs = sorted((model.solve(targets, 0, count)[0] for _ in range(times)), key=lambda t: t.wall)
    middle = runs[len(runs) // 2]
    return replace(middle, walls=tuple(t.wall for t in runs))


@dataclass
class Peer:
    """A one-by-one peer's times and solve rate on the same targets."""

    name: str
    seconds: list[float]
    solved: int
    note: str = ""
    cpu: list[float] = field(default_factory=list)
    """Process CPU seconds of each solve call (steadier than wall time on a loaded machine)."""

    @property
    def cpu_median(self) -> float:
        return float(np.median(self.cpu)) if self.cpu else float("nan")

    @property
    def median(self) -> float:
        return float(np.median(self.seconds)) if self.seconds else float("nan")

    @property
    def mean(self) -> float:
        return float(np.mean(self.seconds)) if self.seconds else float("nan")

    @property
    def cpu_mean(self) -> float:
        return float(np.mean(self.cpu)) if self.cpu else float("nan")

    @property
    def p95(self) -> float:
        return float(np.percentile(self.seconds, 95)) if self.seconds else float("nan")


def one_by_one(name: str, peer: object, chain: SerialChain, targets: Targets, count: int) -> Peer:
    """``peer.solve`` on the first ``count`` targets, graded."""
    seconds, cpu, solved = [], [], 0
    for k in range(count):
        clock = time.process_time()
        attempt = peer.solve(targets.positions[k], targets.rotations[k])  # type: ignore[attr-defined]
        cpu.append(time.process_time() - clock)
        seconds.append(attempt.seconds)
        record = grade(chain, attempt, k, targets.positions[k], targets.rotations[k])
        solved += record.outcome == "solved"
    return Peer(name, seconds, solved, cpu=cpu)


def tracik(chain: SerialChain, targets: Targets, count: int) -> Peer:
    """TRAC-IK on the first ``count`` targets (unavailable: an empty row with the reason)."""
    try:
        from bench.cases import RESTART_BUDGET
        from bench.peers.tracik_peer import TracIKChain

        peer = TracIKChain(chain, True, timeout=RESTART_BUDGET)
    except PeerUnavailableError as error:
        return Peer("TRAC-IK", [], 0, note=str(error))
    return one_by_one("TRAC-IK", peer, chain, targets, count)


def reach_loop(chain: SerialChain, targets: Targets, count: int) -> Peer:
    """Reach IK's single solve with its default options, one target after another."""
    from bench.peers.reach import ReachChain

    return one_by_one("Reach IK loop", ReachChain(chain, True), chain, targets, count)


@dataclass
class RobotRow:
    name: str
    batch: BatchTiming
    tracik: Peer
    loop: Peer


def run_robots(log=print) -> list[RobotRow]:
    from bench.robots import robot_chain

    rows = []
    for robot in ROBOTS:
        chain = robot_chain(robot)
        targets = sample_targets(chain, COUNT, seed=1)
        model = BatchModel(chain)
        model.solve(targets, 0, 10)  # warm-up: first-call costs out of the timing
        log(f"{robot}: batch of {COUNT}, {REPEATS} times")
        batch = repeated(model, targets, COUNT, REPEATS)
        log(f"{robot}: TRAC-IK")
        peer = tracik(chain, targets, COUNT)
        log(f"{robot}: single-solve loop")
        loop = reach_loop(chain, targets, LOOP)
        rows.append(RobotRow(robot, batch, peer, loop))
    return rows


def run_sizes(log=print) -> list[BatchTiming]:
    from bench.robots import robot_chain

    chain = robot_chain("iiwa7")
    targets = sample_targets(chain, max(SIZES), seed=1)
    model = BatchModel(chain)
    model.solve(targets, 0, 10)
    out = []
    for size in SIZES:
        log(f"iiwa7: B = {size}")
        out.append(batches(model, targets, size, max(size, SMALL_BATCHES)))
    return out


@dataclass
class FloorRow:
    """Microseconds per problem of one batched evaluation, forward pass and step at B."""

    size: int
    evaluation: float
    forward: float
    step: float


def _median_seconds(work, times: int = 5) -> float:
    work()
    seconds = []
    for _ in range(times):
        clock = time.perf_counter()
        work()
        seconds.append(time.perf_counter() - clock)
    return float(np.median(seconds))


def run_floor(log=print) -> list[FloorRow]:
    """One evaluation (forward kinematics, Jacobian, error, verdicts), its forward pass and
    one step (the damped least-squares solve under the bounds) of the iiwa7's batch, timed
    alone at each of :data:`FLOOR_SIZES` from in-limit points near the seed: the cost per
    problem and iteration that floors the batch's time per solve."""
    from bench.robots import robot_chain
    from solver.batch.box import bound_sides
    from solver.batch.inputs import targets_of
    from solver.batch.model import BatchModel as Assembler

    chain = robot_chain("iiwa7")
    size = max(FLOOR_SIZES)
    targets = sample_targets(chain, size, seed=1)
    model = BatchModel(chain)
    batch = model.solver
    scaled, _ = batch._assemble(model.seed, batch.options)
    assembler = Assembler(scaled)
    table = assembler.default_targets(size)
    for slot, values in targets_of(assembler, {"tip": _poses(targets, slice(0, size))}).items():
        table[:, slot] = values
    problem = scaled.problem
    start = model.seed[problem.variables] / problem.scale / scaled.unit
    rng = np.random.default_rng(1)
    z = np.clip(start + rng.normal(0.0, 0.3, (size, len(start))), assembler.lower, assembler.upper)
    q_fixed = np.zeros((size, len(model.figure.joints)))
    method = _method(batch.options)
    rows = []
    for count in FLOOR_SIZES:
        log(f"iiwa7: floor at B = {count}")
        here, fixed, goal = z[:count], q_fixed[:count], table[:count]
        at = assembler.evaluate(here, fixed, goal)
        sides = bound_sides(assembler, here)
        joints = assembler.joint_values(here, fixed)
        limit = method.starting(np.ones(count, dtype=bool))[0]
        micro = 1e6 / count
        rows.append(
            FloorRow(
                count,
                micro * _median_seconds(lambda: assembler.evaluate(here, fixed, goal)),  # noqa: B023
                micro * _median_seconds(lambda: assembler.kinematics.forward(joints)),  # noqa: B023
                micro
                * _median_seconds(
                    lambda: method.step(assembler, at.jacobian, at.error, sides, limit)  # noqa: B023
                ),
            )
        )
    return rows


def _method(options: solver.Options):
    from solver.batch.dls import BatchDampedLeastSquares

    return BatchDampedLeastSquares(options.method_options())


def run_dofs(log=print) -> list[tuple[int, BatchTiming, Peer]]:
    out = []
    for n in DOFS:
        chain = to_serial(serial_chain(n), f"chain-{n}")
        targets = sample_targets(chain, max(DOF_BATCH, 20), seed=1)
        model = BatchModel(chain)
        model.solve(targets, 0, 2)
        log(f"chain-{n}: B = {DOF_BATCH}")
        timing, _ = model.solve(targets, 0, DOF_BATCH)
        loop = reach_loop(chain, targets, 10 if n >= 100 else 20)
        out.append((n, timing, loop))
    return out


def _ratio(a: float, b: float) -> str:
    return f"{a / b:.2f}x" if b > 0 and np.isfinite(a) and np.isfinite(b) else "-"


def section(
    robots: list[RobotRow],
    sizes: list[BatchTiming],
    dofs: list[tuple[int, BatchTiming, Peer]],
    floor: list[FloorRow],
    command: str,
    started: datetime,
    seconds: float,
) -> str:
    lines = [
        "## Batched solver (`solver.batch`, issue 21)",
        "",
        f"Written by `{command}` on {started:%Y-%m-%d %H:%M}; this section took {seconds:.0f} s. "
        f"{machine_line()}. {versions_line()}.",
        "",
        "Protocol: see `bench/batch.py`'s docstring (the main bench's targets, seed pose and "
        "grading; batch time = wall (CPU) time of the whole call / B). Passes: iterations of "
        "the batch's working set (first runs and restarts advance together); run-iterations: "
        "the runs advanced over all passes, per problem (restarts dropped unused included).",
        "",
        f"### {COUNT} full-pose targets per robot",
        "",
        f"The batch is solved {REPEATS} times (the same answers each time): its median wall "
        "time per solve, the range over the runs in brackets, and that run's CPU time per "
        "solve. TRAC-IK and the loop of single Reach solves: per-solve median (p95); the "
        "loop's mean is its throughput. On a loaded machine wall times swing with the other "
        "jobs; the CPU ratios (batch CPU per solve against TRAC-IK's median CPU per solve, "
        "the loop's mean CPU per solve against the batch's) are the steadier comparison.",
        "",
        "| robot | batch solved | batch per solve | batch CPU per solve | passes | "
        "run-iterations per problem | restarts (most iterations) | "
        "TRAC-IK solved | TRAC-IK median (p95) | TRAC-IK CPU median | "
        "batch / TRAC-IK median: wall, CPU | "
        "loop of single Reach solves: mean, median (p95), solved | loop mean / batch: "
        "wall, CPU |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in robots:
        b, t, loop = row.batch, row.tracik, row.loop
        per = b.wall / b.count
        spread = f" ({ms(min(b.walls) / b.count)}-{ms(max(b.walls) / b.count)})" if b.walls else ""
        lines.append(
            f"| {row.name} | {100 * b.rate:.1f}% ({b.violations} limit violations) | "
            f"{ms(per)} ms{spread} | {ms(b.cpu / b.count)} ms | {b.passes} | "
            f"{b.run_iterations / b.count:.1f} | {b.restarts} ({b.max_nit}) | "
            + (
                f"{100 * t.solved / len(t.seconds):.1f}% | {ms(t.median)} ({ms(t.p95)}) ms | "
                f"{ms(t.cpu_median)} ms | {_ratio(per, t.median)}, "
                f"{_ratio(b.cpu / b.count, t.cpu_median)} | "
                if t.seconds
                else f"- ({t.note}) | - | - | - | "
            )
            + f"{ms(loop.mean)} ms, {ms(loop.median)} ({ms(loop.p95)}) ms, "
            f"{loop.solved}/{len(loop.seconds)} | {_ratio(loop.mean, per)}, "
            f"{_ratio(loop.cpu_mean, b.cpu / b.count)} |"
        )
    lines += [
        "",
        "### Time per solve against B (iiwa7, the same targets)",
        "",
        f"B = 1 and 10 are {SMALL_BATCHES} problems in calls of B; the most iterations one "
        "problem took (restarts included); passes: the most of one call.",
        "",
        "| B | solved | wall per solve | CPU per solve | restarts | most iterations | passes | "
        "run-iterations per problem |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for size, timing in zip(SIZES, sizes, strict=True):
        lines.append(
            f"| {size} | {100 * timing.rate:.1f}% | {ms(timing.wall / timing.count)} ms | "
            f"{ms(timing.cpu / timing.count)} ms | {timing.restarts} | {timing.max_nit} | "
            f"{timing.passes} | {timing.run_iterations / timing.count:.1f} |"
        )
    lines += [
        "",
        f"### Time per solve against DOF (X/Z chains, B = {DOF_BATCH})",
        "",
        "| chain | solved | batch per solve | CPU per solve | restarts | most iterations | "
        "passes | loop of single Reach solves: mean, median (p95), solved | loop mean / batch |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for n, timing, loop in dofs:
        per = timing.wall / timing.count
        lines.append(
            f"| chain-{n} | {100 * timing.rate:.1f}% | {ms(per)} ms | "
            f"{ms(timing.cpu / timing.count)} ms | {timing.restarts} | {timing.max_nit} | "
            f"{timing.passes} | {ms(loop.mean)} ms, {ms(loop.median)} ({ms(loop.p95)}) ms, "
            f"{loop.solved}/{len(loop.seconds)} | {_ratio(loop.mean, per)} |"
        )
    lines += [
        "",
        "### What floors the time per solve (iiwa7)",
        "",
        "One batched evaluation (forward kinematics, Jacobian, error, verdicts), its forward "
        "pass alone, and one step (the damped least-squares solve under the bounds), timed "
        "alone at B (median of 5), in microseconds per problem. A run-iteration costs about "
        "one evaluation and one step (a full step is taken at once most of the time), so the "
        "time per solve cannot fall below run-iterations per problem x (evaluation + step) "
        "at large B.",
        "",
        "| B | evaluation (us / problem) | of which forward kinematics | step (us / problem) |",
        "|---|---|---|---|",
    ]
    for row in floor:
        lines.append(f"| {row.size} | {row.evaluation:.2f} | {row.forward:.2f} | {row.step:.2f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Run the section and write it into bench/RESULTS.md (or ``--out``)."""
    parser = argparse.ArgumentParser(
        prog="python -m bench.batch", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--out", type=Path, default=HERE, help="folder holding RESULTS.md")
    args = parser.parse_args(argv)
    started, clock = datetime.now(), time.perf_counter()
    robots = run_robots()
    sizes = run_sizes()
    dofs = run_dofs()
    floor = run_floor()
    command = command_line("python -m bench.batch", argv)
    text = section(robots, sizes, dofs, floor, command, started, time.perf_counter() - clock)
    publish(args.out, SECTION, text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
