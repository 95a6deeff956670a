"""The worst residual of each constraint over a bake's frames, as the solver modelled it or as
Blender's pose measured it.

Pure Python: residuals are read through :class:`AnyResidual`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

Worst = dict[str, tuple[float | None, float | None, bool]]  # name -> (distance, angle, ok)


class AnyResidual(Protocol):
    """What :func:`fold` reads of a residual: the solver's or a measured one."""

    @property
    def name(self) -> str: ...
    @property
    def distance(self) -> float | None: ...
    @property
    def angle(self) -> float | None: ...
    @property
    def satisfied(self) -> bool: ...


def fold(worst: Worst, residuals: Sequence[AnyResidual]) -> None:
    """Fold one frame's residuals into per-constraint worst values."""
    for r in residuals:
        old = worst.get(r.name, (None, None, True))
        distance = r.distance if old[0] is None else max(old[0], r.distance or 0.0)
        angle = r.angle if old[1] is None else max(old[1], r.angle or 0.0)
        worst[r.name] = (distance, angle, old[2] and r.satisfied)
