"""Bake a frame range, and clear baked keys.

The bake solves frame by frame through one reusable ``solver.Solver``, each frame warm-started
from the previous solution; targets may be animated. Solutions are collected in memory and
the keys are written in bulk only once every frame is solved, so:

* on success, keys are written on the solved channels only, inside the range (see
  :mod:`.keys` for REPLACE vs LAYER); nothing else of the user's animation changes;
* on cancel (ESC) or on an error at some frame, nothing at all is written: the action, the
  pose and the current frame are as they were.

Blender's own IK constraints on the solved bones are muted while baking and restored after.
"""

from __future__ import annotations

import time

import bpy
import numpy as np
from bpy.props import BoolProperty, EnumProperty, IntProperty

from .. import solver
from ..bridge import keys
from ..bridge.rig import RigError, build_rig, solver_options
from . import common

BAKE_MODES = (
    ("REPLACE", "Replace", "Remove the solved channels' keys inside the range, then key"),
    ("LAYER", "Layer", "Keep existing keys; only keys on baked frames are overwritten"),
)


class BakeJob:
    """A bake in progress: :meth:`step` solves one frame, then :meth:`finish` or :meth:`cancel`."""

    def __init__(self, context: bpy.types.Context, obj: bpy.types.Object, frames: list[int],
                 only_selected: bool, mode: str) -> None:  # fmt: skip
        self.scene = context.scene
        self.obj = obj
        self.frames = frames
        self.mode = mode
        self.original_frame = self.scene.frame_current
        self.index = 0
        self.worst: dict = {}
        self.nit = 0
        self.solve_seconds = 0.0
        self.clock = time.perf_counter()
        self.scene.frame_set(frames[0])
        try:
            self.rig = build_rig(obj, obj.reach_ik, only_selected)
            self.solver = solver.Solver(
                self.rig.figure, self.rig.constraints, **solver_options(obj.reach_ik)
            )
        except Exception:
            self.scene.frame_set(self.original_frame)
            raise
        self.muted = common.builtin_ik_on(self.rig)
        for con in self.muted:
            con.mute = True
        self.channels = common.solved_channels(self.rig)
        self.values = np.zeros((len(self.channels), len(frames)))
        self.previous: dict | None = None

    @property
    def done(self) -> bool:
        """Whether every frame is solved."""
        return self.index >= len(self.frames)

    def step(self) -> None:
        """Solve the next frame (raises RigError / solver.ReachError on bad input)."""
        rig = self.rig
        frame = self.frames[self.index]
        if self.index > 0:
            self.scene.frame_set(frame)
            rig.read_pose(solved_too=False)
            rig.push_rest()
            rig.update_targets()
        result = self.solver.solve(rig.initial())
        rig.apply(result)
        channels = rig.channels(self.previous)
        self.previous = {name: rot for name, (rot, _loc) in channels.items()}
        for row, key in enumerate(self.channels):
            self.values[row, self.index] = common.channel_value(rig, channels, *key)
        common.merge_residuals(self.worst, result.residuals)
        self.nit += result.nit
        self.solve_seconds += result.time
        self.index += 1

    def _restore(self) -> None:
        for con in self.muted:
            con.mute = False
        self.scene.frame_set(self.original_frame)

    def cancel(self) -> None:
        """Stop without writing anything; restore the frame and muted IK constraints."""
        self._restore()

    def finish(self) -> int:
        """Write all keys in bulk, restore the scene state; return the number of keys."""
        frames = np.array(self.frames, dtype=float)
        data = {key: (frames, self.values[row]) for row, key in enumerate(self.channels)}
        n = keys.write_keys(self.obj, data, (frames[0], frames[-1]), self.mode)
        self._restore()
        return n

    def summary(self) -> tuple[str, bool]:
        """Store the outcome on the armature; return (report text, all satisfied)."""
        settings = self.obj.reach_ik
        names = [c.name for c in self.rig.constraints]
        elapsed = time.perf_counter() - self.clock
        n_dof = len(self.rig.figure.coordinate_names)
        per_frame = self.solve_seconds / max(self.index, 1)
        ok = common.store_result(settings, names, self.worst, "", self.nit, per_frame, n_dof)
        settings.status = (
            f"Baked {self.index} frames" if ok else f"Baked {self.index} frames; some unreached"
        )
        text = (
            f"Reach: baked {self.index} frames ({self.frames[0]}..{self.frames[-1]}) of "
            f"{len(names)} constraints, {n_dof} DOF, {len(self.channels)} channels in "
            f"{elapsed:.2f} s "
            f"({self.index / max(elapsed, 1e-9):.0f} frames/s)\n{common.residual_text(self.worst)}"
            + "".join(f"\n  note: {n}" for n in self.rig.notes)
        )
        return text, ok


