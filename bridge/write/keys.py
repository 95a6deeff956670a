"""Bulk keyframe writing: ``keyframe_points.add(n)`` + ``foreach_set``, never one key at a time.

What happens to existing keys (only on the channels being written; every other F-curve, and
every key outside the range, is left as it was):

``REPLACE``  keys of the channel inside [frame_start, frame_end] are removed, then the new
             keys are added.
``LAYER``    existing keys are kept; only keys sitting on a frame that receives a new key
             are replaced (so keys between baked frames, with a frame step > 1, survive).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from ..blender import compat
from ..rig.build import BoneChannels, Rig, build_rig, rotation_data_path

if TYPE_CHECKING:  # annotations only: bpy objects are passed in
    from bpy.types import FCurve, FCurveKeyframePoints, Object

    from ...props.groups import ReachSettings

ChannelKey = tuple[str, int, str]  # (data_path, array_index, group name)

#: Every stored property of a keyframe, with the numpy dtype ``foreach_get`` fills
#: (enums and booleans come as integers) and the number of values per key.
KEYFRAME_PROPERTIES = (
    ("co", np.float32, 2),
    ("handle_left", np.float32, 2),
    ("handle_right", np.float32, 2),
    ("interpolation", np.int32, 1),
    ("handle_left_type", np.int32, 1),
    ("handle_right_type", np.int32, 1),
    ("easing", np.int32, 1),
    ("type", np.int32, 1),
    ("back", np.float32, 1),
    ("amplitude", np.float32, 1),
    ("period", np.float32, 1),
    ("select_control_point", np.int32, 1),
    ("select_left_handle", np.int32, 1),
    ("select_right_handle", np.int32, 1),
)

_ESCAPES = {"\\": "\\\\", '"': '\\"', "\a": "\\a", "\b": "\\b", "\f": "\\f",
            "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v"}  # fmt: skip


def bone_path(name: str, prop: str) -> str:
    """RNA path of a pose bone property, e.g. ``pose.bones["arm.L"].location``.

    The bone name is escaped as ``bpy.utils.escape_identifier`` does.
    """
    escaped = "".join(_ESCAPES.get(c, c) for c in name)
    return f'pose.bones["{escaped}"].{prop}'


def solved_channels(rig: Rig) -> list[ChannelKey]:
    """``(data_path, index, group)`` of every channel the rig's solve writes."""
    out = []
    for name, info in rig.solved.items():
        pb = rig.obj.pose.bones[name]
        rot_path = bone_path(name, rotation_data_path(pb))
        out.extend((rot_path, k, name) for k in info.keyed_rotation)
        out.extend((bone_path(name, "location"), axis, name) for axis, _ in info.location_joints)
        if info.writes_scale:
            out.extend((bone_path(name, "scale"), axis, name) for axis in range(3))
    return out


def channel_value(
    channels: Mapping[str, BoneChannels], data_path: str, index: int, group: str
) -> float:
    """Value of one channel from :meth:`Rig.channels` output (bone -> its channels)."""
    bone = channels[group]
    if data_path.endswith(".location"):
        return float(bone.location[index])
    if data_path.endswith(".scale"):
        return float(bone.scale[index])
    return float(bone.rotation[index])


def flat_channels(channels: Mapping[str, BoneChannels]) -> np.ndarray:
    """Every bone's rotation, location and scale channels end to end, bones in the order of
    ``channels`` (:meth:`Rig.channels` output): shape (sum over bones of 3 or 4, + 6,)."""
    return np.concatenate(
        [np.concatenate((bone.rotation, bone.location, bone.scale)) for bone in channels.values()]
    )


def channel_rows(channels: Mapping[str, BoneChannels], keys: Sequence[ChannelKey]) -> np.ndarray:
    """Index (int, (len(keys),)) of each key's value in ``flat_channels(channels)``.

    Valid for every :meth:`Rig.channels` output of the same rig (same bones, same rotation
    modes): ``flat_channels(c)[rows][k] == channel_value(c, *keys[k])``.
    """
    starts = {}
    offset = 0
    for name, bone in channels.items():
        rotation = len(bone.rotation)
        starts[name] = {"rotation": offset, "location": offset + rotation,
                        "scale": offset + rotation + 3}  # fmt: skip
        offset += rotation + 6
    rows = []
    for data_path, index, group in keys:
        part = data_path.rsplit(".", 1)[1]
        rows.append(starts[group][part if part in ("location", "scale") else "rotation"] + index)
    return np.array(rows, dtype=int)


def read_points(points: FCurveKeyframePoints, prop: str, values: np.ndarray) -> None:
    """Fill ``values`` (flat, ``width * len(points)``) with keyframe property ``prop``."""
    # The stubs accept a buffer only through ``__buffer__``, which numpy's stubs declare for
    # Python >= 3.12; Blender's Python 3.11 reads any buffer-protocol object, ndarray included.
    points.foreach_get(prop, values)  # pyright: ignore[reportArgumentType]


