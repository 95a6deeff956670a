"""Profiles of Reach IK solves (pyinstrument), for the report's "why" on missed targets."""

from __future__ import annotations

from collections.abc import Callable

from pyinstrument import Profiler


def profile(
    work: Callable[[], object], repeat: int = 1, threshold: float = 0.01, percent: bool = False
) -> str:
    """Run ``work`` ``repeat`` times under pyinstrument and return the text call tree.

    Args:
        threshold: calls below this share of the total time are left out of the tree.
        percent: times as shares of the total (steadier than seconds on a loaded machine).
    """
    profiler = Profiler(interval=0.0005)
    profiler.start()
    for _ in range(repeat):
        work()
    profiler.stop()
    return profiler.output_text(
        unicode=False, color=False, show_all=False,
        time="percent_of_total" if percent else "seconds",
        processor_options={"filter_threshold": threshold},
    )  # fmt: skip
