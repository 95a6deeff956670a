"""What changes a bone's baked or solved channels when Blender plays the animation back.

``bpy`` is used only through the objects passed in.
"""

from __future__ import annotations

from .rig import Rig


def builtin_ik(rig: Rig) -> list[object]:
    """Blender's own (unmuted) IK constraints on the rig's solved bones."""
    return [
        con
        for name in rig.solved
        for con in rig.obj.pose.bones[name].constraints
        if con.type == "IK" and not con.mute
    ]
