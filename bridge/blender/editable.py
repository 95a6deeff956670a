"""Whether Reach may write to an armature, and if not, what the animator should do.

A linked armature without a library override is read-only data from another file: anything
written to it (pose, constraints, keys) is gone when the file is reloaded, so every editing
operator refuses it up front. A library override is local and editable, unless it is a
*system* override (made only to support an editable one), which Blender itself keeps locked.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the bridge uses Blender only through the objects passed in
    import bpy


def why_not_editable(obj: bpy.types.Object) -> str | None:
    """The reason Reach must not edit armature object ``obj``, or None when it may."""
    if obj.library is not None:
        return (
            f"Armature '{obj.name}' is linked from '{obj.library.filepath}' without a library "
            "override, so edits would be lost on reload: make a library override first "
            "(Object > Library Override > Make)"
        )
    override = obj.override_library
    if override is not None and override.is_system_override:
        return (
            f"Armature '{obj.name}' is a system library override, which Blender keeps "
            "locked: make it editable first (Outliner > Library Override > Make Editable)"
        )
    return None
