"""A bake of several armatures as one system: every frame one solve over all of them
(:mod:`.figure`), each armature's keys written in bulk after the last frame, then every frame
played back and each armature's constraints measured on Blender's evaluated pose.

What a bake of one armature does, and how this one differs (:mod:`..bake.baking`): the same
start pose (the solved channels at rest at the first frame, then the previous frame's solution
with its motion continued: :class:`..bake.start.MotionStart`, one for the join), the same keys
(:func:`..write.keys.write_keys` per armature, into its current action), the same restore on any
failure (a :class:`..write.saved_state.SceneState` per armature: nothing is written). Not
offered here: smooth bakes, sub-range joins with existing keys, other Bake To targets, Only
Selected Bones, and following targets Blender does not evaluate (refused, named).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ... import solver
from ...props.access import settings_of
from ..bake.baking import MODES, TIME_LIMIT, start_from_rest
from ..bake.report import BakeError, BakeReport, describe
from ..bake.start import MotionStart
from ..bake.worst import Worst, fold
from ..errors import RigError
from ..measure.playback_overrides import builtin_ik
from ..measure.residuals import measure
from ..rig.build import Rig, build_rig
from ..rig.size import distance_tolerance
from ..rig.targets import check_targets
from ..solve.unevaluated import check_armature, refuse_unevaluated_targets
from ..write import keys
from ..write.saved_state import SceneState
from .figure import JoinedFigure
from .solve import joined_options

if TYPE_CHECKING:
    from bpy.types import Depsgraph, Object, Scene


@dataclass(frozen=True)
class JoinedBakeReport:
    """The outcome of a bake over several armatures.

    Attributes:
        reports: (armature name, its :class:`..bake.report.BakeReport`) per armature.
        dof: degrees of freedom of the joined figure.
        solve_seconds: solver time per frame, seconds, in frame order (the one solve of all
            armatures at that frame).
    """

    reports: tuple[tuple[str, BakeReport], ...]
    dof: int
    solve_seconds: tuple[float, ...]

    @property
    def satisfied(self) -> bool:
        """Every armature's constraints satisfied on every baked frame."""
        return all(report.satisfied for _name, report in self.reports)

    def text(self) -> str:
        """The operator report: a summary line, then each armature's bake report, indented."""
        names = ", ".join(f"'{name}'" for name, _report in self.reports)
        per_frame = 1000.0 * float(np.median(self.solve_seconds)) if self.solve_seconds else 0.0
        lines = [
            f"Reach: {len(self.reports)} armatures baked as one system ({names}), "
            f"{len(self.solve_seconds)} frames, {self.dof} DOF, {per_frame:.1f} ms per frame "
            "(median solve)"
        ]
        for name, report in self.reports:
            lines.append(f"Armature '{name}':")
            lines += [f"  {line}" for line in report.text().splitlines()]
        return "\n".join(lines)


class _Member:
    """One armature of the bake: its rig, keyed channels, values and saved scene state."""

    def __init__(self, obj: Object, frames: int, state: SceneState) -> None:
        self.obj = obj
        self.settings = settings_of(obj)
        self.state = state
        self.rig: Rig = build_rig(obj, self.settings)
        self.channels = keys.solved_channels(self.rig)
        state.save_channels((path, index) for path, index, _group in self.channels)
        state.mute(builtin_ik(self.rig))
        self.previous: dict[str, np.ndarray] | None = start_from_rest(self.rig)
        self.values = np.zeros((len(self.channels), frames))
        self.rows: np.ndarray | None = None
        self.modelled: Worst = {}
        self.measured: Worst = {}
        self.n_keys = 0

    def record(self, index: int, result: solver.IKResult) -> None:
        """Apply this armature's share of a frame's solution and keep its channel values."""
        rig = self.rig
        rig.apply(result)
        channels = rig.channels(self.previous)
        self.previous = {name: bone.rotation for name, bone in channels.items()}
        if self.rows is None:
            self.rows = keys.channel_rows(channels, self.channels)
        column = keys.flat_channels(channels)[self.rows]
        if not np.isfinite(column).all():
            raise RigError(f"Armature '{self.obj.name}': the solve gave non-finite values")
        self.values[:, index] = column
        fold(self.modelled, result.residuals)


