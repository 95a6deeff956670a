"""Reach Envelope: show where a constraint's end-effector can reach, the others holding.

The samples are solved by :class:`..bridge.envelope.reach_map.EnvelopeJob` (modally from a
button: progress, ESC between steps), the object made by :mod:`..bridge.envelope.cloud`.
Nothing of the armature changes; the new object is the one undo step.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import bpy
from bpy.props import BoolProperty, EnumProperty, IntProperty, StringProperty

from .. import solver
from ..bridge.envelope.cloud import make_cloud
from ..bridge.envelope.reach_map import EFFORTS, EnvelopeJob
from . import common
from .modal_job import ModalJob

if TYPE_CHECKING:
    from bpy._typing.rna_enums import OperatorReturnItems


class REACH_OT_envelope(ModalJob[EnvelopeJob], bpy.types.Operator):
    """Show where the active constraint's end-effector can reach while the other enabled
    constraints hold (a point cloud coloured by effort; ESC cancels)"""

    bl_idname = "reach.envelope"
    bl_label = "Reach Envelope"
    bl_options = {"REGISTER", "UNDO"}

    time_slice = 0.05

    resolution: IntProperty(
        name="Resolution", default=21, min=3, soft_max=41, max=101,
        description="Samples along each axis of the cube around the chain (those inside the "
        "ball the chain can span are solved)",
    )  # fmt: skip
    effort: EnumProperty(
        name="Effort",
        items=[(key, label, text) for key, (label, text) in EFFORTS.items()],
        default="MOTION",
    )
    orientation: BoolProperty(
        name="Require Orientation", default=False,
        description="The end-effector must also hold the target's current orientation "
        "(e.g. palm down) at every point",
    )  # fmt: skip
    constraint: StringProperty(
        name="Constraint", description="Reach constraint whose end-effector is mapped "
        "(default: the active one)",
    )  # fmt: skip

    _started = 0.0

    @classmethod
    def poll(cls, context: bpy.types.Context) -> bool:
        return common.poll_constraints(cls, context)

    def execute(self, context: bpy.types.Context) -> set[OperatorReturnItems]:
        job = self._start_job(context)
        if job is None:
            return {"CANCELLED"}
        try:
            self._run_to_end(context, job)
        except solver.ReachError as exc:
            self.report({"ERROR"}, f"Reach: {exc}")
            return {"CANCELLED"}
        return self._finish_job(job)

    # ------------------------------------------------------------------ the modal run
    def _start_job(self, context: bpy.types.Context) -> EnvelopeJob | None:
        obj = common.active_armature(context)
        settings = common.settings_of(obj)
        name = self.constraint
        if not name:
            if not 0 <= settings.active_index < len(settings.constraints):
                self.report({"ERROR"}, "Reach: no active constraint; pick one in the list")
                return None
            name = settings.constraints[settings.active_index].name
        try:
            job = EnvelopeJob(
                obj, settings, context.scene, context.view_layer, name,
                self.resolution, self.effort, self.orientation,
            )  # fmt: skip
        except solver.ReachError as exc:
            self.report({"ERROR"}, f"Reach: {exc}")
            return None
        self._started = time.perf_counter()
        return job

    def _progress(self, job: EnvelopeJob) -> tuple[int, int]:
        return job.index, job.total

    def _status_text(self, job: EnvelopeJob) -> str:
        return f"{job.progress_text()}; ESC cancels"

    def _cancelled_text(self, job: EnvelopeJob) -> str:
        return "Reach envelope cancelled: nothing made"

    def _report_failure(self, job: EnvelopeJob, exc: Exception) -> set[OperatorReturnItems]:
        if not isinstance(exc, solver.ReachError):
            raise exc
        self.report({"ERROR"}, f"Reach envelope stopped, nothing made: {exc}")
        return {"CANCELLED"}

    def _finish_job(self, job: EnvelopeJob) -> set[OperatorReturnItems]:
        context = bpy.context
        envelope = job.result()
        cloud = make_cloud(
            context.blend_data, context.collection, envelope, f"Envelope {envelope.constraint}"
        )
        seconds = time.perf_counter() - self._started
        if envelope.missed:
            names = ", ".join(f"'{name}'" for name in envelope.missed)
            self.report(
                {"WARNING"},
                f"Reach envelope of '{envelope.constraint}': nothing reached, {names} cannot "
                f"hold at this pose; object '{cloud.name}' is empty"
                + "".join(f"; note: {note}" for note in job.notes),
            )
            return {"FINISHED"}
        self.report(
            {"INFO"},
            f"Reach envelope of '{envelope.constraint}': {int(envelope.reached.sum())} of "
            f"{len(envelope.points)} samples reached (spacing {envelope.spacing:.4g}), "
            f"{seconds:.1f} s; object '{cloud.name}'"
            + "".join(f"; note: {note}" for note in job.notes),
        )
        return {"FINISHED"}


classes = (REACH_OT_envelope,)
