"""Solve at the current frame: write the pose (and optionally keys on the solved channels).

From a button or key the Solve runs modally: one step per timer event (the first solve, then
each correction pass, :class:`..bridge.frame_solve.FrameSolve`), the status bar says which,
and ESC between steps puts the pose back as it was (no key is written before the last step)
with no undo step (the modal run: :class:`.modal_job.ModalJob`). Called from Python, or
without a window, it runs in one go.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import bpy
from bpy.props import BoolProperty

from .. import solver
from ..bridge.joined.together import solve_together
from ..bridge.session.kept import session_for
from ..bridge.solve.frame_solve import MAX_PASSES, FrameSolve
from . import common
from .modal_job import ModalJob

if TYPE_CHECKING:
    from bpy._typing.rna_enums import OperatorReturnItems

#: The operator's report when ESC stopped a Solve.
CANCELLED_TEXT = "Solve cancelled: pose restored"


class REACH_OT_solve(common.JoinsArmatures, ModalJob[FrameSolve], bpy.types.Operator):
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
    def _start_job(self, context: bpy.types.Context) -> FrameSolve | None:
        obj = common.active_armature(context)
        try:
            session = session_for(obj, common.settings_of(obj), context.scene, context.view_layer)
        except solver.ReachError as exc:
            self.report({"ERROR"}, f"Reach: {exc}")
            return None
        session.mark_stale()  # the first step runs at a later event: the scene is read then
        return session.frame_solve(self.insert_keys, context.scene.frame_current)

    def _progress(self, job: FrameSolve) -> tuple[int, int]:
        return job.passes + 1, MAX_PASSES + 1  # the first solve, then the correction passes

    def _status_text(self, job: FrameSolve) -> str:
        return f"{job.progress_text()}, ESC cancels"

    def _cancelled_text(self, job: FrameSolve) -> str:
        return CANCELLED_TEXT

    def _report_failure(self, job: FrameSolve, exc: Exception) -> set[OperatorReturnItems]:
        if not isinstance(exc, solver.ReachError):
            raise exc  # a defect, not the user's: the traceback shows (the pose is restored)
        self.report({"ERROR"}, f"Reach: {exc}")
        return {"CANCELLED"}

    def _finish_job(self, job: FrameSolve) -> set[OperatorReturnItems]:
        return common.run(self, job.run, keep_for=job.session.obj)  # run(): the report, done


classes = (REACH_OT_solve,)
