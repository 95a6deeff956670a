"""What Blender's IK-limit meaning costs: the swing polygon, and solves with it.

``python -m bench.ik_limits`` prints and writes ``bench/IK_LIMITS.md``:

* per limit set, the rows of the inscribed swing polygon (``bridge.blender_ik.ik_limits``), the
  time to
  build it, and how far Blender's ellipse boundary lies outside it (radians of ``(a, b)``);
* a 3-bone chain (bones of length 1) solved to the same reachable position targets with each
  bone's limits read four ways: Blender's IK segment with the polygon refined where it holds
  the pose (what the bridge does, ``bridge.solve.swing_refine``), the same with the polygon alone,
  the same segment with the box of the ``a``/``b`` bounds only (no polygon rows: the
  polygon's share of the cost), and the Euler box the bridge used before (wrong meaning,
  shown for its cost). Median wall time and iterations per solve, and the share of solves
  the solver reports successful;
* the same chain solved to "boundary" targets: tips of poses with every bone swung to one
  point of Blender's ellipse (where Blender's IK stops when pulled beyond its limits), with
  the polygon refined and alone: the largest distance left (units) shows the polygon's gap.
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

import solver
from bridge import ik_limits, swing_refine
from solver.model.figure import coordinate_system

HERE = Path(__file__).resolve().parent
LIMIT_SETS = [  # degrees: (min_x, min_y, min_z), (max_x, max_y, max_z)
    ((-30, -10, -30), (30, 10, 30)),
    ((-20, -15, -60), (45, 25, 10)),
    ((-70, -5, -10), (10, 5, 80)),
    ((0, -45, -45), (120, 45, 45)),
    ((-175, -90, -90), (170, 90, 150)),
]


def _limits(lower: tuple, upper: tuple) -> ik_limits.Limits:
    return ik_limits.Limits((False,) * 3, (True,) * 3, np.radians(lower), np.radians(upper))


def polygon_rows(lower: tuple, upper: tuple) -> dict[str, float]:
    """Rows, build time (ms) and boundary gap (radians) of one limit set's polygon."""
    lim = _limits(lower, upper)
    start = time.perf_counter()
    rows, rhs = ik_limits.swing_polygon(lim)
    build = time.perf_counter() - start
    outline = ik_limits.swing_outline(lim, 8000)
    gap = float((outline @ rows.T - rhs).max())
    start = time.perf_counter()
    refined, _rhs = ik_limits.swing_polygon(lim, focus=outline[1000])
    refine = time.perf_counter() - start
    return {
        "rows": len(rows), "ms": 1e3 * build, "gap": gap,
        "refined rows": len(refined), "refined ms": 1e3 * refine,
    }  # fmt: skip


def chain(lower: tuple, upper: tuple, meaning: str) -> solver.Figure:
    """Three bones along +Y; each bone's limits read as ``meaning``."""
    fig = solver.Figure()
    lim = _limits(lower, upper)
    for k in range(3):
        name = f"b{k}"
        fig.add_segment(name, None if k == 0 else f"b{k - 1}", (0.0, 1.0 if k else 0.0, 0.0))
        if meaning == "euler box":
            for axis in (2, 1, 0):  # XYZ order: R = Rz Ry Rx
                fig.add_revolute(name, np.eye(3)[axis], lim.lower[axis], lim.upper[axis])
            continue
        plan = ik_limits.limit_joints(lim)
        if meaning == "segment, bounds only":
            plan = ik_limits.LimitJoints(
                plan.kind, plan.joint_axes, plan.coupling, plan.param_axes, plan.lower,
                plan.upper, np.zeros((0, 3)), np.zeros(0),
            )  # fmt: skip
        ik_limits.add_to_figure(fig, name, plan, np.zeros(3))
    fig.add_segment("tip", "b2", (0.0, 1.0, 0.0))
    return fig


@dataclass
class _Bone:
    """What :func:`bridge.solve.swing_refine.solve_refined` reads of a solved bone."""

    name: str
    segment: ik_limits.LimitJoints
    rotation_joints: list[tuple[int, str]]
    coordinates: list[str]


def chain_bones(lower: tuple, upper: tuple) -> tuple[solver.Figure, list[_Bone]]:
    """:func:`chain` with the segment meaning and polygon, and its bones for refinement."""
    fig = solver.Figure()
    plan = ik_limits.limit_joints(_limits(lower, upper))
    bones = []
    for k in range(3):
        name = f"b{k}"
        fig.add_segment(name, None if k == 0 else f"b{k - 1}", (0.0, 1.0 if k else 0.0, 0.0))
        joints, coordinates = ik_limits.add_to_figure(fig, name, plan, np.zeros(3))
        bones.append(_Bone(name, plan, joints, coordinates))
    fig.add_segment("tip", "b2", (0.0, 1.0, 0.0))
    return fig, bones


def boundary_targets(
    lower: tuple, upper: tuple, count: int, rng: np.random.Generator
) -> np.ndarray:
    """Tips ``(count, 3)`` of poses with every bone swung to one random point of Blender's
    ellipse, no twist: the chain's furthest reach that way, where Blender's IK stops when
    pulled beyond it."""
    lim = _limits(lower, upper)
    fig, bones = chain_bones(lower, upper)
    outline = ik_limits.swing_outline(lim, 4000)
    names = fig.coordinate_names
    out = []
    for _ in range(count):
        coords = np.zeros(len(names))
        a, b = outline[rng.integers(len(outline))]
        for bone in bones:
            for name, value in zip(bone.coordinates, (a, b, 0.0), strict=True):
                coords[names.index(name)] = value
        out.append(fig.forward(coords)["tip"][:3, 3])
    return np.array(out)


