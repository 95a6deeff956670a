"""Profiles of Reach IK solves (pyinstrument), for the report's "why" on missed targets."""

from __future__ import annotations

from collections.abc import Callable

from pyinstrument import Profiler


def profile(work: Callable[[], object], repeat: int = 1) -> str:
    """Run ``work`` ``repeat`` times under pyinstrument and return the text call tree."""
    profiler = Profiler(interval=0.0005)
    profiler.start()
    for _ in range(repeat):
        work()
    profiler.stop()
    return profiler.output_text(unicode=False, color=False, show_all=False)
