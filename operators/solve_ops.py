"""Solve at the current frame: write the pose (and optionally keys on the solved channels)."""

from __future__ import annotations

import bpy
from bpy.props import BoolProperty

from .. import solver
from ..bridge import keys
from ..bridge.playback import builtin_ik
from ..bridge.rig import RigError, build_rig, solver_options
from . import common


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
        return common.armature_of(context) is not None

    def execute(self, context: bpy.types.Context) -> set[str]:
        obj = common.armature_of(context)
        settings = obj.reach_ik
        try:
            rig = build_rig(obj, settings)
            engine = solver.Solver(rig.figure, rig.constraints, **solver_options(settings))
            result = engine.solve(rig.initial())
        except (RigError, solver.ReachError) as exc:
            self.report({"ERROR"}, str(exc))
            return {"CANCELLED"}
        rig.apply(result)
        channels = rig.channels()
        rig.write_pose(channels)
        n_keys = 0
        if self.insert_keys:
            frame = float(context.scene.frame_current)
            data = {
                key: ([frame], [keys.channel_value(channels, *key)])
                for key in keys.solved_channels(rig)
            }
            n_keys = keys.write_keys(obj, data, (frame, frame), "LAYER")
        worst = {r.name: (r.distance, r.angle, r.satisfied) for r in result.residuals}
        names = [c.name for c in rig.constraints]
        status = result.message if result.success else f"Unreachable: {result.message}"
        n_dof = len(rig.figure.coordinate_names)
        ok = common.store_result(settings, names, worst, status, result.nit, result.time, n_dof)
        summary = (
            f"Reach: {len(names)} constraints, {len(rig.solved)} bones, {n_dof} DOF, "
            f"{result.nit} iterations, {result.time * 1000.0:.1f} ms"
            + (f", {n_keys} keys" if self.insert_keys else "")
        )
        notes = "".join(f"\n  note: {n}" for n in rig.notes)
        ik = builtin_ik(rig)
        if ik:
            notes += f"\n  note: {len(ik)} built-in IK constraint(s) still override these bones"
        if ok:
            self.report({"INFO"}, f"{summary}; all goals reached{notes}")
        else:
            self.report(
                {"WARNING"},
                f"{summary}; some goals are unreachable (closest pose kept):\n"
                f"{common.residual_text(worst)}{notes}",
            )
        return {"FINISHED"}


classes = (REACH_OT_solve,)