def reachable_targets(
    lower: tuple, upper: tuple, count: int, rng: np.random.Generator
) -> np.ndarray:
    """Tips ``(count, 3)`` of random poses inside Blender's limits (uniform parameters)."""
    fig = chain(lower, upper, "segment + polygon")
    system = coordinate_system(fig)
    low, high = fig.coordinate_bounds()
    low, high = np.maximum(low, -np.pi), np.minimum(high, np.pi)
    out = []
    while len(out) < count:
        coords = rng.uniform(low, high)
        if system.violation(coords).max(initial=0.0) <= 0.0:
            out.append(fig.forward(coords)["tip"][:3, 3])
    return np.array(out)


def solves(lower: tuple, upper: tuple, meaning: str, targets: np.ndarray) -> dict[str, float]:
    """Median time (ms) and iterations, and success share, over ``targets`` (n, 3).

    One ``solver.Solver`` retargeted from target to target, each solve from the straight
    chain (as the bridge keeps one per rig); its first solve, which assembles the problem,
    is timed apart (``first ms``).
    """
    refined = meaning == REFINED
    if refined or meaning == "segment + polygon":
        fig, bones = chain_bones(lower, upper)
    else:
        fig, bones = chain(lower, upper, meaning), []
    goal = solver.PositionGoal(targets[0])
    ik = solver.Solver(fig, [solver.Constraint(solver.EndEffector("tip"), goal)], **OPTIONS)
    straight = np.zeros(len(fig.coordinate_names))

    def run() -> solver.IKResult:
        if refined:
            return swing_refine.solve_refined(ik, bones, straight)  # type: ignore[arg-type]
        return ik.solve(straight)

    start = time.perf_counter()
    run()
    first = time.perf_counter() - start
    times, iterations, successes, misses = [], [], 0, []
    for target in targets:
        goal.point = target
        start = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - start)
        iterations.append(result.nit)
        successes += bool(result.success)
        misses.append(float(np.linalg.norm(fig.forward(result.x)["tip"][:3, 3] - target)))
    return {
        "first": 1e3 * first,
        "ms": 1e3 * float(np.median(times)),
        "nit": float(np.median(iterations)),
        "success": successes / len(targets),
        "miss": max(misses),
    }


REFINED = "segment + polygon, refined"
#: The options the bridge gives a Solve with the panel's defaults: half the 1e-5 tolerance,
#: two restarts near the pose (``bridge.rig.build.solver_options`` and ``RESTARTS``).
OPTIONS = {"tolerance": 5e-6, "restarts": 2}
MEANINGS = (REFINED, "segment + polygon", "segment, bounds only", "euler box")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--targets", type=int, default=40, help="targets per limit set")
    parser.add_argument("--out", type=Path, default=HERE / "IK_LIMITS.md")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    lines = [
        "# IK limits with Blender's meaning: what the swing polygon costs",
        "",
        "Written by `python -m bench.ik_limits` (see its docstring). Gap: the largest distance",
        "of Blender's ellipse boundary outside the inscribed polygon, radians of the swing",
        "parameters `(a, b)`. Solves: a 3-bone chain (bones of length 1), from the straight",
        f"chain to {args.targets} position targets per limit set, each the tip of a random",
        "pose inside Blender's limits (reachable for the segment meaning; the Euler box may",
        "miss some). One `solver.Solver` per figure, retargeted; every solve starts from the",
        "straight chain; the first (which assembles the problem) is timed apart. Solver",
        "options as the bridge sets them by default (tolerance 5e-6, half the panel's 1e-5;",
        "2 restarts; 1 s budget per solve). Rows per bone; the chain has three such bones.",
        "`refined`: the polygon refined where it holds a missed goal (`bridge.solve.swing_refine`,",
        "what the bridge does; refined polygon: rows and build time around a boundary point).",
        "Boundary targets: tips of poses with every bone swung to one point of Blender's",
        "ellipse, no twist (the furthest reach that way); `max miss`:",
        "the largest distance left (units) over the targets.",
        "",
        "| limits (min; max, degrees) | rows | build ms | gap rad | refined rows | refined "
        "build ms | meaning | targets | first ms | ms / solve | iterations | success "
        "| max miss |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for lower, upper in LIMIT_SETS:
        poly = polygon_rows(lower, upper)
        inside = reachable_targets(lower, upper, args.targets, rng)
        boundary = boundary_targets(lower, upper, args.targets, rng)
        for kind, targets, meanings in (
            ("inside", inside, MEANINGS),
            ("boundary", boundary, MEANINGS[:2]),
        ):
            for meaning in meanings:
                row = solves(lower, upper, meaning, targets)
                lines.append(
                    f"| {lower}; {upper} | {poly['rows']} | {poly['ms']:.1f} | {poly['gap']:.1e} "
                    f"| {poly['refined rows']} | {poly['refined ms']:.1f} | {meaning} | {kind} "
                    f"| {row['first']:.1f} | {row['ms']:.2f} | {row['nit']:.0f} "
                    f"| {row['success']:.2f} | {row['miss']:.1e} |"
                )
                print(lines[-1], flush=True)
    load = os.getloadavg()
    lines += [
        "",
        f"Machine: {platform.processor() or platform.machine()}, {os.cpu_count()} logical "
        f"cores, Python {platform.python_version()}, numpy {np.__version__}; load average "
        f"{load[0]:.1f}, {load[1]:.1f}, {load[2]:.1f} (1, 5, 15 min) when written "
        f"({time.strftime('%Y-%m-%d')}).",
    ]
    args.out.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
