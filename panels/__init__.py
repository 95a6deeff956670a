"""The View3D sidebar panel ("Reach"): draw code only."""

from __future__ import annotations


def register() -> None:
    """Register panel and UI list classes."""
    import bpy

    from .reach_panel import classes

    for cls in classes:
        bpy.utils.register_class(cls)


def unregister() -> None:
    """Unregister panel and UI list classes."""
    import bpy

    from ..bridge import results
    from .reach_panel import classes

    for cls in reversed(classes):
        bpy.utils.unregister_class(cls)
    results.clear()
