"""Which pose channels a solve writes, and their values: the keys of Solve & Key and bakes."""

from __future__ import annotations

from .keys import ChannelKey
from .rig import Rig, rotation_data_path


def bone_path(name: str, prop: str) -> str:
    """RNA path of a pose bone property, e.g. ``pose.bones["arm.L"].location``.

    The bone name is escaped like ``bpy.utils.escape_identifier`` (backslash and quote).
    """
    escaped = name.replace("\\", "\\\\").replace('"', '\\"')
    return f'pose.bones["{escaped}"].{prop}'


def solved_channels(rig: Rig) -> list[ChannelKey]:
    """``(data_path, index, group)`` of every channel the rig's solve writes."""
    out = []
    for name, info in rig.solved.items():
        pb = rig.obj.pose.bones[name]
        rot_path = bone_path(name, rotation_data_path(pb))
        out.extend((rot_path, k, name) for k in info.keyed_rotation)
        out.extend((bone_path(name, "location"), axis, name) for axis, _ in info.location_joints)
    return out


def channel_value(rig: Rig, channels: dict, data_path: str, index: int, group: str) -> float:
    """Value of one channel from :meth:`.rig.Rig.channels` output."""
    rot, loc = channels[group]
    return float(loc[index] if data_path.endswith(".location") else rot[index])


def builtin_ik_on(rig: Rig) -> list[object]:
    """Blender's own (unmuted) IK constraints on the rig's solved bones."""
    out = []
    for name in rig.solved:
        for con in rig.obj.pose.bones[name].constraints:
            if con.type == "IK" and not con.mute:
                out.append(con)
    return out
