"""Auto-keying of a live-posed armature, by the rules Blender applies after a transform.

When Auto Keying is on, Blender keys the channels a bone transform changed
(``autokeyframe_pose_channel`` in ``source/blender/animrig/intern/keyframing_auto.cc``):

- nothing when auto keying is off; in *Replace* mode nothing unless the object already has a
  key on the current frame, and then only existing keys are replaced;
- with *Only Insert Available* (preferences), every existing F-curve of each moved bone is
  keyed, and nothing when there is none;
- otherwise the changed properties, whole arrays (a rotation keys every component of the
  bone's rotation mode), in a group named after the bone;
- flags from the preferences and tool settings: *Visual Keying*, *Only Insert Needed* (the
  auto-keying one), cycle-aware keying; the key type of the tool settings.

Live posing changes the rotation of each solved bone and, for bones with location joints,
the location: those are the properties keyed here. With *Only Active Keying Set* on and a
keying set active, the keying set is run on the solved bones instead (:mod:`.keying_set`),
as Blender does for a transform.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

from ..blender import compat
from .keying_set import active_keying_set, insert_keys, keying_set_paths, manual_flags
from .keys import ChannelKey

if TYPE_CHECKING:  # the bridge uses Blender only through the objects passed in
    import bpy


def insert_flags(scene: bpy.types.Scene, edit: bpy.types.PreferencesEdit) -> set[str]:
    """The ``keyframe_insert`` options Blender's auto keying would use."""
    options: set[str] = set()
    tool = scene.tool_settings
    if edit.use_visual_keying:
        options.add("INSERTKEY_VISUAL")
    if edit.use_auto_keyframe_insert_needed:
        options.add("INSERTKEY_NEEDED")
    if tool.auto_keying_mode == "REPLACE_KEYS":
        options.add("INSERTKEY_REPLACE")
    if tool.use_keyframe_cycle_aware:
        options.add("INSERTKEY_CYCLE_AWARE")
    return options


def has_key_at(obj: bpy.types.Object, frame: float) -> bool:
    """Whether any F-curve of ``obj``'s action has a key on ``frame``."""
    for fcurve in compat.fcurves(obj):
        for point in fcurve.keyframe_points:
            if abs(point.co[0] - frame) < 1e-4:
                return True
    return False


def _bone_of(data_path: str) -> str | None:
    """The bone name in ``pose.bones["name"].prop``, or None for other paths."""
    head = 'pose.bones["'
    if not data_path.startswith(head):
        return None
    end = data_path.find('"]', len(head))
    return None if end < 0 else data_path[len(head) : end].replace('\\"', '"')


def keyed_paths(channels: Iterable[ChannelKey]) -> list[tuple[str, str]]:
    """``(data_path, group)`` of each whole property the solve changed, in order, once."""
    out: list[tuple[str, str]] = []
    for path, _index, group in channels:
        if (path, group) not in out:
            out.append((path, group))
    return out


def autokey(
    obj: bpy.types.Object,
    scene: bpy.types.Scene,
    edit: bpy.types.PreferencesEdit,
    solved: Callable[[], Sequence[ChannelKey]],
) -> int:
    """Key the changed solved channels (``solved()``, e.g. :func:`.keys.solved_channels` of
    the rig, asked only when auto keying is on) at the scene's frame as Blender's auto keying
    keys a transform; return the number of F-curves keyed."""
    tool = scene.tool_settings
    if not tool.use_keyframe_insert_auto:
        return 0
    channels = solved()
    frame = float(scene.frame_current)
    if tool.auto_keying_mode == "REPLACE_KEYS" and not has_key_at(obj, frame):
        return 0
    keytype = tool.keyframe_type
    keying_set = active_keying_set(scene)
    if keying_set is not None:
        bones = dict.fromkeys(group for _path, _index, group in channels)  # in order, once
        sources = [obj.pose.bones[name] for name in bones]
        paths = keying_set_paths(keying_set, sources, manual_flags(scene, edit))
        return insert_keys(paths, frame, keytype)
    options = insert_flags(scene, edit)
    keyed = 0
    if edit.use_keyframe_insert_available:
        bones = {group for _path, _index, group in channels}
        for fcurve in compat.fcurves(obj):
            if _bone_of(fcurve.data_path) in bones:
                group = fcurve.group.name if fcurve.group is not None else ""
                keyed += bool(obj.keyframe_insert(fcurve.data_path, index=fcurve.array_index,
                                                  frame=frame, group=group, options=options,
                                                  keytype=keytype))  # fmt: skip
        return keyed
    for path, group in keyed_paths(channels):
        keyed += bool(obj.keyframe_insert(path, index=-1, frame=frame, group=group,
                                          options=options, keytype=keytype))  # fmt: skip
    return keyed
