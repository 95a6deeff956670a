"""Blender-version differences, in one place.

Blender 4.4 introduced layered actions (slots, layers, strips, channelbags) and 5.0 removed
the legacy ``Action.fcurves`` collection. F-curves of an object are reached here through
:func:`fcurves` / :func:`ensure_fcurve`, which work on 4.2 LTS and on 4.4+ / 5.x alike.
"""

from __future__ import annotations

import bpy

IS_BLENDER_44_UP = bpy.app.version >= (4, 4, 0)
IS_BLENDER_50_UP = bpy.app.version >= (5, 0, 0)


def ensure_action(obj: bpy.types.Object) -> bpy.types.Action:
    """The object's action, created (and assigned, with a slot on 4.4+) if missing."""
    animation_data = obj.animation_data or obj.animation_data_create()
    if animation_data.action is None:
        animation_data.action = bpy.data.actions.new(f"{obj.name}Action")
    return animation_data.action


def fcurves(obj: bpy.types.Object) -> list[bpy.types.FCurve]:
    """All F-curves animating ``obj`` through its assigned action (slot) — may be empty."""
    animation_data = obj.animation_data
    if animation_data is None or animation_data.action is None:
        return []
    action = animation_data.action
    if not IS_BLENDER_44_UP:
        return list(action.fcurves)
    from bpy_extras import anim_utils

    slot = animation_data.action_slot
    if slot is None:
        return []
    channelbag = anim_utils.action_get_channelbag_for_slot(action, slot)
    return [] if channelbag is None else list(channelbag.fcurves)


def find_fcurve(obj: bpy.types.Object, data_path: str, index: int) -> bpy.types.FCurve | None:
    """The F-curve for ``data_path[index]`` on ``obj``, or None."""
    for fcurve in fcurves(obj):
        if fcurve.data_path == data_path and fcurve.array_index == index:
            return fcurve
    return None


def ensure_fcurve(
    obj: bpy.types.Object, data_path: str, index: int, group: str
) -> bpy.types.FCurve:
    """The F-curve for ``data_path[index]``, created in ``group`` if missing."""
    action = ensure_action(obj)
    if IS_BLENDER_44_UP:
        return action.fcurve_ensure_for_datablock(obj, data_path, index=index, group_name=group)
    fcurve = action.fcurves.find(data_path, index=index)
    if fcurve is None:
        fcurve = action.fcurves.new(data_path, index=index, action_group=group)
    return fcurve


def remove_fcurve(obj: bpy.types.Object, fcurve: bpy.types.FCurve) -> None:
    """Delete an F-curve from the object's action."""
    action = obj.animation_data.action
    if not IS_BLENDER_44_UP:
        action.fcurves.remove(fcurve)
        return
    from bpy_extras import anim_utils

    channelbag = anim_utils.action_get_channelbag_for_slot(action, obj.animation_data.action_slot)
    channelbag.fcurves.remove(fcurve)


def constraint_enabled(con: bpy.types.Constraint) -> bool:
    """Whether a constraint is active (``enabled`` is the inverse of ``mute``)."""
    return not con.mute


def set_constraint_enabled(con: bpy.types.Constraint, enabled: bool) -> None:
    """Enable or disable (mute) a constraint."""
    con.mute = not enabled
