"""The Live switch in the 3D viewport's Pose menu (appended to ``VIEW3D_MT_pose``)."""

from __future__ import annotations

import bpy

from ..bridge.settings import settings_of


def draw_live_toggle(menu: bpy.types.Menu, context: bpy.types.Context) -> None:
    """Menu entry: the active armature's Live switch."""
    obj = context.active_object
    if obj is None or obj.type != "ARMATURE":
        return
    layout = menu.layout
    layout.separator()
    layout.prop(settings_of(obj), "live", text="Reach Live")


def register() -> None:
    """Append the entry to the Pose menu (Blender appends a function only once)."""
    bpy.types.VIEW3D_MT_pose.append(draw_live_toggle)


def unregister() -> None:
    """Remove the entry from the Pose menu."""
    bpy.types.VIEW3D_MT_pose.remove(draw_live_toggle)
