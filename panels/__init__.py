"""The View3D sidebar panel ("Reach" tab, renamable in the preferences): draw code only."""

from __future__ import annotations


def _panels() -> list[type]:
    import bpy

    from .reach_panel import classes

    return [cls for cls in classes if issubclass(cls, bpy.types.Panel)]


def set_category(category: str) -> None:
    """Move every Reach panel to the sidebar tab ``category`` (Blender reads ``bl_category``
    only when a panel class registers, so registered panels are registered again)."""
    import bpy

    category = category.strip() or "Reach"
    for cls in reversed(_panels()):
        if cls.is_registered:
            bpy.utils.unregister_class(cls)
    for cls in _panels():
        cls.bl_category = category
        bpy.utils.register_class(cls)


def register() -> None:
    """Register panel and UI list classes, in the sidebar tab the preferences name."""
    import bpy

    from ..props.preferences import DEFAULT_CATEGORY, preferences
    from . import overlay_draw
    from .reach_panel import classes

    prefs = preferences()
    category = (prefs.category.strip() if prefs is not None else "") or DEFAULT_CATEGORY
    for cls in classes:
        if issubclass(cls, bpy.types.Panel):
            cls.bl_category = category
        bpy.utils.register_class(cls)
    overlay_draw.register()


def unregister() -> None:
    """Unregister panel and UI list classes."""
    import bpy

    from ..bridge.rig import size
    from ..bridge.session import last_report
    from . import overlay_draw
    from .reach_panel import classes

    overlay_draw.unregister()
    for cls in reversed(classes):
        bpy.utils.unregister_class(cls)
    last_report.clear()
    size.forget_lengths()
