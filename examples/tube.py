"""Solve the tube task of the paper's Figure 3 and print a per-constraint report.

Run with ``python -m examples.tube`` (``make demo``); ``--ungrouped`` uses 17
independent vertebrae (70 DOF) instead of the grouped spine (22 DOF).
"""

import argparse

from examples.human import build_human, tube_task
from solver import IKResult, solve


def report(result: IKResult) -> str:
    """A table of the constraints' residuals followed by the solver's summary."""
    lines = [f"{'constraint':<14}{'distance':>12}{'degrees':>10}  satisfied"]
    for r in result.residuals:
        distance = "-" if r.distance is None else f"{r.distance:.2e}"
        angle = "-" if r.angle is None else f"{r.angle:.4f}"
        lines.append(f"{r.name:<14}{distance:>12}{angle:>10}  {'yes' if r.satisfied else 'NO'}")
    lines.append(f"status: {result.status.name} ({result.message})")
    lines.append(
        f"iterations: {result.nit}, evaluations: {result.nfev}, objective: {result.fun:.3e}"
    )
    lines.append(f"time: {result.time * 1000:.1f} ms")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Build the figure, solve from the neutral pose, print the report.

    Returns:
        0 if every constraint is satisfied, 1 otherwise.
    """
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ungrouped", action="store_true", help="17 independent vertebrae")
    args = parser.parse_args(argv)
    human = build_human(grouped_spine=not args.ungrouped)
    n = len(human.figure.coordinate_names)
    print(f"tube task: {n} degrees of freedom, starting from the neutral pose")
    result = solve(human.figure, tube_task(human))
    print(report(result))
    return 0 if result.success else 1


if __name__ == "__main__":
    raise SystemExit(main())
