"""Auto keying into the active keying set, as Blender does with *Only Active Keying Set*.

With the tool setting *Only Active Keying Set* (``use_keyframe_insert_keyingset``) on and a
keying set active, Blender's auto keying after a bone transform runs that keying set on each
transformed bone instead of keying the changed properties (``autokeyframe_pose_channel`` in
``source/blender/animrig/intern/keyframing_auto.cc``, then ``ANIM_apply_keyingset`` in
``source/blender/editors/animation/keyingsets.cc``):

- an *absolute* keying set (made in the Keying Sets panel) keys every one of its paths,
  whatever was moved;
- a *relative* one (the built-in *Location*, *Rotation*, *Whole Character*, *Available* ...)
  asks its type's ``generate`` callback for the paths of each moved bone and keys them;
- the flags are the *manual* keying flags (*Visual Keying*, cycle-aware keying, the manual
  *Only Insert Needed*), with the keying set's own *Needed* / *Visual* overrides, then each
  path's (no *Replace* flag; Replace mode still keys only on a frame that has a key); the
  key type is the tool setting's; each path's group is its group method's (the keying set's
  name, a named group, or none).

With the option on but no keying set active Blender keys as without it, and so does Reach.

Live posing "transforms" the bones its solve writes (the sources). Blender's keying set
*poll* is not run: it judges the viewport's context of a transform (an active or selected
bone in pose mode), which a live update started by moving a target object does not have.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from ..blender import compat

if TYPE_CHECKING:  # the bridge uses Blender only through the objects passed in
    import bpy

#: The flags a keying set and its paths may override: (flag, RNA name stem).
OVERRIDABLE_FLAGS = (("INSERTKEY_NEEDED", "needed"), ("INSERTKEY_VISUAL", "visual"))


@dataclass(frozen=True)
class KeyingPath:
    """One path a keying set keys.

    Attributes:
        id: the data-block keyed.
        data_path: the property's path from ``id``.
        index: the array index, -1 for every element.
        group: the F-curve group name, None for no group.
        options: ``keyframe_insert`` options for this path.
    """

    id: bpy.types.ID
    data_path: str
    index: int
    group: str | None
    options: frozenset[str]


def active_keying_set(scene: bpy.types.Scene) -> bpy.types.KeyingSet | None:
    """The keying set auto keying must use, or None: *Only Active Keying Set* is off or no
    keying set is active."""
    if not scene.tool_settings.use_keyframe_insert_keyingset:
        return None
    return scene.keying_sets_all.active


def manual_flags(scene: bpy.types.Scene, edit: bpy.types.PreferencesEdit) -> set[str]:
    """The ``keyframe_insert`` options of Blender's manual keying (``get_keyframing_flags``),
    which a keying set starts from."""
    options: set[str] = set()
    if edit.use_visual_keying:
        options.add("INSERTKEY_VISUAL")
    if scene.tool_settings.use_keyframe_cycle_aware:
        options.add("INSERTKEY_CYCLE_AWARE")
    if edit.use_keyframe_insert_needed:
        options.add("INSERTKEY_NEEDED")
    return options


def apply_overrides(
    options: Iterable[str], holder: bpy.types.KeyingSet | bpy.types.KeyingSetPath
) -> frozenset[str]:
    """``options`` with the *Needed* / *Visual* overrides of a keying set or of one path."""
    out = set(options)
    for flag, stem in OVERRIDABLE_FLAGS:
        if getattr(holder, f"use_insertkey_override_{stem}"):
            out.discard(flag)
            if getattr(holder, f"use_insertkey_{stem}"):
                out.add(flag)
    return frozenset(out)


def _group(method: str, named: str, keying_set: bpy.types.KeyingSet) -> str | None:
    """The F-curve group of a path by its group method (``NONE``, ``KEYINGSET``, ``NAMED``)."""
    if method == "NONE":
        return None
    return keying_set.bl_label if method == "KEYINGSET" else named


class _GeneratedPaths:
    """Stands in for ``KeyingSet.paths`` while a relative keying set's ``generate`` callback
    adds the paths of one bone: records them instead of storing them in the keying set."""

    def __init__(self) -> None:
        self.added: list[tuple[bpy.types.ID, str, int, str, str]] = []

    def add(
        self,
        target_id: bpy.types.ID,
        data_path: str,
        index: int = -1,
        group_method: str = "KEYINGSET",
        group_name: str = "",
    ) -> None:
        """``KeyingSetPaths.add``'s signature."""
        self.added.append((target_id, data_path, index, group_method, group_name))


class _Generating:
    """The keying set as a ``generate`` callback sees it: its own attributes, recorded paths."""

    def __init__(self, keying_set: bpy.types.KeyingSet) -> None:
        self._keying_set = keying_set
        self.paths = _GeneratedPaths()

    def __getattr__(self, name: str) -> object:
        return getattr(self._keying_set, name)


def keying_set_paths(
    keying_set: bpy.types.KeyingSet,
    bones: Iterable[bpy.types.PoseBone],
    options: Iterable[str],
) -> list[KeyingPath]:
    """The paths ``keying_set`` keys when ``bones`` were transformed.

    Args:
        keying_set: the active keying set.
        bones: the moved pose bones (the sources of a relative keying set).
        options: the manual keying options (:func:`manual_flags`).
    """
    base = apply_overrides(options, keying_set)
    if keying_set.is_path_absolute:
        return [
            KeyingPath(path.id, path.data_path, -1 if path.use_entire_array else path.array_index,
                       _group(path.group_method, path.group, keying_set),
                       apply_overrides(base, path))
            for path in keying_set.paths
            if path.id is not None  # Blender skips such a path with a warning
        ]  # fmt: skip
    generating = _Generating(keying_set)
    info = keying_set.type_info
    context = compat.context()
    stand_in = cast("bpy.types.KeyingSet", generating)  # what generate() reads of one
    for bone in bones:
        info.generate(context, stand_in, bone)
    return [
        KeyingPath(target, data_path, index, _group(method, named, keying_set), base)
        for target, data_path, index, method, named in generating.paths.added
    ]


def insert_keys(paths: Iterable[KeyingPath], frame: float, keytype: str) -> int:
    """Key every path at ``frame`` with key type ``keytype``; return how many were keyed."""
    keyed = 0
    for path in paths:
        group = {} if path.group is None else {"group": path.group}
        keyed += bool(path.id.keyframe_insert(path.data_path, index=path.index, frame=frame,
                                              options=set(path.options), keytype=keytype,
                                              **group))  # fmt: skip
    return keyed
