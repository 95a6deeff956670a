"""Blender operators: read the scene, call the solver, write pose and keys.

The translation between Blender data and the solver lives in the ``bridge`` package;
the operator modules only call it.
"""

from __future__ import annotations

import importlib

_MODULES = ("solve_ops", "bake_ops", "constraint_ops")


def _operator_classes() -> list[type]:
    classes: list[type] = []
    for name in _MODULES:
        classes.extend(importlib.import_module(f".{name}", __name__).classes)
    return classes


def register() -> None:
    """Register property groups, then operator classes."""
    import bpy

    from . import live_handlers, live_menu, properties, renames

    properties.register()
    for cls in _operator_classes():
        bpy.utils.register_class(cls)
    renames.register()
    live_handlers.register()
    live_menu.register()


def unregister() -> None:
    """Unregister operator classes, then property groups."""
    import bpy

    from . import live_handlers, live_menu, properties, renames

    live_menu.unregister()
    live_handlers.unregister()
    renames.unregister()
    for cls in reversed(_operator_classes()):
        bpy.utils.unregister_class(cls)
    properties.unregister()
