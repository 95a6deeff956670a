"""Blender operators: read the scene, call the solver, write pose and keys.

The translation between Blender data and the solver lives in the ``bridge`` package;
the operator modules only call it.
"""

from __future__ import annotations

import importlib

_MODULES = ("solve_ops", "bake_ops", "constraint_ops", "track_ops", "envelope_ops")


def _operator_classes() -> list[type]:
    classes: list[type] = []
    for name in _MODULES:
        classes.extend(importlib.import_module(f".{name}", __name__).classes)
    return classes


def register() -> None:
    """Register preferences, operator classes, the Pose menu and keys."""
    import bpy

    from . import keymap, live_handlers, menu, method_migration, preferences, renames

    for cls in preferences.classes:
        bpy.utils.register_class(cls)
    for cls in _operator_classes():
        bpy.utils.register_class(cls)
    menu.register()
    keymap.register()
    renames.register()
    live_handlers.register()
    method_migration.register()


def unregister() -> None:
    """Remove everything :func:`register` added, in reverse order."""
    import bpy

    from . import keymap, live_handlers, menu, method_migration, preferences, renames

    method_migration.unregister()
    live_handlers.unregister()
    renames.unregister()
    keymap.unregister()
    menu.unregister()
    for cls in reversed(_operator_classes()):
        bpy.utils.unregister_class(cls)
    for cls in reversed(preferences.classes):
        bpy.utils.unregister_class(cls)
