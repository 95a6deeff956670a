"""What the conditioning read-out costs next to the solve it describes.

``python -m bench.conditioning_cost`` solves, with default options, the arm-7 full-pose task
(TRAC-IK's protocol: targets from joint values uniform within the limits, solved from the
mid-range pose) and the human figure's four-limb task (``limbs-22``), and times, on each
result, :func:`solver.analysis.conditioning.measure_conditioning` (what ``IKResult.conditioning``
computes on first access). It prints the median solve time, the median read-out time and
their ratio, and the read-out's median ``kappa`` (a check that it measured something).

With ``--blender`` it also solves the Blender demo rig (``make demo``'s metarig, 5 constraints)
at frames across its 120, each from the pose baked two frames earlier as
:mod:`bench.blender_bake` does, through ``bpy.ops.reach.solve``, and times the read-out of each
solve's written pose (what the Last Solve box computes when it first draws it) against the
solver's time and the whole operator's.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable, Iterator

import numpy as np

import solver
from bench.chains import arm7, to_serial
from bench.figures import chain_figure, chain_tip, tip_goal
from bench.human_cases import limbs_case
from bench.serial import sample_targets
from solver.analysis.conditioning import measure_conditioning

Sample = tuple[solver.Figure, list[solver.Constraint], np.ndarray | None]


def arm_samples(count: int) -> Iterator[Sample]:
    """The arm-7 full-pose targets with the mid-range start."""
    chain = to_serial(arm7(), "arm-7")
    targets = sample_targets(chain, count)
    start = 0.5 * (chain.lower + chain.upper)
    for position, rotation in zip(targets.positions, targets.rotations, strict=True):
        figure = chain_figure(chain)
        goal = tip_goal(position, rotation)
        yield figure, [solver.Constraint(chain_tip(chain, True), goal, name="tip")], start


def limb_samples(count: int) -> Iterator[Sample]:
    """The human figure's four-limb samples, from the neutral pose."""
    case = limbs_case(count)
    for k in range(count):
        figure, constraints = case.make(k)
        yield figure, constraints, None


def measure(samples: Iterator[Sample], repeats: int = 5) -> dict[str, float]:
    """Median solve and read-out times (seconds), their ratio, median kappa, DOF."""
    solves, readouts, kappas, dof = [], [], [], 0
    for figure, constraints, start in samples:
        dof = len(figure.coordinate_names)
        result = solver.solve(figure, constraints, initial=start)
        assert result.pose_jacobians is not None
        solves.append(result.time)
        best = float("inf")
        for _ in range(repeats):  # the best of a few: the read-out is short, the noise is not
            clock = time.perf_counter()
            conditioning = measure_conditioning(result.pose_jacobians)
            best = min(best, time.perf_counter() - clock)
        readouts.append(best)
        kappas.append(conditioning.condition)
    solve, readout = statistics.median(solves), statistics.median(readouts)
    return {
        "dof": dof,
        "solve": solve,
        "readout": readout,
        "ratio": readout / solve,
        "kappa": statistics.median(kappas),
    }


def blender_demo() -> str:
    """The read-out on the Blender demo rig against its Solve operator (one line)."""
    import importlib

    from bench.blender_bake import EXTENSION, bench_solve_at_frame
    from examples.blender_demo import _isolate_blender_home, build_scene, install_extension

    _isolate_blender_home()
    import bpy

    install_extension()
    rig = build_scene()
    bpy.context.view_layer.objects.active = rig
    assert bpy.ops.reach.bake() == {"FINISHED"}  # the poses each solve starts from
    results = importlib.import_module(f"{EXTENSION}.bridge.session.last_report")
    solver_times, readouts, kappas, dof = [], [], [], 0

    def solve() -> None:
        nonlocal dof
        assert bpy.ops.reach.solve() == {"FINISHED"}
        report = results.last(rig)
        result = report.conditioning.result
        dof = len(result.x)
        solver_times.append(report.seconds)
        best = float("inf")
        for _ in range(5):
            clock = time.perf_counter()
            conditioning = measure_conditioning(result.pose_jacobians)
            best = min(best, time.perf_counter() - clock)
        readouts.append(best)
        kappas.append(conditioning.condition)

    wall, _cpu = bench_solve_at_frame(rig, solve)
    operator = statistics.median(wall) * 1e-3 - statistics.median(readouts)  # less the timing
    readout = statistics.median(readouts)
    return (
        f"Blender demo rig ({dof} DOF): solver {statistics.median(solver_times) * 1e3:.2f} ms "
        f"median, Solve operator about {operator * 1e3:.1f} ms, conditioning read-out "
        f"{readout * 1e3:.3f} ms median ({readout / statistics.median(solver_times) * 100:.1f} % "
        f"of the solver, {readout / operator * 100:.1f} % of the operator), median kappa "
        f"{statistics.median(kappas):.3g}"
    )


CASES: dict[str, Callable[[int], Iterator[Sample]]] = {
    "arm-7 pose": arm_samples,
    "limbs-22": limb_samples,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=100, help="samples per case")
    parser.add_argument("--blender", action="store_true", help="also the Blender demo rig")
    args = parser.parse_args()
    for name, samples in CASES.items():
        figures = measure(samples(args.count))
        print(
            f"{name} ({figures['dof']:.0f} DOF): solve {figures['solve'] * 1e3:.2f} ms median, "
            f"conditioning read-out {figures['readout'] * 1e3:.3f} ms median "
            f"({figures['ratio'] * 100:.1f} % of a solve), median kappa {figures['kappa']:.3g}"
        )
    if args.blender:
        print(blender_demo())


if __name__ == "__main__":
    main()
