"""Reach's data model in Blender: the property groups on armatures and bones, the add-on
preferences' values, the *Automatic* settings and the solve methods offered, with typed access.

The bottom of the Blender side: the bridge, the panels and the operators read it; it imports
only ``bpy`` and the solver.
"""

from __future__ import annotations


def register() -> None:
    """Register the property groups and attach them to Object and PoseBone."""
    from . import groups

    groups.register()


def unregister() -> None:
    """Remove what :func:`register` added."""
    from . import groups

    groups.unregister()