def write_points(points: FCurveKeyframePoints, prop: str, values: np.ndarray) -> None:
    """Set keyframe property ``prop`` of every key from ``values`` (shaped as in read_points)."""
    points.foreach_set(prop, values)  # pyright: ignore[reportArgumentType]  (as in read_points)


def _set_added(points: FCurveKeyframePoints, prop: str, old: int, added: np.ndarray) -> None:
    """Set a 2-vector keyframe property ``prop`` of the keys after the first ``old`` to the
    rows of ``added`` (float32 (n, 2)), the first ``old`` keys' values kept."""
    if old == 0:  # a new or emptied curve: nothing to keep, so nothing to read
        write_points(points, prop, added.ravel())
        return
    values = np.empty(2 * len(points), dtype=np.float32)
    read_points(points, prop, values)
    values.reshape(-1, 2)[old:] = added
    write_points(points, prop, values)


def _remove_keys(fcurve: FCurve, frames_to_remove: Callable[[np.ndarray], np.ndarray]) -> int:
    """Remove the keys whose frame satisfies ``frames_to_remove(frames (n,)) -> bool mask (n,)``."""
    points = fcurve.keyframe_points
    n = len(points)
    if n == 0:
        return 0
    co = np.empty(2 * n, dtype=np.float32)
    read_points(points, "co", co)
    mask = frames_to_remove(co[0::2].astype(float))
    if mask.all():  # a re-bake of the whole curve: one call, not one per key
        points.clear()
        return n
    removed = 0
    for index in np.flatnonzero(mask)[::-1]:
        points.remove(points[int(index)], fast=True)
        removed += 1
    return removed


def write_keys(
    obj: Object,
    channels: Mapping[ChannelKey, tuple[np.ndarray, np.ndarray]],
    frame_range: tuple[float, float],
    mode: str = "REPLACE",
) -> int:
    """Write keys ``(frames (n,), values (n,))`` per channel; return the number of keys.

    Args:
        obj: the animated object (its action and slot are created if missing).
        channels: ``(data_path, index, group) -> (frames, values)``.
        frame_range: (start, end) frames of the bake, inclusive.
        mode: "REPLACE" or "LAYER" (see module docstring).
    """
    start, end = frame_range
    written = 0
    for (data_path, index, group), (frames, values) in channels.items():
        frames = np.asarray(frames, dtype=float)
        fcurve = compat.ensure_fcurve(obj, data_path, index, group)
        if mode == "REPLACE":
            _remove_keys(fcurve, lambda f: (f >= start - 1e-6) & (f <= end + 1e-6))
        else:
            _remove_keys(fcurve, lambda f, fr=frames: np.isin(np.round(f, 4), np.round(fr, 4)))
        points = fcurve.keyframe_points
        old = len(points)
        points.add(len(frames))
        added = np.column_stack((frames, np.asarray(values, dtype=float))).astype(np.float32)
        # The added keys' handles start at the origin; put them on the key so update()
        # computes proper auto-clamped handles.
        for prop in ("co", "handle_left", "handle_right"):
            _set_added(points, prop, old, added)
        fcurve.update()
        written += len(frames)
    return written


def clear_keys(
    obj: Object, channels: list[tuple[str, int]], frame_range: tuple[float, float]
) -> int:
    """Remove keys in [start, end] from the given channels; drop F-curves left empty.

    Returns the number of keys removed.
    """
    start, end = frame_range
    removed = 0
    wanted = set(channels)
    for fcurve in compat.fcurves(obj):
        if (fcurve.data_path, fcurve.array_index) not in wanted:
            continue
        removed += _remove_keys(fcurve, lambda f: (f >= start - 1e-6) & (f <= end + 1e-6))
        if len(fcurve.keyframe_points) == 0:
            compat.remove_fcurve(obj, fcurve)
        else:
            fcurve.update()
    return removed


def clear_solved_keys(
    obj: Object,
    settings: ReachSettings,
    frame_range: tuple[float, float],
    only_selected: bool = False,
) -> str:
    """Remove the keys of every channel the rig's solve writes inside ``frame_range``
    (inclusive frames); return the sentence for the report.

    Raises:
        RigError: the armature's Reach constraints cannot be built into a rig.
    """
    rig = build_rig(obj, settings, only_selected)
    channels = [(path, index) for path, index, _group in solved_channels(rig)]
    removed = clear_keys(obj, channels, frame_range)
    start, end = (int(f) for f in frame_range)
    return f"removed {removed} keys from {len(channels)} channels ({start}..{end})"
