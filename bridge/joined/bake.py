"""A bake of several armatures as one system: every frame one solve over all of them
(:mod:`.figure`), each armature's keys written in bulk after the last frame, then every frame
played back and each armature's constraints measured on Blender's evaluated pose.

:class:`JoinedBakeJob` runs it one step at a time (one frame solved, or one frame measured, per
step), so the Bake operator runs it modally as it runs a bake of one armature (progress, status
text, ESC: every armature put back); :func:`bake_joined` runs it in one go.

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
from ..bake.baking import MODES, TIME_LIMIT, FrameSteps, start_from_rest
from ..bake.report import BakeError, BakeReport, describe
from ..bake.start import MotionStart
from ..bake.worst import Worst, fold
from ..blender import busy_armatures
from ..errors import RigError
from ..measure.playback_overrides import builtin_ik
from ..measure.residuals import measure
from ..rig.build import Rig, build_rig
from ..rig.size import distance_tolerance
from ..rig.targets import check_targets
from ..solve.unevaluated import check_armature, refuse_unevaluated_targets
from ..write import keys
from ..write.saved_state import SceneState, finish_all, restore_all
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


class JoinedBakeJob(FrameSteps):
    """A bake of several armatures as one system, run one step at a time (the modal bake calls
    :meth:`step` from a timer, as it runs a :class:`..bake.baking.BakeJob`): one step per frame
    solved (the keys of every armature written after the last one, in that step), then one per
    frame played back and measured; :meth:`finish` returns the report, :meth:`cancel` puts
    every armature back as it was.

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
        BakeError: the armatures cannot be baked (every armature is left as it was).
    """

    def __init__(self, objects: Sequence[Object], frames: Sequence[int], mode: str = "REPLACE",
                 *, scene: Scene, depsgraph: Depsgraph, time_limit: float = TIME_LIMIT,
                 unsupported: Sequence[str] = ()) -> None:  # fmt: skip
        self.names = ", ".join(f"'{obj.name}'" for obj in objects)
        if unsupported:
            raise BakeError(
                f"Reach bake of {self.names} as one system: {', '.join(unsupported)} not "
                "offered for several armatures (bake the current action, or bake each armature "
                "alone)"
            )
        self.frames = [int(f) for f in frames]
        if not self.frames:
            raise BakeError("Reach bake: the frame range is empty")
        if mode not in MODES:
            raise BakeError(f"Reach bake: mode must be one of {MODES}, not {mode!r}")
        self.objects = list(objects)
        self.scene, self.depsgraph, self.mode = scene, depsgraph, mode
        self.time_limit = time_limit
        self.clock = time.perf_counter()
        self.total = 2 * len(self.frames)  # solving, then measuring, each frame
        self.index = 0
        self.closed = False
        self.seconds: list[float] = []
        self.iterations = 0
        self.starts = MotionStart()
        self.states = [SceneState.capture(scene, obj) for obj in self.objects]
        for obj in self.objects:  # until cancel() or finish(): no other job takes them
            busy_armatures.hold(obj)
        try:
            view_layer = depsgraph.view_layer
            scene.frame_set(self.frames[0])
            self.members: list[_Member] = []
            for obj, state in zip(self.objects, self.states, strict=True):
                check_armature(obj, view_layer)
                self.members.append(_Member(obj, len(self.frames), state))
                refuse_unevaluated_targets(obj, self.members[-1].rig.bindings, view_layer)
            self.join = JoinedFigure([m.rig for m in self.members])
            self.options = joined_options([(m.rig, m.settings) for m in self.members], time_limit)
            self.solver = solver.Solver(self.join.figure, self.join.constraints, self.options)
        except Exception as exc:
            self._fail(exc, self.frames[0])

    def progress_text(self) -> str:
        """What the bake does next, for a status bar: e.g. "Reach bake of 'A', 'B' as one
        system: solving frame 12 (12/240)"."""
        return (
            f"Reach bake of {self.names} as one system: {self.doing()} frame {self.frame} "
            f"({self.index}/{self.total})"
        )

    def _fail(self, exc: BaseException, frame: int) -> None:
        """Put every armature back, then raise :class:`BakeError` from ``exc``."""
        self.cancel()
        raise BakeError(
            f"Reach bake stopped at frame {frame}, nothing written: {describe(exc)}", frame
        ) from exc

    def step(self) -> None:
        """Run the next step; on any error put every armature back and raise
        :class:`BakeError` naming the frame."""
        if self.closed or self.done:
            raise BakeError("Reach bake: the job is finished or cancelled")
        frame = self.frame
        try:
            if self.index < len(self.frames):
                self._solve(frame)
                if self.index == len(self.frames) - 1:
                    self._write()
            else:
                self._measure(frame)
        except Exception as exc:
            self._fail(exc, frame)
        self.index += 1

    def _solve(self, frame: int) -> None:
        """Solve every armature at ``frame`` in one system and keep each one's channels."""
        index, members, join = self.index, self.members, self.join
        if index > 0:
            self.scene.frame_set(frame)
        for member in members:
            if index > 0:
                member.rig.read_pose(solved_too=False)
                member.rig.push_rest()
                member.rig.update_targets()
            check_targets(member.rig)
        join.sync()
        plain = join.start()
        result = self.solver.solve(self.starts.start(plain))
        self.starts.record(plain, result.x, index > 0 and result.success)
        for member, part in zip(members, join.split(result), strict=True):
            member.record(index, part)
        self.seconds.append(result.time)
        self.iterations += result.nit

    def _write(self) -> None:
        """Key every armature's frames; unmute Blender's IK (playback state from here on)."""
        at = np.array(self.frames, dtype=float)
        for member in self.members:
            data = {key: (at, member.values[row]) for row, key in enumerate(member.channels)}
            member.n_keys = keys.write_keys(member.obj, data, (at[0], at[-1]), self.mode)
            member.state.unmute()

    def _measure(self, frame: int) -> None:
        """Play ``frame`` back and measure each armature's constraints on Blender's pose."""
        self.scene.frame_set(frame)
        for member in self.members:
            tolerance = distance_tolerance(member.settings, member.rig.length)
            residuals = measure(member.rig, self.depsgraph, tolerance,
                                member.settings.angle_tolerance)  # fmt: skip
            fold(member.measured, residuals)

    def cancel(self) -> None:
        """Stop and put every armature back as it was (idempotent): nothing is written."""
        if self.closed:
            return
        self.closed = True
        try:
            restore_all(self.states)
        except Exception:  # every part was attempted; the first cause is the report
            pass
        finally:
            for obj in self.objects:
                busy_armatures.release(obj)

    def finish(self) -> JoinedBakeReport:
        """Restore the frame and the pose of unkeyed channels; return the report.

        Raises:
            BakeError: called before every step ran, or after :meth:`cancel`; or the restore
                failed (every armature put back).
        """
        if self.closed or not self.done:
            raise BakeError("Reach bake: finish() needs every step run and the job open")
        try:
            finish_all(
                [m.state for m in self.members],
                [{path for path, _index, _group in m.channels} for m in self.members],
            )
        except Exception as exc:
            self._fail(exc, self.frames[-1])
        self.closed = True
        for obj in self.objects:
            busy_armatures.release(obj)
        return self._report(time.perf_counter() - self.clock)

    def _report(self, wall: float) -> JoinedBakeReport:
        """Each armature's :class:`..bake.report.BakeReport` (``wall``: seconds of the bake)."""
        members, seconds, limit = self.members, self.seconds, self.time_limit
        reports = []
        for member in members:
            others = ", ".join(f"'{m.obj.name}'" for m in members if m is not member)
            reports.append((member.obj.name, BakeReport(
                frames=tuple(self.frames),
                constraints=tuple(c.name for c in member.rig.constraints),
                worst=dict(member.measured),
                modelled=dict(member.modelled),
                measured=True,
                n_keys=member.n_keys,
                n_channels=len(member.channels),
                n_dof=len(member.rig.figure.coordinate_names),
                method=self.options.method_name,
                iterations=self.iterations,
                solve_seconds=sum(seconds),
                seconds=wall,
                notes=(*member.rig.notes, f"baked as one system with {others}"),
                time_limited=tuple(
                    f for f, s in zip(self.frames, seconds, strict=True) if s >= limit
                ),
                time_limit=limit,
                ignored=tuple(c.name for c in member.rig.constraints if c.weight == 0.0),
            )))  # fmt: skip
        dof = len(self.join.figure.coordinate_names)
        return JoinedBakeReport(tuple(reports), dof, tuple(seconds))


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
    """Bake ``frames`` of ``objects``' armatures as one system in one go (a
    :class:`JoinedBakeJob` run to its end; arguments as for it).

    Raises:
        BakeError: naming the frame and the cause; every armature is left as it was.
    """
    job = JoinedBakeJob(objects, frames, mode, scene=scene, depsgraph=depsgraph,
                        time_limit=time_limit, unsupported=unsupported)  # fmt: skip
    while not job.done:
        job.step()
    return job.finish()