class REACH_OT_bake(bpy.types.Operator):
    """Solve every frame of a range and key the solved channels (ESC cancels, writing nothing)"""

    bl_idname = "reach.bake"
    bl_label = "Bake Reach"
    bl_options = {"REGISTER", "UNDO"}

    #: Seconds of solving per timer event in the modal bake (at least one frame each).
    time_slice = 0.05

    use_scene_range: BoolProperty(name="Scene Range", default=True)
    frame_start: IntProperty(name="Start", default=1)
    frame_end: IntProperty(name="End", default=250)
    frame_step: IntProperty(name="Step", default=1, min=1)
    only_selected: BoolProperty(
        name="Only Selected Constraints",
        description="Bake only constraints whose Select box is ticked",
        default=False,
    )
    mode: EnumProperty(name="Existing Keys", items=BAKE_MODES, default="REPLACE")

    _job: BakeJob | None = None
    _timer = None

    @classmethod
    def poll(cls, context: bpy.types.Context) -> bool:
        return common.armature_of(context) is not None

    def _frames(self, scene: bpy.types.Scene) -> list[int]:
        start, end = (
            (scene.frame_start, scene.frame_end)
            if self.use_scene_range
            else (self.frame_start, self.frame_end)
        )
        return list(range(start, end + 1, self.frame_step))

    def _start(self, context: bpy.types.Context) -> BakeJob | None:
        frames = self._frames(context.scene)
        if not frames:
            self.report({"ERROR"}, "Reach bake: the frame range is empty")
            return None
        try:
            return BakeJob(
                context, common.armature_of(context), frames, self.only_selected, self.mode
            )
        except (RigError, solver.ReachError) as exc:
            self.report({"ERROR"}, str(exc))
            return None

    def _fail(self, job: BakeJob, exc: Exception) -> set[str]:
        job.cancel()
        frame = job.frames[min(job.index, len(job.frames) - 1)]
        self.report({"ERROR"}, f"Reach bake stopped at frame {frame}, nothing written: {exc}")
        return {"CANCELLED"}

    def _done(self, job: BakeJob) -> set[str]:
        n_keys = job.finish()
        text, ok = job.summary()
        self.report({"INFO"} if ok else {"WARNING"}, f"{text}\n  {n_keys} keys written")
        return {"FINISHED"}

    def execute(self, context: bpy.types.Context) -> set[str]:
        job = self._start(context)
        if job is None:
            return {"CANCELLED"}
        wm = context.window_manager
        wm.progress_begin(0, len(job.frames))
        try:
            while not job.done:
                job.step()
                wm.progress_update(job.index)
        except (RigError, solver.ReachError) as exc:
            return self._fail(job, exc)
        finally:
            wm.progress_end()
        return self._done(job)

    def invoke(self, context: bpy.types.Context, event: bpy.types.Event) -> set[str]:
        if context.window is None:  # no event loop (background): bake in one go
            return self.execute(context)
        job = self._start(context)
        if job is None:
            return {"CANCELLED"}
        self._job = job
        wm = context.window_manager
        wm.progress_begin(0, len(job.frames))
        self._timer = wm.event_timer_add(0.001, window=context.window)
        wm.modal_handler_add(self)
        return {"RUNNING_MODAL"}

    def _end_modal(self, context: bpy.types.Context) -> None:
        wm = context.window_manager
        wm.event_timer_remove(self._timer)
        wm.progress_end()

    def modal(self, context: bpy.types.Context, event: bpy.types.Event) -> set[str]:
        job = self._job
        if event.type == "ESC":
            self._end_modal(context)
            job.cancel()
            self.report({"WARNING"}, f"Reach bake cancelled at frame {job.index}: nothing written")
            return {"CANCELLED"}
        if event.type != "TIMER":
            return {"PASS_THROUGH"}
        deadline = time.perf_counter() + self.time_slice  # keep the UI responsive
        try:
            job.step()
            while not job.done and time.perf_counter() < deadline:
                job.step()
        except (RigError, solver.ReachError) as exc:
            self._end_modal(context)
            return self._fail(job, exc)
        context.window_manager.progress_update(job.index)
        if not job.done:
            return {"RUNNING_MODAL"}
        self._end_modal(context)
        return self._done(job)


class REACH_OT_clear_keys(bpy.types.Operator):
    """Remove keys of the solved channels inside a frame range"""

    bl_idname = "reach.clear_keys"
    bl_label = "Clear Reach Keys"
    bl_options = {"REGISTER", "UNDO"}

    use_scene_range: BoolProperty(name="Scene Range", default=True)
    frame_start: IntProperty(name="Start", default=1)
    frame_end: IntProperty(name="End", default=250)
    only_selected: BoolProperty(name="Only Selected Constraints", default=False)

    @classmethod
    def poll(cls, context: bpy.types.Context) -> bool:
        return common.armature_of(context) is not None

    def execute(self, context: bpy.types.Context) -> set[str]:
        obj = common.armature_of(context)
        scene = context.scene
        start, end = (
            (scene.frame_start, scene.frame_end)
            if self.use_scene_range
            else (self.frame_start, self.frame_end)
        )
        try:
            rig = build_rig(obj, obj.reach_ik, self.only_selected)
        except (RigError, solver.ReachError) as exc:
            self.report({"ERROR"}, str(exc))
            return {"CANCELLED"}
        channels = [(path, index) for path, index, _group in common.solved_channels(rig)]
        removed = keys.clear_keys(obj, channels, (float(start), float(end)))
        self.report(
            {"INFO"},
            f"Reach: removed {removed} keys from {len(channels)} channels ({start}..{end})",
        )
        return {"FINISHED"}


classes = (REACH_OT_bake, REACH_OT_clear_keys)
