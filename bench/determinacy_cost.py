"""What the determinacy report costs next to the solve it describes.

``python -m bench.determinacy_cost`` solves the cases of :mod:`bench.conditioning_cost`
(arm-7 full pose, the human figure's ``limbs-22``) and times, on each result,
:func:`solver.analysis.determinacy.measure_determinacy` (what ``IKResult.determinacy`` computes on
first access once ``IKResult.conditioning`` is known) and the two together (the first read
of ``determinacy`` on a fresh result), best of 5 per pose. It prints the medians over the
poses, the ratio to the median solve, and the median state counts (a check that it measured
something).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import Counter
from collections.abc import Callable, Iterator
from functools import partial

import solver
from bench.conditioning_cost import CASES, Sample
from solver.analysis.conditioning import PoseJacobians, measure_conditioning
from solver.analysis.determinacy import measure_determinacy


def _best(action: Callable[[], object], repeats: int = 5) -> float:
    """The shortest of ``repeats`` timings of ``action()`` (seconds)."""
    best = float("inf")
    for _ in range(repeats):
        clock = time.perf_counter()
        action()
        best = min(best, time.perf_counter() - clock)
    return best


def _together(jacobians: PoseJacobians, unmet: tuple[str, ...]) -> None:
    """The first read of ``IKResult.determinacy`` on a fresh result."""
    measure_determinacy(jacobians, measure_conditioning(jacobians), unmet)


def measure(samples: Iterator[Sample]) -> tuple[int, float, float, float, Counter[str]]:
    """DOF, median solve, median report alone, median report with the conditioning (s),
    and how many poses were in each state."""
    solves, alone, together, states, dof = [], [], [], Counter[str](), 0
    for figure, constraints, start in samples:
        dof = len(figure.coordinate_names)
        result = solver.solve(figure, constraints, initial=start)
        jacobians = result.pose_jacobians
        assert jacobians is not None
        solves.append(result.time)
        conditioning = measure_conditioning(jacobians)
        unmet = result.unmet
        alone.append(_best(partial(measure_determinacy, jacobians, conditioning, unmet)))
        together.append(_best(partial(_together, jacobians, unmet)))
        states[measure_determinacy(jacobians, conditioning, unmet).state] += 1
    median = statistics.median
    return dof, median(solves), median(alone), median(together), states


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--count", type=int, default=100, help="samples per case")
    args = parser.parse_args()
    for name, samples in CASES.items():
        dof, solve, alone, together, states = measure(samples(args.count))
        print(
            f"{name} ({dof} DOF): solve {solve * 1e3:.2f} ms median, determinacy "
            f"{alone * 1e3:.3f} ms median ({alone / solve * 100:.1f} % of a solve), with the "
            f"conditioning {together * 1e3:.3f} ms ({together / solve * 100:.1f} %); states "
            + ", ".join(f"{k} {v}" for k, v in sorted(states.items()))
        )


if __name__ == "__main__":
    main()
