"""Solve at the current frame: write the pose (and optionally keys on the solved channels)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import bpy
from bpy.props import BoolProperty

from ..bridge.session_cache import session_for
from . import common

if TYPE_CHECKING:
    from bpy._typing.rna_enums import OperatorReturnItems


class REACH_OT_solve(bpy.types.Operator):
    """Solve all enabled Reach constraints of the active armature at the current frame"""

    bl_idname = "reach.solve"
    bl_label = "Solve"
    bl_options = {"REGISTER", "UNDO"}

    insert_keys: BoolProperty(
        name="Insert Keys",
        description="Key the solved channels (only those) at the current frame",
        default=False,
    )

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


classes = (REACH_OT_solve,)
