"""Solve at the current frame: write the pose (and optionally keys on the solved channels).

From a button or key the Solve runs modally: one step per timer event (the first solve, then
each correction pass, :class:`..bridge.frame_solve.FrameSolve`), the status bar says which,
and ESC between steps puts the pose back as it was (no key is written before the last step)
with no undo step. Called from Python, or without a window, it runs in one go.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import bpy
from bpy.props import BoolProperty

from .. import solver
from ..bridge.session.kept import session_for
from ..bridge.solve.frame_solve import MAX_PASSES, FrameSolve
from . import common, modal_timer

if TYPE_CHECKING:
    from bpy._typing.rna_enums import OperatorReturnItems

#: The operator's report when ESC stopped a Solve.
CANCELLED_TEXT = "Solve cancelled: pose restored"


class REACH_OT_solve(modal_timer.ModalTimer, bpy.types.Operator):
    """Solve the active armature's enabled Reach constraints at this frame (ESC: pose restored)"""

    bl_idname = "reach.solve"
    bl_label = "Solve"
    bl_options = {"REGISTER", "UNDO"}

    insert_keys: BoolProperty(
        name="Insert Keys",
        description="Key the solved channels (only those) at the current frame",
        default=False,
    )

    _job: FrameSolve | None = None

    @classmethod
    def poll(cls, context: bpy.types.Context) -> bool:
        return common.poll_constraints(cls, context)

    def execute(self, context: bpy.types.Context) -> set[OperatorReturnItems]:
        obj = common.active_armature(context)
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

    def invoke(
        self, context: bpy.types.Context, event: bpy.types.Event
    ) -> set[OperatorReturnItems]:
        if context.window is None:  # no event loop (background): solve in one go
            return self.execute(context)
        obj = common.active_armature(context)
        try:
            session = session_for(obj, common.settings_of(obj), context.scene, context.view_layer)
        except solver.ReachError as exc:
            self.report({"ERROR"}, f"Reach: {exc}")
            return {"CANCELLED"}
        session.mark_stale()  # the first step runs at a later event: the scene is read then
        job = session.frame_solve(self.insert_keys, context.scene.frame_current)
        self._job = job
        self._timer = modal_timer.begin(self, context, MAX_PASSES + 1,
                                        f"{job.progress_text()}, ESC cancels")  # fmt: skip
        return {"RUNNING_MODAL"}

    def modal(self, context: bpy.types.Context, event: bpy.types.Event) -> set[OperatorReturnItems]:
        job = self._job
        assert job is not None, "invoke() starts the solve before the modal handler runs"
        if event.type == "ESC":
            self._end_modal(context)
            job.cancel()
            self.report({"WARNING"}, CANCELLED_TEXT)
            return {"CANCELLED"}  # no undo step: the pose is as it was
        if event.type != "TIMER":
            return {"PASS_THROUGH"}
        try:
            done = job.step()
        except Exception as exc:
            self._end_modal(context)
            job.cancel()  # the pose as before the Solve, as for ESC: no undo step is made
            if not isinstance(exc, solver.ReachError):
                raise
            self.report({"ERROR"}, f"Reach: {exc}")
            return {"CANCELLED"}
        if not done:
            context.window_manager.progress_update(job.passes + 1)
            context.workspace.status_text_set(f"{job.progress_text()}, ESC cancels")
            return {"RUNNING_MODAL"}
        self._end_modal(context)
        return common.run(self, job.run, keep_for=job.session.obj)  # run(): the report, done


classes = (REACH_OT_solve,)
