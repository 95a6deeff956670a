"""The worst residual of each constraint over a bake's frames, as the solver modelled it or as
Blender's pose measured it.

Residuals are read through :class:`AnyResidual`, or many frames' at once as arrays
(:func:`fold_rows`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np

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


def fold_rows(
    worst: Worst, names: Sequence[str], distance: np.ndarray, angle: np.ndarray,
    satisfied: np.ndarray,
) -> None:  # fmt: skip
    """Fold many frames' residuals at once, as :func:`fold` folds them one frame after
    another: ``distance`` and ``angle`` (F, C) (scene units, degrees; NaN where a
    constraint's goal has no such part, as a batch solve reports them: the ``None`` of a
    single solve's residual), ``satisfied`` (F, C), the columns the constraints ``names``."""
    if not len(distance):
        return
    for c, name in enumerate(names):
        old = worst.get(name, (None, None, True))
        new = []
        for values, before in ((distance[:, c], old[0]), (angle[:, c], old[1])):
            known = values[~np.isnan(values)]
            largest = float(known.max()) if len(known) else None
            new.append(largest if before is None else max(before, largest or 0.0))
        worst[name] = (new[0], new[1], old[2] and bool(satisfied[:, c].all()))
