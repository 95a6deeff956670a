"""What Blender's IK-limit meaning costs: the swing polygon, and solves with it.

``python -m bench.ik_limits`` prints and writes ``bench/IK_LIMITS.md``:

* per limit set, the rows of the inscribed swing polygon (``bridge.ik_limits``), the time to
  build it, and how far Blender's ellipse boundary lies outside it (radians of ``(a, b)``);
* a 3-bone chain (bones of length 1) solved to the same reachable position targets with each
  bone's limits read three ways: Blender's IK segment with the polygon (what the bridge
  does), the same segment with the box of the ``a``/``b`` bounds only (no polygon rows: the
  polygon's share of the cost), and the Euler box the bridge used before (wrong meaning,
  shown for its cost). Median wall time and iterations per solve, and the share of solves
  the solver reports successful.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np

import solver
from bridge import ik_limits
from solver.linear import coordinate_system

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
    return {"rows": len(rows), "ms": 1e3 * build, "gap": gap}


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
    fig = chain(lower, upper, meaning)
    goal = solver.PositionGoal(targets[0])
    ik = solver.Solver(fig, [solver.Constraint(solver.EndEffector("tip"), goal)])
    straight = np.zeros(len(fig.coordinate_names))
    start = time.perf_counter()
    ik.solve(straight)
    first = time.perf_counter() - start
    times, iterations, successes = [], [], 0
    for target in targets:
        goal.point = target
        start = time.perf_counter()
        result = ik.solve(straight)
        times.append(time.perf_counter() - start)
        iterations.append(result.nit)
        successes += bool(result.success)
    return {
        "first": 1e3 * first,
        "ms": 1e3 * float(np.median(times)),
        "nit": float(np.median(iterations)),
        "success": successes / len(targets),
    }


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
        "defaults (1 s budget per solve). Rows per bone; the chain has three such bones.",
        "",
        "| limits (min; max, degrees) | rows | build ms | gap rad | meaning | first ms "
        "| ms / solve | iterations | success |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for lower, upper in LIMIT_SETS:
        poly = polygon_rows(lower, upper)
        targets = reachable_targets(lower, upper, args.targets, rng)
        for meaning in ("segment + polygon", "segment, bounds only", "euler box"):
            row = solves(lower, upper, meaning, targets)
            lines.append(
                f"| {lower}; {upper} | {poly['rows']} | {poly['ms']:.1f} | {poly['gap']:.1e} "
                f"| {meaning} | {row['first']:.1f} | {row['ms']:.2f} | {row['nit']:.0f} "
                f"| {row['success']:.2f} |"
            )
            print(lines[-1], flush=True)
    load = os.getloadavg()[0]
    lines += ["", f"Load average when written: {load:.1f} on {os.cpu_count()} cores."]
    args.out.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
