"""Helpers shared by the operators: the active armature, result bookkeeping and text."""

from __future__ import annotations

import bpy


def armature_of(context: bpy.types.Context) -> bpy.types.Object | None:
    """The active object when it is an armature, else None."""
    obj = context.active_object
    return obj if obj is not None and obj.type == "ARMATURE" else None


def store_result(settings: object, names: list[str], worst: dict, status: str, nit: int,
                 seconds: float, dof: int) -> bool:  # fmt: skip
    """Save a solve/bake outcome on the armature for the panel; return "all satisfied".

    ``worst`` maps constraint name -> (distance or None, angle or None, satisfied).
    """
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
