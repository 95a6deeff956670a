"""Bake Reach constraints over a frame range into keys on the solved channels.

:class:`BakeJob` runs one step at a time (the modal operator calls :meth:`~BakeJob.step`
from a timer): it solves one frame per step, writes the keys of every frame in bulk after the
last one, then plays each frame back to measure the residuals on Blender's evaluated pose;
:meth:`~BakeJob.finish` returns the :class:`BakeReport`. :func:`bake` runs a job to the end
with a progress callback.

Start pose (why a bake is deterministic). The first frame is solved from the solved
channels' **rest** values (identity rotation, zero location for solved location channels,
no stretch), whatever the current pose or the keys already on those channels; every later
frame starts from the previous frame's solution with the motion of the frame before it
continued (:mod:`.start`; warm start), or, in a smooth bake, from the previous frame's
solution as it is, with each joint's change bounded around it (:mod:`.smooth`).
Everything else the solve
reads (unsolved bones, targets) comes from the scene's animation evaluated at that frame. So
baking the same shot twice, or after saving and reloading the file, writes identical keys: a
re-bake does not start from the pose an earlier bake keyed.

A rig with *Driven* bones (a mechanism) reaches a frame whose input jumped in sub-steps at
sub-frames, and holds the last closed pose on a frame whose loop cannot close
(:mod:`.mechanism`); both are functions of the shot too.

Batched frames (:mod:`.batched`, the default where the rig allows it): after the first frame
only the targets of each frame are read (from their F-curves, without stepping the scene,
where that gives Blender's numbers: :mod:`..measure.target_curves`; goals that read their
target's point alone get every frame's point at once, the frames a reading would refuse still
read one at a time); at the last solving
step anchors every few frames are solved one after another and the frames between them at
once, each started from the poses interpolated between its anchors, and the channel values
of every frame are computed at once.
The keys are a function of the shot as well (but not the keys the sequential path would write
on a redundant rig: see docs/baking.md). The measuring steps of such a bake read each frame and
score them all at the end (:mod:`..measure.bulk`).

A sub-range bake is the exception: when the solved channels are keyed outside the baked range,
the range must join those keys, so its first frame, and every frame the keys span, starts from
the pose the existing keys give there (:mod:`.join`). Such a bake is a function of the shot
and of the keys around it.

Failure and cancel. The scene state the bake may change is captured first
(:class:`..write.saved_state.SceneState`). Any exception — a :class:`..rig.build.RigError`, a
solver error or anything else (a bone renamed or a target deleted mid-bake, a bug) — and
:meth:`BakeJob.cancel` put it all back: the keys of every channel keyframe by keyframe, the action
and animation data, Blender's IK constraints muted for the bake, the current frame and the pose.
Nothing is written. The exception is re-raised as :class:`BakeError` naming the frame.

``bpy`` is used only through the objects passed in.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from ... import solver
from ..blender import busy_armatures, channel_rotations
from ..errors import RigError
from ..measure.bulk import BulkMeasure, covers
from ..measure.conditioning_readout import ConditioningReadout
from ..measure.diagnose import explain
from ..measure.playback_overrides import builtin_ik, overrides, played_over
from ..measure.residuals import measure
from ..measure.target_curves import TargetCurves, why_stepped
from ..rig.build import Rig, build_rig, solver_options
from ..rig.size import distance_tolerance
from ..rig.targets import check_targets
from ..solve.pole_start import start_at_poles
from ..solve.swing_refine import solve_refined
from ..solve.unevaluated import FollowedTargets, check_armature
from ..write import keys
from ..write.saved_state import SceneState
from . import bulk_channels
from .batched import BatchedFrames, SolvedFrames, what_moved, why_sequential
from .join import KeyedSpan
from .mechanism import Mechanism
from .report import BakeError, BakeReport, describe
from .smooth import SmoothBound
from .start import MotionStart
from .target import TARGETS, BakeTarget
from .worst import Worst, fold, fold_rows

if TYPE_CHECKING:  # annotations only: bpy objects are passed in
    from collections.abc import Collection

    from bpy.types import Depsgraph, Object, Scene

    from ...props.groups import ReachSettings

__all__ = ["BakeError", "BakeJob", "BakeReport", "bake", "describe"]

MODES = ("REPLACE", "LAYER")

#: Default wall-time budget of one frame's solve, seconds (see :class:`BakeJob`).
TIME_LIMIT = 1.0


def only_bones(channels: list[keys.ChannelKey], bones: Collection[str]) -> list[keys.ChannelKey]:
    """The ``channels`` of ``bones`` only; RigError when no solved bone is among them."""
    wanted = set(bones)
    kept = [channel for channel in channels if channel[2] in wanted]
    if not kept:
        solved = sorted({group for _path, _index, group in channels})
        raise RigError(
            "none of the selected bones is solved by these constraints "
            f"(solved: {', '.join(solved)})"
        )
    return kept


def start_from_rest(rig: Rig) -> dict[str, np.ndarray]:
    """Put the rig's solved channels at rest; return their rest rotation channels per bone.

    This is the start pose of a bake (see the module docstring): identity rotation, zero
    location on solved location channels, stretch 1. The returned channels seed the Euler /
    quaternion continuity of the first frame.
    """
    rig.pose.put_at_rest()
    rig.push_rest()
    return {
        name: channel_rotations.rotation_to_channels(np.eye(3), info.rotation_mode)
        for name, info in rig.solved.items()
    }


class FrameSteps:
    """Where a bake's steps are: one per frame solving ``frames``, then (``total`` twice as
    many) one per frame measuring them. The bake sets ``frames``, ``total`` and ``index``."""

    frames: list[int]
    total: int
    index: int

    @property
    def done(self) -> bool:
        """Whether every step has run (:meth:`finish` is next)."""
        return self.index >= self.total

    @property
    def frame(self) -> int:
        """The frame of the next step (the last frame once done)."""
        return self.frames[self.index % len(self.frames)] if not self.done else self.frames[-1]

    def doing(self) -> str:
        """What the next step does: "solving", "measuring" or "finishing"."""
        if self.done:
            return "finishing"
        return "solving" if self.index < len(self.frames) else "measuring"


class BakeJob(FrameSteps):
    """A bake in progress, one :meth:`step` at a time, then :meth:`finish` or :meth:`cancel`.

    Steps: one per frame to solve it (the keys of all frames are written in bulk by the last
    one), then, given a ``depsgraph``, one per frame to measure the residuals on Blender's
    evaluated pose with the new keys and every constraint active, as it plays back.

    Args:
        obj: the armature object.
        settings: its Reach settings (``obj.reach_ik``).
        frames: frames to bake, in order (not empty).
        mode: what happens to existing keys, ``"REPLACE"`` or ``"LAYER"`` (see :mod:`..write.keys`).
        scene: the scene whose frame is stepped.
        only_selected: bake only constraints whose Select box is ticked.
        depsgraph: the view layer's depsgraph (``context.evaluated_depsgraph_get()``) to
            measure residuals on; None reports the solver's modelled residuals. With it,
            an armature that view layer does not evaluate is refused and targets it does
            not evaluate are followed for the time of the bake (:mod:`..solve.unevaluated`).
        time_limit: wall-time budget of each frame's solve, seconds (a very long chain
            cannot hold the bake up, and ESC in the modal bake is seen between frames).
            A frame that hits it keeps the best pose found and is listed in the report:
            only such frames can depend on the machine's speed.
        target: where the keys go, one of :data:`.target.TARGETS` (the current
            action, a new action, a new NLA strip).
        bones: key only the channels of these bones (the solve still moves every chain
            bone; the others show their own animation on playback); None keys them all.
        method: the solve method of this bake (a :data:`solver.methods.METHODS` name);
            None: the armature's *Method* setting, which the bake never changes.
        smooth: a smooth bake's largest joint change per frame (:mod:`.smooth`):
            degrees for rotations, scene units for locations; None: unbounded.
        batched: solve the frames after the first in batches where the rig and the bake
            allow it (:mod:`.batched`: anchors every few frames by the bake's method, the
            frames between them at once by damped least squares; see
            :func:`.batched.why_sequential`; a ``method`` other than ``"dls"`` given for this
            bake keeps it sequential); False: one frame after another, always.

    Raises:
        BakeError: the rig cannot be solved (the scene is left as it was).
    """

    def __init__(self, obj: Object, settings: ReachSettings, frames: Sequence[int], mode: str, *,
                 scene: Scene, only_selected: bool = False,
                 depsgraph: Depsgraph | None = None,
                 time_limit: float = TIME_LIMIT, target: str = "CURRENT",
                 bones: Collection[str] | None = None,
                 method: str | None = None, smooth: float | None = None,
                 batched: bool = True) -> None:  # fmt: skip
        try:
            self.frames = [int(f) for f in frames]
        except (TypeError, ValueError):
            raise BakeError(f"Reach bake: frames must be whole numbers, got {frames!r}") from None
        if not self.frames:
            raise BakeError("Reach bake: the frame range is empty")
        if mode not in MODES:
            raise BakeError(f"Reach bake: mode must be one of {MODES}, not {mode!r}")
        if not (isinstance(time_limit, int | float) and time_limit > 0.0):  # NaN fails too
            raise BakeError(f"Reach bake: time_limit must be a positive number, not {time_limit!r}")
        if target not in TARGETS:
            raise BakeError(f"Reach bake: target must be one of {TARGETS}, not {target!r}")
        if smooth is not None and not (
            isinstance(smooth, int | float) and 0.0 < smooth < float("inf")
        ):
            raise BakeError(f"Reach bake: smooth must be a positive number or None, not {smooth!r}")
        self.obj = obj
        busy_armatures.hold(
            obj
        )  # until cancel() or finish(): live posing leaves the armature alone
        self.scene = scene
        self.mode = mode
        self.depsgraph = depsgraph
        self.settings = settings
        self.time_limit = time_limit
        self.time_limited: list[int] = []
        self.last_result: solver.IKResult | None = None  # the last solved frame's
        self.total = len(self.frames) * (1 if depsgraph is None else 2)
        self.index = 0
        self.closed = False
        self.modelled: Worst = {}
        self.measured: Worst = {}
        self.overrides: list[str] = []
        self.n_keys = 0
        self.iterations = 0
        self.solve_seconds = 0.0
        self.starts = MotionStart()
        self.clock = time.perf_counter()
        self.state = SceneState.capture(scene, obj)
        self.followed: FollowedTargets | None = None
        try:
            if depsgraph is not None:
                check_armature(obj, depsgraph.view_layer)
                targets = [i.target for i in settings.constraints if i.enabled and i.target]
                self.followed = FollowedTargets(obj, targets, depsgraph.view_layer)
            scene.frame_set(self.frames[0])
            self.rig = build_rig(obj, settings, only_selected)
            options = solver_options(self.rig, settings, method).replace(time_limit=time_limit)
            self.solver = solver.Solver(self.rig.figure, self.rig.constraints, options)
            self.smooth = None if smooth is None else SmoothBound(self.rig.figure, smooth)
            self.channels = keys.solved_channels(self.rig)
            if bones is not None:
                self.channels = only_bones(self.channels, bones)
            self.target = BakeTarget(obj, target, self.frames[0])
            self.state.save_channels((path, index) for path, index, _group in self.channels)
            self.state.mute(builtin_ik(self.rig))
            self.previous: dict[str, np.ndarray] | None = start_from_rest(self.rig)
            self.span = KeyedSpan.around(obj, self.channels, self.frames, target)
            tolerance = distance_tolerance(settings, self.rig.length)
            self.mechanism = Mechanism(self.rig, self.solver, tolerance, settings.angle_tolerance)
            self.sequential = (
                "batches turned off (batched=False)" if not batched
                else f"the method {method} was asked for (the batch solves by dls)"
                if method not in (None, "dls")
                else why_sequential(self.rig, smooth=smooth is not None,
                                    joined=self.span is not None, driven=self.mechanism.active)
            )  # fmt: skip
        except Exception as exc:
            self._fail(exc, f" stopped at frame {self.frames[0]}", self.frames[0])
        self.values = np.zeros((len(self.channels), len(self.frames)))
        self.rows: np.ndarray | None = None  # of self.channels in keys.flat_channels
        self.batched: BatchedFrames | None = None  # reading targets for the batch (.batched)
        self.bulk: BulkMeasure | None = None  # the batched path's measuring (._write)
        self.batched_method = ""  # the batch's method once the batched path solved
        self.curves: TargetCurves | None = None  # the batched path's targets, from F-curves
        self.targets_read = ""  # how the batched path read its targets (BakeReport)
        #: (F,) with the targets in the batch's table at once: the frames still read one at
        #: a time (the checks a reading makes would refuse them), else None
        self.filled: np.ndarray | None = None

    def progress_text(self) -> str:
        """What the bake is doing, for a status bar: e.g. "solving frame 12 (12/120)"."""
        return f"Reach bake: {self.doing()} frame {self.frame} ({self.index}/{self.total})"

    def _fail(self, exc: BaseException, where: str, frame: int | None) -> None:
        """Restore the scene, then raise :class:`BakeError` from ``exc``."""
        self.cancel()
        raise BakeError(f"Reach bake{where}, nothing written: {describe(exc)}", frame) from exc

    def step(self) -> None:
        """Run the next step; on any error restore the scene and raise :class:`BakeError`."""
        if self.closed or self.done:
            raise BakeError("Reach bake: the job is finished or cancelled")
        frame = self.frame
        try:
            if self.index < len(self.frames):
                self._solve(frame)
            else:
                self._measure(frame)
        except Exception as exc:
            self._fail(exc, f" stopped at frame {frame}", frame)
        self.index += 1
        if self.index == len(self.frames):
            try:
                self._write()
            except Exception as exc:
                self._fail(exc, " failed while writing keys", None)

    def _solve(self, frame: int) -> None:
        if self.batched is not None:
            self._read(frame)
            return
        rig = self.rig
        smooth = self.smooth is not None
        keyed = self.span is not None and self.span.starts(frame, self.index, smooth)
        if self.index > 0:
            self.scene.frame_set(frame)
        if keyed:  # a sub-range bake: from the pose the existing keys give (.bake_join)
            rig.read_pose(solved_too=True)
            if self.index == 0:
                self.previous = None  # Euler / quaternion continuity with those keys
        elif self.index > 0:
            rig.read_pose(solved_too=False)
        stepped = (  # a Driven input jumped: sub-steps (.mechanism)
            not (keyed or smooth)
            and self.index > 0
            and self.mechanism.substeps(self.scene, self.frames[self.index - 1], frame)
        )
        self.mechanism.record()
        if keyed or self.index > 0:
            rig.push_rest()
            rig.update_targets()
        check_targets(rig)
        start_at_poles(rig)  # converted pole chains start where Blender's IK starts
        plain = rig.initial()
        options = self.solver.options
        if self.smooth is not None:  # the bound is around the previous frame's pose
            start = plain
            options = options.replace(max_change=self.smooth.max_change(self.index))
        elif keyed:  # the pose the keys give, as it is
            start = plain
        elif stepped:  # the last sub-step's pose, near this frame's answer
            start = plain
        else:
            start = self.starts.start(plain)  # the last motion continued
        result = solve_refined(self.solver, rig.solved.values(), start, options)
        if self.smooth is not None:
            self.smooth.record(self.index, frame, start, result)
        self.starts.record(plain, result.x, self.index > 0 and result.success)
        self.mechanism.apply(frame, result)  # or the last closed pose, held (.mechanism)
        self._record(frame, self.index, result)
        if self.index == 0 and not result.success and self.sequential is None:
            self.sequential = "the first frame misses a goal"
        if self.index == 0 and self.sequential is None and len(self.frames) > 1:
            self.batched = BatchedFrames(rig, self.solver, len(self.frames))
            self.curves = self._target_curves()

    def _target_curves(self) -> TargetCurves | None:
        """The targets of every frame from their F-curves where that gives Blender's numbers
        (:mod:`..measure.target_curves`), else None: the scene is stepped to each frame."""
        stepped = why_stepped(self.rig, self.scene, self.depsgraph)
        curves = TargetCurves(self.rig, self.frames) if stepped is None else None
        if curves is not None:
            stepped = curves.missed
        if stepped is not None:
            self.targets_read = f"stepping the scene: {stepped}"
            return None
        self.targets_read = "F-curves"
        assert curves is not None and self.batched is not None
        points = curves.goal_points()
        if points is not None:  # every later frame's goals at once; the checks where due
            self.filled = self.batched.fill(points, 1) | curves.checked()
        return curves

    def _read(self, frame: int) -> None:
        """A frame of the batched path: its targets read (from their F-curves where that gives
        Blender's numbers, :mod:`..measure.target_curves`, else with the scene stepped to it);
        at the last frame, every frame solved (:class:`.batched.BatchedFrames`). Inputs that
        change over the range other than targets send the bake back to the sequential path
        from the second frame."""
        assert self.batched is not None
        rig = self.rig
        last = self.index == len(self.frames) - 1
        if self.filled is not None and not (self.filled[self.index] or last):
            return  # its targets are in the batch's table, checked (_target_curves)
        if self.curves is not None:  # no other input changes (..measure.target_curves)
            self.curves.update(self.index)
        else:
            self.scene.frame_set(frame)
            rig.read_pose(solved_too=False)
            rig.update_targets()
        check_targets(rig)
        if not self.batched.read(self.index, still=self.curves is not None):
            moved = what_moved(rig, self.batched.inputs)
            self.batched = None
            self.targets_read = ""
            self.sequential = f"{moved} moves at frame {frame}"
            index = self.index
            for self.index in range(1, index + 1):  # the steps read so far
                self._solve(self.frames[self.index])
            return
        if self.index < len(self.frames) - 1:
            return
        assert self.last_result is not None, "the first frame was solved"
        solved = self.batched.solve(self.last_result)
        self.batched_method = self.batched.options.method_name
        count = len(self.frames)
        if not bulk_channels.covers(rig) or self.rows is None or self.previous is None:
            for index in range(1, count):
                result = solved.result(index)
                rig.apply(result)
                self._record(self.frames[index], index, result)
            return
        joint_values = solved.joint_values()
        block = bulk_channels.frame_channels(rig, joint_values, solved.joint_names, self.previous)
        self.values[:, 1:] = self._finite(block[:, self.rows].T)
        rig.apply(solved.result(count - 1))  # the pose a sequential bake ends on
        self._note_batch(solved)

    def _note_batch(self, solved: SolvedFrames) -> None:
        """Every frame of ``solved`` counted as :meth:`_note` counts one, in order: the
        batch's frames from its arrays at once (no result object per frame)."""
        batch, rows = solved.batch, solved.batched_rows()
        limited: list[int] = []
        if batch is not None and len(rows):
            fold_rows(self.modelled, batch.names, batch.distance[rows], batch.angle[rows],
                      batch.satisfied[rows])  # fmt: skip
            share = batch.time / len(batch)
            hit = (batch.status[rows] == solver.Status.TIME_LIMIT) | (share >= self.time_limit)
            limited = np.flatnonzero(solved.row >= 0)[hit].tolist()
            self.iterations += int(batch.nit[rows].sum())
            self.solve_seconds += share * len(rows)
        before = len(self.time_limited)
        for index in sorted(solved.singles)[1:]:  # the last frame's result noted last
            self._note(self.frames[index], solved.singles[index])
        hits = self.time_limited[before:] + [self.frames[i] for i in limited]
        self.time_limited[before:] = sorted(hits, key=self.frames.index)  # in frame order

    def _record(self, frame: int, index: int, result: solver.IKResult) -> None:
        """Frame ``frame`` (the ``index``-th) solved into the rig's pose as ``result``: its
        channel values, residuals and counts noted."""
        rig = self.rig
        channels = rig.channels(self.previous)
        self.previous = {name: bone.rotation for name, bone in channels.items()}
        if self.rows is None:  # the same layout every frame: same bones, same rotation modes
            self.rows = keys.channel_rows(channels, self.channels)
        self.values[:, index] = self._finite(keys.flat_channels(channels)[self.rows])
        self._note(frame, result)

    @staticmethod
    def _finite(values: np.ndarray) -> np.ndarray:
        """``values``, checked: RigError when some is not finite."""
        if not np.isfinite(values).all():
            raise RigError("the solve gave non-finite channel values")
        return values

    def _note(self, frame: int, result: solver.IKResult) -> None:
        """Frame ``frame``'s ``result`` counted: its modelled residuals, its time, iterations."""
        fold(self.modelled, result.residuals)
        if result.status == solver.Status.TIME_LIMIT or result.time >= self.time_limit:
            self.time_limited.append(frame)
        self.iterations += result.nit
        self.solve_seconds += result.time
        self.last_result = result

    def _write(self) -> None:
        """Key every frame; unmute Blender's IK (playback state from here on)."""
        frames = np.array(self.frames, dtype=float)
        data = {key: (frames, self.values[row]) for row, key in enumerate(self.channels)}
        self.n_keys = self.target.write(
            lambda: keys.write_keys(self.obj, data, (frames[0], frames[-1]), self.mode)
        )
        self.state.unmute()
        if self.batched_method and self.depsgraph is not None and covers(self.rig):
            self.bulk = BulkMeasure(self.rig, len(self.frames))  # same numbers, read in bulk

    def _measure(self, frame: int) -> None:
        assert self.depsgraph is not None, "measuring steps run only with a depsgraph"
        self.scene.frame_set(frame)
        tolerance = distance_tolerance(self.settings, self.rig.length)
        if self.bulk is not None:
            index = self.index - len(self.frames)
            self.bulk.read(index, self.depsgraph)
            if index == len(self.frames) - 1:
                self.measured.update(self.bulk.worst(tolerance, self.settings.angle_tolerance))
            return
        residuals = measure(self.rig, self.depsgraph, tolerance, self.settings.angle_tolerance)
        fold(self.measured, residuals)
        if self.smooth is not None:
            self.smooth.measure(frame, residuals)

    def cancel(self) -> None:
        """Stop and put the scene back as it was (idempotent): nothing is written."""
        if not self.closed:
            self.closed = True
            target = getattr(self, "target", None)  # None when the setup itself failed
            try:
                if target is not None:
                    target.undo()
            finally:
                try:
                    self.state.restore()
                finally:
                    self._unfollow()
                    busy_armatures.release(self.obj)

    def _unfollow(self) -> None:
        """Undo :class:`..solve.unevaluated.FollowedTargets` (the bake's muted constraints)."""
        if self.followed is not None:  # None when the setup failed before following
            self.followed.release()

    def finish(self) -> BakeReport:
        """Restore the frame and the pose of unkeyed channels; return the report.

        Raises:
            BakeError: called before every step ran, or after :meth:`cancel`.
        """
        if self.closed or not self.done:
            raise BakeError("Reach bake: finish() needs every step run and the job open")
        try:
            self.state.finish({path for path, _index, _group in self.channels})
        except Exception as exc:
            self._fail(exc, " failed while restoring the frame", None)
        self.closed = True
        self._unfollow()
        busy_armatures.release(self.obj)
        # After the frame is restored: Blender has evaluated the keys, and the drivers the
        # keys' update ran (a driven influence's input set by a script) hold their new values.
        paths = [(p, i) for p, i, _group in self.channels]
        note = self.target.note(paths)
        self.overrides = overrides(self.rig, paths) + ([] if note is None else [note])
        return BakeReport(
            frames=tuple(self.frames),
            constraints=tuple(c.name for c in self.rig.constraints),
            worst=dict(self.measured if self.depsgraph is not None else self.modelled),
            modelled=dict(self.modelled),
            measured=self.depsgraph is not None,
            n_keys=self.n_keys,
            n_channels=len(self.channels),
            n_dof=len(self.rig.figure.coordinate_names),
            method=self.solver.options.method_name,
            batched=self.batched_method,
            targets_read=self.targets_read if self.batched_method else "",
            sequential="" if self.batched_method or len(self.frames) < 2 else self.sequential or "",
            iterations=self.iterations + self.mechanism.iterations,
            solve_seconds=self.solve_seconds + self.mechanism.seconds,
            seconds=time.perf_counter() - self.clock,
            notes=tuple(self.rig.notes) + tuple(self.followed.notes if self.followed else ()),
            overrides=tuple(self.overrides),
            reasons=self._reasons(),
            time_limited=tuple(self.time_limited),
            time_limit=self.time_limit,
            smooth=None if self.smooth is None else self.smooth.summary(self.depsgraph is not None),
            conditioning=self._conditioning(),
            ignored=tuple(c.name for c in self.rig.constraints if c.weight == 0.0),
            mechanism=self.mechanism.summary if self.mechanism.active else None,
        )

    def _conditioning(self) -> ConditioningReadout | None:
        """The read-out of the last frame's solved pose (computed when first drawn)."""
        if self.last_result is None:
            return None
        label = f"Conditioning at frame {self.frames[-1]}"
        return ConditioningReadout(self.last_result, tuple(self.rig.solved.values()), label)

    def _reasons(self) -> dict[str, str]:
        """Why playback misses what the solve reached, per such constraint: the animation
        that plays over its baked chain, else what in the rig the model leaves out."""
        out = {}
        baked = {(path, index): bone for path, index, bone in self.channels}
        to_strip = self.target.kind == "NEW_STRIP"
        for spec in self.rig.specs:
            measured, modelled = self.measured.get(spec.name), self.modelled.get(spec.name)
            if measured and modelled and modelled[2] and not measured[2]:
                out[spec.name] = played_over(self.obj, spec.bone, baked, to_strip) or explain(
                    self.obj, spec, self.rig.solved
                )
        return out


def bake(obj: Object, settings: ReachSettings, frames: Sequence[int], mode: str = "REPLACE",
         progress: Callable[[int, int], None] | None = None, *, scene: Scene,
         only_selected: bool = False, depsgraph: Depsgraph | None = None,
         time_limit: float = TIME_LIMIT, target: str = "CURRENT",
         bones: Collection[str] | None = None,
         method: str | None = None, smooth: float | None = None,
         batched: bool = True) -> BakeReport:  # fmt: skip
    """Bake ``frames`` in one go; ``progress(done, total)`` is called after every step.

    Arguments as for :class:`BakeJob`. Any exception (from the bake or from ``progress``)
    restores the scene; Reach's and others are raised as :class:`BakeError`.
    """
    job = BakeJob(obj, settings, frames, mode, scene=scene, only_selected=only_selected,
                  depsgraph=depsgraph, time_limit=time_limit, target=target,
                  bones=bones, method=method, smooth=smooth, batched=batched)  # fmt: skip
    try:
        while not job.done:
            job.step()
            if progress is not None:
                progress(job.index, job.total)
    except BakeError:
        raise
    except Exception as exc:
        job._fail(exc, f" stopped at frame {job.frame}", job.frame)
    return job.finish()
