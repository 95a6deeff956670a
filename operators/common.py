"""Helpers shared by the operators: the active armature, running a bridge action and
turning its report or error into the operator report, a new empty at a bone's tail."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import bpy

from .. import solver
from ..bridge.blender import busy_armatures
from ..bridge.blender.editable import why_not_editable
from ..bridge.edit.constraint_list import NothingToDoError
from ..bridge.joined.bake import JoinedBakeReport
from ..bridge.joined.solve import JoinedReport
from ..bridge.joined.together import group_of
from ..bridge.session import last_report
from ..props.access import armature_data as armature_data  # re-exported for the operators
from ..props.access import settings_of as settings_of  # re-exported for the operators

if TYPE_CHECKING:
    from bpy._typing.rna_enums import OperatorReturnItems, WmReportItems

    from ..bridge.measure.frame_report import FrameReport


#: Poll messages (Blender shows them in the tooltip of a greyed-out button or menu entry).
NO_ARMATURE = "Select an armature (active object) to use Reach"
NO_CONSTRAINTS = "Add a Reach constraint first (Reach panel › +, or Pose › Reach › Add Constraint)"
BUSY = "Reach is solving or baking this armature now (ESC cancels it)"
#: The reports of a Solve or bake over several armatures (each armature's part is kept already).
JOINED = JoinedReport | JoinedBakeReport
#: Characters of one report Blender shows whole: it prints a longer one cut after 1,021
#: characters, then "... truncated" (measured on bpy 4.2 and 5.0.1; issue 18 saw the cut in
#: the report itself).
REPORT_LIMIT = 1000


def armature_of(context: bpy.types.Context) -> bpy.types.Object | None:
    """The active object when it is an armature, else None."""
    obj = context.active_object
    return obj if obj is not None and obj.type == "ARMATURE" else None


def active_armature(context: bpy.types.Context) -> bpy.types.Object:
    """The active armature object, which :func:`poll_editable` has checked is there."""
    obj = armature_of(context)
    assert obj is not None, "the operator's poll checks for an active armature"
    return obj


def poll_editable(operator: type[bpy.types.Operator], context: bpy.types.Context) -> bool:
    """Poll of every operator that writes to the armature: one Reach may edit.

    A linked armature without a library override fails the poll with the reason as its
    poll message, so the operator is greyed out and a call from Python raises it.
    """
    obj = armature_of(context)
    if obj is None:
        operator.poll_message_set(NO_ARMATURE)
        return False
    reason = why_not_editable(obj)
    if reason is not None:
        operator.poll_message_set(reason)
        return False
    return True


def poll_constraints(operator: type[bpy.types.Operator], context: bpy.types.Context) -> bool:
    """Poll of the operators that need constraints (solve, bake, clear, remove, move):
    :func:`poll_editable`, the armature has at least one Reach constraint, and no modal Solve
    or bake is working on it (:mod:`..bridge.busy`)."""
    if not poll_editable(operator, context):
        return False
    obj = active_armature(context)
    if not settings_of(obj).constraints:
        operator.poll_message_set(NO_CONSTRAINTS)
        return False
    if busy_armatures.is_busy(
        obj
    ):  # a modal Solve or bake runs on it: a second job would interleave
        operator.poll_message_set(BUSY)
        return False
    return True


def run(operator: bpy.types.Operator, action: Callable[[], str | FrameReport | JOINED],
        keep_for: bpy.types.Object | None = None) -> set[OperatorReturnItems]:  # fmt: skip
    """Run a bridge action and turn its outcome or its error into the operator's report.

    ``action`` returns either a sentence (a list edit: reported as info) or a solve's
    ``FrameReport`` (kept for the panel as ``keep_for``'s last result, reported as info when
    satisfied, else as a warning). ``NothingToDoError`` becomes a
    warning, any other ``ReachError`` (every ``RigError`` is one) an error; both return
    ``{'CANCELLED'}`` with nothing changed.
    """
    try:
        outcome = action()
    except NothingToDoError as exc:
        report(operator, {"WARNING"}, f"Reach: {exc}")
        return {"CANCELLED"}
    except solver.ReachError as exc:
        report(operator, {"ERROR"}, f"Reach: {exc}")
        return {"CANCELLED"}
    if isinstance(outcome, str):
        report(operator, {"INFO"}, f"Reach: {outcome}")
        return {"FINISHED"}
    if keep_for is not None and not isinstance(outcome, JOINED):  # a join keeps its own
        last_report.store(keep_for, outcome)
    report(operator, {"INFO"} if outcome.satisfied else {"WARNING"}, outcome.text())
    return {"FINISHED"}


def report(operator: bpy.types.Operator, kind: set[WmReportItems], text: str) -> None:
    """Report ``text`` (lines) whole: as one report when it fits :data:`REPORT_LIMIT`, else as
    several in order, each a run of whole lines that fits (the Info log shows them all; a
    single longer line is cut there, with "...")."""
    chunk: list[str] = []
    size = 0
    for line in text.splitlines() or [""]:
        if len(line) > REPORT_LIMIT:
            line = line[: REPORT_LIMIT - 3] + "..."
        if chunk and size + len(line) > REPORT_LIMIT:
            operator.report(kind, "\n".join(chunk))
            chunk, size = [], 0
        chunk.append(line)
        size += len(line) + 1  # and its newline
    operator.report(kind, "\n".join(chunk))


def joined_armatures(context: bpy.types.Context, all_selected: bool) -> list[bpy.types.Object]:
    """The armatures a Solve or bake of the active armature joins: it alone unless its
    constraints link it to others, or ``all_selected`` adds every selected armature."""
    selected = context.selected_objects if all_selected else ()
    return group_of(active_armature(context), context.view_layer, selected)


class JoinsArmatures:
    """Mixin of the Solve and Bake operators (listed before :class:`.modal_job.ModalJob`): the
    armatures the run joins. A run over several is modal too (the operator's ``_start_job``
    makes their job).

    The operator declares ``all_selected`` (a BoolProperty: join every selected armature).
    """

    all_selected: bool

    def _group(self, context: bpy.types.Context) -> list[bpy.types.Object]:
        """The armatures this run joins (:func:`joined_armatures`)."""
        return joined_armatures(context, self.all_selected)
