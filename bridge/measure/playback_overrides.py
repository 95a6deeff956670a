"""What changes a bone's baked or solved channels when Blender plays the animation back.

Keys on a bone's channels are only what Blender *starts* from: its own IK (on the bone or on
a child whose chain reaches it), other bone constraints, drivers on those channels, and an
action blended below full influence all change the pose Blender draws. :func:`overrides`
lists them in one line each, for the bake summary and the solve report; :func:`played_over`
names the action or NLA strip that plays over a baked chain, for its constraint's line.

``bpy`` is used only through the objects passed in.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, cast

from ...props.access import armature_data
from ..blender import compat
from ..rig.build import Rig
from .diagnose import kind, modelled

if TYPE_CHECKING:
    import bpy


def _ik_chain(pb: bpy.types.PoseBone, con: bpy.types.KinematicConstraint) -> list[str]:
    """Names of the bones an IK constraint on pose bone ``pb`` rotates (owner first)."""
    chain = []
    bone = pb if con.use_tail else pb.parent
    count = con.chain_count
    while bone is not None and (count == 0 or len(chain) < count):
        chain.append(bone.name)
        bone = bone.parent
    return chain


def _ik_over(
    rig: Rig,
) -> list[tuple[bpy.types.PoseBone, bpy.types.KinematicConstraint, list[str]]]:
    """(pose bone, IK constraint, solved bones it rotates) for every active built-in IK whose
    chain includes a solved bone (its owner or a descendant reaching up to one)."""
    out = []
    for pb in _at_or_below(rig):
        for con in pb.constraints:
            if con.type != "IK" or con.mute or con.influence <= 0.0:
                continue
            ik = cast("bpy.types.KinematicConstraint", con)  # type "IK" is this class
            moved = [name for name in _ik_chain(pb, ik) if name in rig.solved]
            if moved:
                out.append((pb, ik, moved))
    return out


def _at_or_below(rig: Rig) -> list[bpy.types.PoseBone]:
    """The pose bones with a constraint among the solved bones and every bone below one (an
    IK chain runs up from its owner, so only these can hold an IK that rotates a solved
    bone), in the armature's order: what a scan of every bone finds, at the cost of the
    bones below the figure (a few dozen of Rigify's 706) rather than of the armature."""
    pose = rig.obj.pose.bones
    found = {name for name in rig.solved if name in pose}
    stack = [pose[name].bone for name in found]
    while stack:
        for child in stack.pop().children:
            if child.name not in found:
                found.add(child.name)
                stack.append(child)
    owners = [pose[name] for name in found]
    return sorted((pb for pb in owners if pb.constraints), key=lambda pb: pose.find(pb.name))


def builtin_ik(rig: Rig) -> list[bpy.types.KinematicConstraint]:
    """Blender's own active IK constraints that rotate one of the rig's solved bones."""
    return [con for _pb, con, _moved in _ik_over(rig)]


def overrides(rig: Rig, channels: Iterable[tuple[str, int]]) -> list[str]:
    """One line per thing that changes the solved channels' pose on playback.

    Call it with the scene as it plays back, evaluated: a bake calls it once it has unmuted
    the IK constraints it muted and gone back to the frame, so Blender has run the drivers
    its new keys set off (an influence whose driver's input a script set without an update
    still holds its old value until then). ``channels`` are the ``(data_path, index)`` pairs
    keyed or solved.
    """
    obj = rig.obj
    lines = []
    for owner, con, moved in _ik_over(rig):
        lines.append(
            f"built-in IK '{con.name}' on bone '{owner.name}' rotates {_names(moved)} on "
            f"playback: mute it (or Convert Built-in IK) for the solved pose to show"
        )
    for name in rig.solved:
        for con in obj.pose.bones[name].constraints:
            if con.type == "IK" or modelled(con):
                continue
            lines.append(
                f"bone '{name}' has a {kind(con)} constraint '{con.name}' that changes its "
                "pose on playback"
            )
    wanted = set(channels)
    animation_data = obj.animation_data
    if animation_data is not None:
        for fcurve in animation_data.drivers:
            if (fcurve.data_path, fcurve.array_index) in wanted and not fcurve.mute:
                lines.append(
                    f"a driver on {fcurve.data_path}[{fcurve.array_index}] replaces its keys"
                )
        if animation_data.action_influence < 1.0 or animation_data.action_blend_type != "REPLACE":
            lines.append(
                f"the action is blended ({animation_data.action_blend_type.title()}, influence "
                f"{animation_data.action_influence:.2f}): keys do not play back as written"
            )
    return lines


def _names(bones: list[str]) -> str:
    quoted = ", ".join(f"'{b}'" for b in bones)
    return f"bone {quoted}" if len(bones) == 1 else f"bones {quoted}"


def played_over(
    obj: bpy.types.Object, bone: str, baked: Mapping[tuple[str, int], str], to_strip: bool
) -> str:
    """One line naming the animation that plays over the baked keys of the chain of ``bone``
    (the bone and its parents), or "" when none does.

    Args:
        obj: the armature, its animation as it plays back after the bake.
        bone: the bone carrying a constraint's end-effector.
        baked: ``(data_path, index)`` -> bone, for every baked channel.
        to_strip: the keys went into a new NLA strip under the active action (else into the
            active action).

    What is named: for a strip, the active action when it keys a baked channel of the chain
    (it plays over the strip); for the active action, when it is blended (not *Replace* at
    full influence), the first NLA strip from the top (of unmuted tracks, the solo one when
    there is one) that keys such a channel, or else the blend itself. A strip's frame range
    and the tweak mode are not considered.
    """
    animation = obj.animation_data
    if animation is None:
        return ""
    chain = set()
    above = armature_data(obj).bones.get(bone)
    while above is not None:
        chain.add(above.name)
        above = above.parent
    wanted = {key: name for key, name in baked.items() if name in chain}

    def keyed(fcurves: Iterable[bpy.types.FCurve]) -> list[str]:
        keys = ((f.data_path, f.array_index) for f in fcurves if not f.mute)
        return sorted({wanted[key] for key in keys if key in wanted})

    if to_strip:
        hit = keyed(compat.fcurves(obj))
        if animation.action is None or not hit:
            return ""
        action = animation.action.name
        return f"the action '{action}' plays over the baked strip: it keys {_names(hit)} too"
    blend, influence = animation.action_blend_type, animation.action_influence
    if blend == "REPLACE" and influence >= 1.0:
        return ""
    how = f"({blend.title()}, influence {influence:.2f})"
    tracks = [t for t in animation.nla_tracks if not t.mute] if animation.use_nla else []
    solo = [t for t in tracks if t.is_solo]
    for track in reversed(solo or tracks):  # the top track first
        for strip in track.strips:
            hit = [] if strip.mute else keyed(compat.strip_fcurves(strip))
            if hit:
                return (
                    f"the NLA strip '{strip.name}' (track '{track.name}') keys {_names(hit)} "
                    f"too and the baked action is blended with it {how}"
                )
    return f"the baked action is blended {how}: its keys do not play back as written"
