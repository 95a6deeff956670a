"""The worst residual of each constraint over a frame range, and the frame it happens on,
measured on what Blender plays back (the keys already there): what ``reach_check`` reports and
``reach_bake`` adds to a bake's report.

It writes nothing: it steps the scene's frame, measures every constraint with
:func:`.residuals.measure`, and puts the frame back. ``bpy`` is used only through the objects
passed in.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..rig.build import build_rig
from ..rig.size import distance_tolerance
from .residuals import MeasuredResidual, measure

if TYPE_CHECKING:
    from bpy.types import Depsgraph, Object, Scene

    from ...props.groups import ReachSettings


@dataclass(frozen=True)
class WorstOverFrames:
    """One constraint over the measured frames.

    Attributes:
        name: the constraint's (or disjunction group's) name.
        distance: worst distance to the goal, scene units (None: no position part).
        distance_frame: the frame of that distance (None with it).
        angle: worst angle to the goal, degrees (None: no direction part).
        angle_frame: the frame of that angle (None with it).
        missed: the frames where it is not within tolerance, in order.
        ignored: its weight is 0 (left out of the solve; never counts as missed).
    """

    name: str
    distance: float | None
    distance_frame: int | None
    angle: float | None
    angle_frame: int | None
    missed: tuple[int, ...]
    ignored: bool = False

    @property
    def satisfied(self) -> bool:
        """Within tolerance on every measured frame (an ignored constraint always is)."""
        return self.ignored or not self.missed


class _Folder:
    """Accumulates one constraint's worst values frame by frame."""

    def __init__(self, name: str, ignored: bool) -> None:
        self.name, self.ignored = name, ignored
        self.distance: tuple[float, int] | None = None
        self.angle: tuple[float, int] | None = None
        self.missed: list[int] = []

    def add(self, frame: int, r: MeasuredResidual) -> None:
        if r.distance is not None and (self.distance is None or r.distance > self.distance[0]):
            self.distance = (float(r.distance), frame)
        if r.angle is not None and (self.angle is None or r.angle > self.angle[0]):
            self.angle = (float(r.angle), frame)
        if not r.satisfied:
            self.missed.append(frame)

    def result(self) -> WorstOverFrames:
        d, a = self.distance, self.angle
        return WorstOverFrames(
            self.name, d and d[0], d and d[1], a and a[0], a and a[1], tuple(self.missed),
            self.ignored,
        )  # fmt: skip


def measure_frames(
    obj: Object, settings: ReachSettings, scene: Scene, depsgraph: Depsgraph,
    frames: Sequence[int],
) -> list[WorstOverFrames]:  # fmt: skip
    """Measure every enabled Reach constraint of ``obj`` at each of ``frames`` as Blender
    plays it back; the scene's current frame is put back afterwards.

    Args:
        obj: the armature object; settings: its Reach settings (``obj.reach_ik``).
        scene: the scene whose frame is stepped; depsgraph: its view layer's depsgraph.
        frames: the frames to measure (not empty).

    Returns:
        One :class:`WorstOverFrames` per constraint, in the rig's order.

    Raises:
        RigError: the constraints cannot be built into a rig (the message says why).
    """
    current = scene.frame_current
    try:
        scene.frame_set(int(frames[0]))
        rig = build_rig(obj, settings)
        tolerance = distance_tolerance(settings, rig.length)
        ignored = {c.name for c in rig.constraints if c.weight == 0.0}
        folders = {spec.name: _Folder(spec.name, spec.name in ignored) for spec in rig.specs}
        for frame in frames:
            scene.frame_set(int(frame))
            for r in measure(rig, depsgraph, tolerance, settings.angle_tolerance):
                folders[r.name].add(int(frame), r)
    finally:
        scene.frame_set(current)
    return [folder.result() for folder in folders.values()]
