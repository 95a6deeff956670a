"""Smooth baking: every frame's joint change bounded, and the frames the bound held.

Pure Python (no ``bpy``). A smooth bake solves each frame after the first with
``solver.Solver(max_change=...)`` (:mod:`solver.assembly.step_bound`) around the previous frame's
pose: a rotation coordinate moves at most ``change`` degrees per frame, a location
(prismatic) coordinate at most ``change`` scene units. A target passing near a
singularity (a hand crossing just under, then just over the shoulder) then turns the limb
over several frames instead of flipping it in one; on those frames the hand lags behind
the target. A frame is *held* when some coordinate changed by the full bound: the bound,
not only the goals, shaped the pose. Held frames are counted with their worst residuals;
one that misses a goal is reported missed like any other frame.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ... import solver
from ...solver.assembly.step_bound import held, per_kind
from ..measure.frame_report import residual_text
from .worst import AnyResidual, Worst, fold


@dataclass(frozen=True)
class SmoothSummary:
    """What a smooth bake's report says about its bound.

    Attributes:
        change: the bound per frame: degrees for rotations, scene units for locations.
        locations: the bake solves location (prismatic) joints.
        held: the frames the bound held, in order.
        worst: per constraint, its worst (distance, angle, satisfied) over the held frames,
            as the bake's report measures residuals (Blender's pose or the solver's model).
    """

    change: float
    locations: bool
    held: tuple[int, ...]
    worst: Worst

    def lines(self) -> list[str]:
        """The report's lines: how many frames the bound held and the residuals then."""
        locations = f" ({self.change:g} scene units for locations)" if self.locations else ""
        head = (
            f"  smooth: each joint at most {self.change:g} degrees per frame{locations}; "
            f"{len(self.held)} frame(s) held by the bound"
        )
        if not self.held:
            return [head]
        frames = ", ".join(str(f) for f in self.held[:10]) + (
            ", ..." if len(self.held) > 10 else ""
        )
        lines = [f"{head} ({frames}), worst residuals then:"]
        for name, (distance, angle, ok) in self.worst.items():
            state = "satisfied" if ok else "UNREACHED"
            lines.append(f"    {name}: {residual_text(distance, angle)} ({state})")
        return lines


class SmoothBound:
    """The per-frame bound of one smooth bake, and the frames it held.

    Args:
        figure: the rig's figure.
        change: largest change per frame, > 0: degrees for a rotation coordinate, scene
            units for one that moves only location (prismatic) joints.
    """

    def __init__(self, figure: solver.Figure, change: float) -> None:
        self.change = float(change)
        self.bound = per_kind(figure, math.radians(self.change), self.change)
        self.held: list[int] = []
        self.modelled: Worst = {}
        self.measured: Worst = {}

    def max_change(self, index: int) -> np.ndarray | None:
        """The solver's ``max_change`` for the bake's ``index``-th frame: none for the first
        (it starts from the rest pose, not from a previous frame)."""
        return None if index == 0 else self.bound

    def record(self, index: int, frame: int, start: np.ndarray, result: solver.IKResult) -> None:
        """Note ``frame`` (the bake's ``index``-th) as held when ``result`` moved a coordinate
        from ``start`` by its bound."""
        if held(start, result.x, self.max_change(index)):
            self.held.append(frame)
            fold(self.modelled, result.residuals)

    def measure(self, frame: int, residuals: Sequence[AnyResidual]) -> None:
        """Fold a frame's residuals measured on Blender's pose when the bound held it."""
        if frame in self.held:
            fold(self.measured, residuals)

    def summary(self, measured: bool) -> SmoothSummary:
        """The report's part; ``measured``: residuals measured on Blender's pose."""
        worst = self.measured if measured else self.modelled
        locations = bool(np.any(self.bound != math.radians(self.change)))
        return SmoothSummary(self.change, locations, tuple(self.held), dict(worst))
