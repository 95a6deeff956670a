"""Solve at the current frame: write the pose (and optionally keys on the solved channels).

From a button or key the Solve runs modally: one step per timer event (the first solve, then
each correction pass, :class:`..bridge.frame_solve.FrameSolve`; for several armatures as one
system :class:`..bridge.joined.solve.JoinedSolve`), the status bar says which, and ESC between
steps puts the pose (every armature's) back as it was (no key is written before the last step)
with no undo step (the modal run: :class:`.modal_job.ModalJob`). Called from Python, or
without a window, it runs in one go.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import bpy
from bpy.props import BoolProperty

from .. import solver
from ..bridge.joined.together import (
    JoinedReport,
    JoinedSolve,
    keep_reports,
    solve_together,
    start_solve_together,
)
from ..bridge.session.kept import session_for
from ..bridge.solve.frame_solve import MAX_PASSES, FrameSolve
from . import common
from .modal_job import ModalJob

if TYPE_CHECKING:
    from bpy._typing.rna_enums import OperatorReturnItems

#: The operator's report when ESC stopped a Solve.
CANCELLED_TEXT = "Solve cancelled: pose restored"
#: The operator's report when ESC stopped a Solve of several armatures.
CANCELLED_JOINED_TEXT = "Solve cancelled: every armature's pose restored"
#: The job of a modal Solve: of one armature, or of several as one system.
AnySolve = FrameSolve | JoinedSolve


class REACH_OT_solve(common.JoinsArmatures, ModalJob[AnySolve], bpy.types.Operator):
    """Solve the active armature's enabled Reach constraints at this frame (ESC: pose restored)"""

    bl_idname = "reach.solve"
    bl_label = "Solve"
    bl_options = {"REGISTER", "UNDO"}

    insert_keys: BoolProperty(
        name="Insert Keys",
        description="Key the solved channels (only those) at the current frame",
        default=False,
    )
    all_selected: BoolProperty(
        name="All Selected Armatures",
        description=(
            "Solve every selected armature that has Reach constraints in one system with the "
            "active one (armatures whose constraints target each other's bones always are)"
        ),
        default=False,
    )

    @classmethod
    def poll(cls, context: bpy.types.Context) -> bool:
        return common.poll_constraints(cls, context)

    def execute(self, context: bpy.types.Context) -> set[OperatorReturnItems]:
        obj = common.active_armature(context)
        group = common.joined_armatures(context, self.all_selected)
        if len(group) > 1:
            return common.run(
                self,
                lambda: solve_together(
                    group, context.scene, context.view_layer, self.insert_keys,
                    context.scene.frame_current,
                ),
            )  # fmt: skip
        # The solve blocks the UI: the progress cursor says it is busy until it returns.
        wm = context.window_manager
        wm.progress_begin(0, 1)
        try:
            return common.run(
                self,
                lambda: session_for(
                    obj, common.settings_of(obj), context.scene, context.view_layer
                ).solve_frame(self.insert_keys, context.scene.frame_current),
                keep_for=obj,
            )
        finally:
            wm.progress_update(1)
            wm.progress_end()

    # ------------------------------------------------------------------ the modal Solve
    def _start_job(self, context: bpy.types.Context) -> AnySolve | None:
        group = self._group(context)
        if len(group) > 1:
            try:
                frame = context.scene.frame_current
                return start_solve_together(
                    group, context.scene, context.view_layer, self.insert_keys, frame
                )
            except solver.ReachError as exc:
                self.report({"ERROR"}, f"Reach: {exc}")
                return None
        obj = common.active_armature(context)
        try:
            session = session_for(obj, common.settings_of(obj), context.scene, context.view_layer)
        except solver.ReachError as exc:
            self.report({"ERROR"}, f"Reach: {exc}")
            return None
        session.mark_stale()  # the first step runs at a later event: the scene is read then
        return session.frame_solve(self.insert_keys, context.scene.frame_current)

    def _progress(self, job: AnySolve) -> tuple[int, int]:
        return job.passes + 1, MAX_PASSES + 1  # the first solve, then the correction passes

    def _status_text(self, job: AnySolve) -> str:
        return f"{job.progress_text()}, ESC cancels"

    def _cancelled_text(self, job: AnySolve) -> str:
        return CANCELLED_JOINED_TEXT if isinstance(job, JoinedSolve) else CANCELLED_TEXT

    def _report_failure(self, job: AnySolve, exc: Exception) -> set[OperatorReturnItems]:
        if not isinstance(exc, solver.ReachError):
            raise exc  # a defect, not the user's: the traceback shows (the pose is restored)
        self.report({"ERROR"}, f"Reach: {exc}")
        return {"CANCELLED"}

    def _finish_job(self, job: AnySolve) -> set[OperatorReturnItems]:
        if isinstance(job, JoinedSolve):
            objects = [member.obj for member in job.members]

            def finish() -> JoinedReport:
                report = job.run()  # the report, done
                keep_reports(objects, report)
                return report

            return common.run(self, finish)
        return common.run(self, job.run, keep_for=job.session.obj)  # run(): the report, done


classes = (REACH_OT_solve,)
