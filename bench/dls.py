"""Damped least squares and the pseudoinverse beside the default method, single start.

``python -m bench.dls [--quick]`` writes ``bench/DLS.md``: on the bench's chains (position
goal) and the 7-DOF arm (full pose), TRAC-IK's protocol as in
:mod:`bench.optimizer_strategies` (targets from random in-limit angles, each solved once
from the mid-range pose, no restarts, no time limit, iteration limit 1000), the solve rate,
iterations, evaluations and time per solve of ``"gauss-newton-hybrid"`` (the default),
``"dls"`` with its damping chosen by eq. 18 from four step limits (0.5, 1.0, the default
2.0, 4.0; each run's limit widens to it from a quarter of it, :mod:`solver.methods.dls`),
``"dls"`` with a fixed damping, and ``"pinv"``.

A second table drives a planar two-link arm (unit links) to unreachable targets (3 units
away, 12 directions, from a bent start): the arm ends straight, at the singular pose, so it
shows how each variant approaches a singularity: how often the elbow changes sign between
iterations, how many runs stop at a Kuhn-Tucker point, the iterations and the worst
pointing error.

Times are wall-clock medians on this machine; they are measurements, not targets.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

import solver
from bench.optimizer_strategies import MAX_ITERATIONS, header, method_rows, target_count

HERE = Path(__file__).resolve().parent

#: (row label, method, Solver options) in the order of the table.
VARIANTS: tuple[tuple[str, str, dict[str, object]], ...] = (
    ("gauss-newton-hybrid", "gauss-newton-hybrid", {}),
    ("dls, step_limit 0.5 (from 0.125)", "dls", {"step_limit": 0.5}),
    ("dls, step_limit 1.0 (from 0.25)", "dls", {"step_limit": 1.0}),
    ("dls (default: step_limit 2.0, from 0.5)", "dls", {}),
    ("dls, step_limit 4.0 (from 1.0)", "dls", {"step_limit": 4.0}),
    ("dls, dls_damping 0.1", "dls", {"dls_damping": 0.1}),
    ("pinv", "pinv", {}),
)


def unreachable_row(label: str, method: str, options: dict[str, object]) -> str:
    """One row of the unreachable-target table (see the module docstring)."""
    arm = solver.Figure()
    arm.add_segment("upper")
    arm.add_revolute("upper", "z", name="shoulder")
    arm.add_segment("lower", parent="upper", translation=(1.0, 0.0, 0.0))
    arm.add_revolute("lower", "z", name="elbow")
    flips, kuhn_tucker, iterations, pointing = [], 0, [], []
    for heading in np.linspace(-np.pi, np.pi, 12, endpoint=False):
        target = (3.0 * np.cos(heading), 3.0 * np.sin(heading), 0.0)
        tip = solver.Constraint(
            solver.EndEffector("lower", (1.0, 0.0, 0.0)), solver.PositionGoal(target)
        )
        elbows: list[float] = []
        result = solver.solve(
            arm,
            [tip],
            initial=[0.3, 0.4],
            method=method,
            restarts=0,
            time_limit=None,
            max_iterations=MAX_ITERATIONS,
            callback=lambda x, _f, out=elbows: out.append(float(x[1])),
            **options,  # type: ignore[arg-type]
        )
        signs = np.sign(elbows)
        flips.append(int(np.count_nonzero(signs[1:] != signs[:-1])))
        kuhn_tucker += result.status == solver.Status.KUHN_TUCKER
        iterations.append(result.nit)
        shoulder = result.values()["shoulder"]
        pointing.append(abs(float(np.angle(np.exp(1j * (shoulder - heading))))))
    return (
        f"| {label} | {np.mean(flips):.1f} | {max(flips)} | {kuhn_tucker} / 12 | "
        f"{np.mean(iterations):.1f} | {max(pointing):.1e} rad |"
    )


def main() -> None:
    count = target_count(__doc__.splitlines()[0])
    lines = [
        *header("Damped least squares and the pseudoinverse", "bench.dls", count),
        *method_rows(VARIANTS, count),
    ]
    lines += [
        "",
        "## Approaching a singularity: unreachable targets on a two-link arm",
        "",
        "| method | mean elbow sign changes | most | Kuhn-Tucker stops | mean nit "
        "| worst pointing error |",
        "|---|---|---|---|---|---|",
    ]
    for label, method, options in VARIANTS:
        lines.append(unreachable_row(label, method, options))
        print(lines[-1], flush=True)
    (HERE / "DLS.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