def bake_joined(
    objects: Sequence[Object],
    frames: Sequence[int],
    mode: str = "REPLACE",
    *,
    scene: Scene,
    depsgraph: Depsgraph,
    time_limit: float = TIME_LIMIT,
    unsupported: Sequence[str] = (),
) -> JoinedBakeReport:
    """Bake ``frames`` of ``objects``' armatures as one system into keys on each one's
    solved channels, measured on Blender's evaluated pose at every frame.

    Args:
        objects: the armatures (at least two), the active one first.
        frames: frames to bake, in order (not empty).
        mode: "REPLACE" or "LAYER" (see :mod:`..write.keys`).
        scene: the scene whose frame is stepped.
        depsgraph: the view layer's depsgraph to measure on.
        time_limit: wall-time budget of each frame's solve, seconds.
        unsupported: options of a one-armature bake the caller was given and a join does not
            offer (see the module doc): refused, named, before anything changes.

    Raises:
        BakeError: naming the frame and the cause; every armature is left as it was.
    """
    names = ", ".join(f"'{obj.name}'" for obj in objects)
    if unsupported:
        raise BakeError(
            f"Reach bake of {names} as one system: {', '.join(unsupported)} not offered for "
            "several armatures (bake the current action, or bake each armature alone)"
        )
    frames = [int(f) for f in frames]
    if not frames:
        raise BakeError("Reach bake: the frame range is empty")
    if mode not in MODES:
        raise BakeError(f"Reach bake: mode must be one of {MODES}, not {mode!r}")
    clock = time.perf_counter()
    states = [SceneState.capture(scene, obj) for obj in objects]
    frame = frames[0]
    try:
        view_layer = depsgraph.view_layer
        scene.frame_set(frame)
        members = []
        for obj in objects:
            check_armature(obj, view_layer)
            members.append(_Member(obj, len(frames), states[len(members)]))
            refuse_unevaluated_targets(obj, members[-1].rig.bindings, view_layer)
        join = JoinedFigure([m.rig for m in members])
        options = joined_options([(m.rig, m.settings) for m in members], time_limit)
        ik = solver.Solver(join.figure, join.constraints, options)
        starts = MotionStart()
        seconds, iterations = [], 0
        for index, frame in enumerate(frames):
            if index > 0:
                scene.frame_set(frame)
            for member in members:
                if index > 0:
                    member.rig.read_pose(solved_too=False)
                    member.rig.push_rest()
                    member.rig.update_targets()
                check_targets(member.rig)
            join.sync()
            plain = join.start()
            result = ik.solve(starts.start(plain))
            starts.record(plain, result.x, index > 0 and result.success)
            for member, part in zip(members, join.split(result), strict=True):
                member.record(index, part)
            seconds.append(result.time)
            iterations += result.nit
        frame = frames[-1]
        at = np.array(frames, dtype=float)
        for member in members:
            data = {key: (at, member.values[row]) for row, key in enumerate(member.channels)}
            member.n_keys = keys.write_keys(member.obj, data, (at[0], at[-1]), mode)
            member.state.unmute()
        for frame in frames:
            scene.frame_set(frame)
            for member in members:
                tolerance = distance_tolerance(member.settings, member.rig.length)
                residuals = measure(member.rig, depsgraph, tolerance,
                                    member.settings.angle_tolerance)  # fmt: skip
                fold(member.measured, residuals)
        for member in members:
            member.state.finish({path for path, _index, _group in member.channels})
    except Exception as exc:
        for state in states:
            try:
                state.restore()
            except Exception:  # restore the others; the first cause is the report
                pass
        raise BakeError(
            f"Reach bake stopped at frame {frame}, nothing written: {describe(exc)}", frame
        ) from exc
    wall = time.perf_counter() - clock
    reports = []
    for member in members:
        others = ", ".join(f"'{m.obj.name}'" for m in members if m is not member)
        reports.append((member.obj.name, BakeReport(
            frames=tuple(frames),
            constraints=tuple(c.name for c in member.rig.constraints),
            worst=dict(member.measured),
            modelled=dict(member.modelled),
            measured=True,
            n_keys=member.n_keys,
            n_channels=len(member.channels),
            n_dof=len(member.rig.figure.coordinate_names),
            method=options.method_name,
            iterations=iterations,
            solve_seconds=sum(seconds),
            seconds=wall,
            notes=(*member.rig.notes, f"baked as one system with {others}"),
            time_limited=tuple(f for f, s in zip(frames, seconds, strict=True) if s >= time_limit),
            time_limit=time_limit,
            ignored=tuple(c.name for c in member.rig.constraints if c.weight == 0.0),
        )))  # fmt: skip
    return JoinedBakeReport(tuple(reports), len(join.figure.coordinate_names), tuple(seconds))
