"""Bake a frame range, and clear baked keys: thin operators over :mod:`..bridge.bake`.

Start pose: the first frame is solved from the rest pose of the solved channels, each later
frame from the previous frame's solution, so a bake writes the same keys however often it is
run (current pose, earlier keys and save / reload make no difference); a bake of part of a
keyed range starts from the pose the keys give, so it joins them (:mod:`..bridge.bake_join`).
Any error, or ESC in the modal bake (:class:`.modal_job.ModalJob`), restores keys, action,
muted IK constraints, frame and pose: nothing is written. A bake of several armatures as one
system (:mod:`..bridge.joined.bake`) runs modally the same way, ESC putting every armature back.
Details in :mod:`..bridge.bake` and docs/baking.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import bpy
from bpy.props import BoolProperty, EnumProperty, FloatProperty, IntProperty

from ..bridge.bake import baking
from ..bridge.bake.baking import BakeError, BakeJob, BakeReport, describe
from ..bridge.blender import compat
from ..bridge.joined.together import (
    JoinedBakeJob,
    bake_together,
    keep_reports,
    start_bake_together,
)
from ..bridge.session import last_report
from ..bridge.write import keys
from ..props.methods import method_items
from . import common
from .modal_job import ModalJob

BAKE_MODES = (
    ("REPLACE", "Replace", "Remove the solved channels' keys inside the range, then key"),
    ("LAYER", "Layer", "Keep existing keys; only keys on baked frames are overwritten"),
)

BAKE_TARGETS = (
    ("CURRENT", "Current Action", "Key the solved channels in the armature's action"),
    ("NEW_ACTION", "New Action", "Key a copy of the armature's action and assign the copy; "
     "the original action is left as it was"),
    ("NEW_STRIP", "New NLA Strip", "Key a new action of the baked channels only, placed as a "
     "strip on a new NLA track; the current action is left as it was"),
)  # fmt: skip

#: The bake's ``method`` that means "the armature's *Method* setting".
ARMATURE_METHOD = "ARMATURE"
BAKE_METHODS = (
    (ARMATURE_METHOD, "Armature's Method", "The Method of the armature's Solver settings",
     "NONE", -1),
    *method_items(),
)  # fmt: skip

if TYPE_CHECKING:
    from bpy._typing.rna_enums import OperatorReturnItems


#: The job of a modal bake: of one armature, or of several as one system.
AnyBakeJob = BakeJob | JoinedBakeJob


class REACH_OT_bake(common.JoinsArmatures, ModalJob[AnyBakeJob], bpy.types.Operator):
    """Key the solved channels over a frame range (a part of a keyed range joins the keys)"""

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
    target: EnumProperty(name="Bake To", items=BAKE_TARGETS, default="CURRENT")
    only_selected_bones: BoolProperty(
        name="Only Selected Bones",
        description="Key only the selected bones' solved channels (the solve still moves the "
        "whole chain; other bones play their own animation); when not given, the armature's "
        "Only Selected Bones setting (Reach panel)",
        default=False,
        options={"SKIP_SAVE"},  # else the last call's value would count as given
    )
    method: EnumProperty(
        name="Method",
        description="Solve method of this bake only (the armature's Method setting is left "
        "as it is)",
        items=BAKE_METHODS,
        default=ARMATURE_METHOD,
        options={"SKIP_SAVE"},  # each bake starts from the armature's method
    )
    smooth: BoolProperty(
        name="Smooth",
        description="Bound every solved joint's change per frame by Largest Change (a frame "
        "the bound holds can miss its target; the report counts them); when not given, the "
        "armature's Smooth setting (Reach panel)",
        default=False,
        options={"SKIP_SAVE"},  # else the last call's value would count as given
    )
    max_change: FloatProperty(
        name="Largest Change",
        description="Largest change of a solved joint per frame of a Smooth bake: degrees for "
        "rotations, scene units for a solved location channel; when not given, the "
        "armature's Largest Change setting",
        default=10.0,
        min=1e-3,
        soft_max=180.0,
        options={"SKIP_SAVE"},
    )
    time_limit: FloatProperty(
        name="Time per Frame",
        description="Longest solve of one frame (seconds); a frame that hits it keeps the best "
        "pose found and is named in the report",
        default=baking.TIME_LIMIT,
        min=0.001,
        soft_max=60.0,
    )
    batched: BoolProperty(
        name="Batched",
        description="Solve the frames after the first in batches where the rig allows it "
        "(faster; anchors every few frames by the bake's method, the frames between them at "
        "once by damped least squares); off: one frame after another",
        default=True,
        options={"SKIP_SAVE"},
    )
    all_selected: BoolProperty(
        name="All Selected Armatures",
        description=(
            "Bake every selected armature that has Reach constraints in one system with the "
            "active one (armatures whose constraints target each other's bones always are)"
        ),
        default=False,
    )

    @classmethod
    def poll(cls, context: bpy.types.Context) -> bool:
        return common.poll_constraints(cls, context)

    def _frames(self, scene: bpy.types.Scene) -> list[int]:
        start, end = (
            (scene.frame_start, scene.frame_end)
            if self.use_scene_range
            else (self.frame_start, self.frame_end)
        )
        return list(range(start, end + 1, self.frame_step))

    def _only_selected_bones(self, obj: bpy.types.Object) -> bool:
        """The ``only_selected_bones`` option when the caller gave it, else the armature's
        *Only Selected Bones* checkbox (the panel, the menu and Bake To never give it)."""
        if self.properties.is_property_set("only_selected_bones"):
            return self.only_selected_bones
        return common.settings_of(obj).bake_only_selected_bones

    def _smooth(self, obj: bpy.types.Object) -> float | None:
        """The largest joint change per frame of a Smooth bake (degrees; scene units for
        locations), None when not smooth: the options when given, else the armature's."""
        settings = common.settings_of(obj)
        given = self.properties.is_property_set
        smooth = self.smooth if given("smooth") else settings.bake_smooth
        change = self.max_change if given("max_change") else settings.bake_max_change
        return float(change) if smooth else None

    def _method(self) -> str | None:
        """The solver method chosen for this bake, None for the armature's own."""
        return None if self.method == ARMATURE_METHOD else self.method

    def _unsupported(self, obj: bpy.types.Object) -> list[str]:
        """The options given that a bake of several armatures does not offer (named)."""
        return [name for name, given in (
            ("Bake To", self.target != "CURRENT"), ("Smooth", self._smooth(obj) is not None),
            ("Only Selected Constraints", self.only_selected),
            ("Only Selected Bones", self._only_selected_bones(obj)),
            ("Method", self._method() is not None),
        ) if given]  # fmt: skip

    def _start_job(self, context: bpy.types.Context) -> AnyBakeJob | None:
        group = self._group(context)
        if len(group) > 1:
            try:
                return start_bake_together(
                    group, self._frames(context.scene), self.mode, context.scene,
                    context.evaluated_depsgraph_get(), self.time_limit,
                    self._unsupported(group[0]),
                )  # fmt: skip
            except Exception as exc:  # every armature was put back; no traceback for the user
                self.report({"ERROR"}, describe(exc))
                return None
        obj = common.active_armature(context)
        bones = None
        if self._only_selected_bones(obj):
            bones = {pb.name for pb in obj.pose.bones if compat.pose_bone_selected(pb)}
        try:
            return BakeJob(obj, common.settings_of(obj), self._frames(context.scene), self.mode,
                           scene=context.scene, only_selected=self.only_selected,
                           depsgraph=context.evaluated_depsgraph_get(),
                           time_limit=self.time_limit, target=self.target,
                           bones=bones, method=self._method(),
                           smooth=self._smooth(obj), batched=self.batched)  # fmt: skip
        except Exception as exc:  # the job restored what it touched; no traceback for the user
            self.report({"ERROR"}, describe(exc))
            return None

    def _fail(self, job: AnyBakeJob, exc: Exception) -> set[OperatorReturnItems]:
        job.cancel()  # a no-op when the job already restored the scene itself
        return self._report_failure(job, exc)

    def _done(self, job: AnyBakeJob) -> set[OperatorReturnItems]:
        if isinstance(job, JoinedBakeJob):
            joined = job.finish()
            keep_reports(job.objects, joined)
            common.report(self, {"INFO"} if joined.satisfied else {"WARNING"}, joined.text())
            return {"FINISHED"}
        report = job.finish()
        self._store(job.obj, report)
        common.report(self, {"INFO"} if report.satisfied else {"WARNING"}, report.text())
        return {"FINISHED"}

    def _store(self, obj: bpy.types.Object, report: BakeReport) -> None:
        last_report.store(obj, report)  # runtime only: never into the (overridable) ID data

    def execute(self, context: bpy.types.Context) -> set[OperatorReturnItems]:
        group = self._group(context)
        if len(group) > 1:  # in one go (no window, or called from Python)
            return common.run(
                self,
                lambda: bake_together(
                    group, self._frames(context.scene), self.mode, context.scene,
                    context.evaluated_depsgraph_get(), self.time_limit,
                    self._unsupported(group[0]),
                ),
            )  # fmt: skip
        job = self._start_job(context)
        if job is None:
            return {"CANCELLED"}
        try:
            self._run_to_end(context, job)
            return self._done(job)
        except Exception as exc:
            return self._fail(job, exc)

    # ------------------------------------------------------------------ the modal bake
    def _progress(self, job: AnyBakeJob) -> tuple[int, int]:
        return job.index, job.total

    def _status_text(self, job: AnyBakeJob) -> str:
        return f"{job.progress_text()}; ESC cancels"

    def _cancelled_text(self, job: AnyBakeJob) -> str:
        if isinstance(job, JoinedBakeJob):
            return (
                f"Reach bake of {job.names} cancelled at frame {job.frame}: nothing written, "
                "every armature as it was"
            )
        return f"Reach bake cancelled at frame {job.frame}: nothing written"

    def _report_failure(self, job: AnyBakeJob, exc: Exception) -> set[OperatorReturnItems]:
        text = str(exc) if isinstance(exc, BakeError) else (
            f"Reach bake stopped at frame {job.frame}, nothing written: {describe(exc)}"
        )  # fmt: skip
        self.report({"ERROR"}, text)
        return {"CANCELLED"}

    def _finish_job(self, job: AnyBakeJob) -> set[OperatorReturnItems]:
        try:
            return self._done(job)
        except Exception as exc:  # finish() restored the scene; the report says why
            return self._fail(job, exc)


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
        return common.poll_constraints(cls, context)

    def execute(self, context: bpy.types.Context) -> set[OperatorReturnItems]:
        obj = common.active_armature(context)
        scene = context.scene
        start, end = (
            (scene.frame_start, scene.frame_end)
            if self.use_scene_range
            else (self.frame_start, self.frame_end)
        )
        frame_range = (float(start), float(end))
        return common.run(
            self,
            lambda: keys.clear_solved_keys(
                obj, common.settings_of(obj), frame_range, self.only_selected
            ),
        )


classes = (REACH_OT_bake, REACH_OT_clear_keys)
