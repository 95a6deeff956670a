"""Typed access to Blender data whose type the API stubs leave open.

``Object.reach_ik`` and ``PoseBone.reach_ik`` are RNA pointer properties that
``operators.properties.register()`` attaches at run time, so Blender's API stubs do not declare
them; every module reads them through :func:`settings_of` and :func:`bone_settings_of`, which
give the type checker the property-group classes. ``Object.data`` is a union of every data
type; :func:`armature_data` is the armature's. Like the rest of ``bridge/``, this module does
not import bpy at run time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    import bpy

    from .groups import ReachBoneSettings, ReachSettings


def settings_of(obj: bpy.types.Object) -> ReachSettings:
    """Reach's settings on armature object ``obj`` (``obj.reach_ik``)."""
    return cast("ReachSettings", obj.reach_ik)  # pyright: ignore[reportAttributeAccessIssue]  (added by register(), unknown to the stubs)


def bone_settings_of(pose_bone: bpy.types.PoseBone) -> ReachBoneSettings:
    """Reach's per-bone settings on ``pose_bone`` (``pose_bone.reach_ik``)."""
    return cast("ReachBoneSettings", pose_bone.reach_ik)  # pyright: ignore[reportAttributeAccessIssue]  (added by register(), unknown to the stubs)


def armature_data(obj: bpy.types.Object) -> bpy.types.Armature:
    """The Armature data of armature object ``obj`` (``obj.data``, typed)."""
    return cast("bpy.types.Armature", obj.data)
