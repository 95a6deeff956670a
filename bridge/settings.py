"""Typed access to the Reach settings that ``operators.properties.register()`` adds to Blender.

``Object.reach_ik`` and ``PoseBone.reach_ik`` are RNA pointer properties attached at run
time, so Blender's API stubs do not declare them. Every module reads them through these two
functions, which give the type checker the property-group classes. Like the rest of
``bridge/``, this module does not import bpy at run time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    import bpy

    from ..operators.properties import ReachBoneSettings, ReachSettings


def settings_of(obj: bpy.types.Object) -> ReachSettings:
    """Reach's settings on armature object ``obj`` (``obj.reach_ik``)."""
    return cast("ReachSettings", obj.reach_ik)  # pyright: ignore[reportAttributeAccessIssue]  (added by register(), unknown to the stubs)


def bone_settings_of(pose_bone: bpy.types.PoseBone) -> ReachBoneSettings:
    """Reach's per-bone settings on ``pose_bone`` (``pose_bone.reach_ik``)."""
    return cast("ReachBoneSettings", pose_bone.reach_ik)  # pyright: ignore[reportAttributeAccessIssue]  (added by register(), unknown to the stubs)
