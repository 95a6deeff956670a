"""Helpers shared by the operators: the active armature, result bookkeeping and text."""

from __future__ import annotations

from collections.abc import Callable

import bpy
import numpy as np
from mathutils import Matrix

from .. import solver
from ..bridge import results
from ..bridge.items import NothingToDoError
from ..bridge.rig import bone_world_matrix


def armature_of(context: bpy.types.Context) -> bpy.types.Object | None:
    """The active object when it is an armature, else None."""
    obj = context.active_object
    return obj if obj is not None and obj.type == "ARMATURE" else None


def run_and_report(operator: bpy.types.Operator, obj: bpy.types.Object,
                   action: Callable[[], object]) -> set[str]:  # fmt: skip
    """Run a bridge action; keep its report for the panel and show it, or show its error.

    ``action`` returns a report with ``satisfied`` and ``text()``; a ``ReachError`` (every
    ``RigError`` is one) becomes an error report and ``{'CANCELLED'}``.
    """
    try:
        report = action()
    except solver.ReachError as exc:
        operator.report({"ERROR"}, f"Reach: {exc}")
        return {"CANCELLED"}
    results.store(obj, report)
    operator.report({"INFO"} if report.satisfied else {"WARNING"}, report.text())
    return {"FINISHED"}


def run_edit(operator: bpy.types.Operator, action: Callable[[], str]) -> set[str]:
    """Run a list edit; report its sentence, a warning when there is nothing to do, or the
    error (a ``ReachError``: nothing was changed)."""
    try:
        message = action()
    except NothingToDoError as exc:
        operator.report({"WARNING"}, f"Reach: {exc}")
        return {"CANCELLED"}
    except solver.ReachError as exc:
        operator.report({"ERROR"}, f"Reach: {exc}")
        return {"CANCELLED"}
    operator.report({"INFO"}, f"Reach: {message}")
    return {"FINISHED"}


def empty_at_tail(context: bpy.types.Context, obj: bpy.types.Object, bone: str,
                  suffix: str) -> bpy.types.Object:  # fmt: skip
    """A new plain-axes empty ``"<bone>.<suffix>"`` at the bone's evaluated tail, with the
    bone's orientation, in the armature's first collection."""
    context.view_layer.update()  # pose matrices of the current frame
    matrix: np.ndarray = bone_world_matrix(obj, bone, at_tail=True)
    empty = bpy.data.objects.new(f"{bone}.{suffix}", None)
    empty.empty_display_type = "PLAIN_AXES"
    empty.empty_display_size = 0.3 * obj.data.bones[bone].length
    empty.matrix_world = Matrix(matrix.tolist())  # rows; a nested list would be columns
    collection = obj.users_collection
    (collection[0] if collection else context.scene.collection).objects.link(empty)
    return empty


def store_result(settings: object, names: list[str], worst: dict, status: str, nit: int,
                 seconds: float, dof: int) -> bool:  # fmt: skip
    """Save a solve/bake outcome on the armature for the panel; return "all satisfied".

    ``worst`` maps constraint name -> (distance or None, angle or None, satisfied).
    """
    results.forget(settings.id_data)  # the panel shows this newer result
    settings.has_result = True
    settings.status = status
    settings.iterations = nit
    settings.dof_count = dof
    settings.solve_time = seconds * 1000.0
    settings.residuals.clear()
    all_ok = True
    for name in names:
        distance, angle, ok = worst[name]
        item = settings.residuals.add()
        item.name = name
        item.distance = -1.0 if distance is None else distance
        item.angle = -1.0 if angle is None else angle
        item.satisfied = ok
        all_ok &= ok
    settings.satisfied = all_ok
    return all_ok


def residual_text(worst: dict) -> str:
    """One line per constraint: distance, angle and whether it is satisfied."""
    lines = []
    for name, (distance, angle, ok) in worst.items():
        parts = []
        if distance is not None:
            parts.append(f"{distance:.2e} units")
        if angle is not None:
            parts.append(f"{angle:.3f} deg")
        state = "satisfied" if ok else "UNREACHED"
        lines.append(f"  {name}: {', '.join(parts) or '-'} ({state})")
    return "\n".join(lines)
