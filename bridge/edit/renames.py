"""Bone renames carried into Reach constraints.

Constraint items name their bones (``bone``, ``chain_root`` and ``target_bone``). Blender
renames a bone in its own constraints, drivers and F-curves but not in an extension's
properties, so without this a rename would break the constraint until someone retyped the
name. :class:`BoneNames` remembers each armature's bone names in order: renaming keeps a bone
at its position in ``Armature.bones``, so between two snapshots of the same length the names
that differ position by position are renames. :func:`follow` then writes the new names into
every item that used an old one.

When bones were added or removed as well (the lengths differ), positions no longer match and
nothing is guessed: a constraint whose bone is gone reports "bone 'x' not found" on its next
solve.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from ...props.access import settings_of
from ..blender.editable import why_not_editable

if TYPE_CHECKING:  # the bridge uses Blender only through the objects passed in
    import bpy

#: Renamed bones per armature: ``{Armature.session_uid: {old name: new name}}``.
Renames = Mapping[int, Mapping[str, str]]


def renamed(before: Sequence[str], after: Sequence[str]) -> dict[str, str]:
    """Old -> new name of each bone renamed between two snapshots of one armature's bones.

    Empty when the snapshots differ in length (bones added or removed).
    """
    if len(before) != len(after):
        return {}
    return {old: new for old, new in zip(before, after, strict=True) if old != new}


class BoneNames:
    """The bone names of each armature (by ``session_uid``) as last seen."""

    def __init__(self) -> None:
        self._seen: dict[int, tuple[str, ...]] = {}

    def remember(self, armatures: Iterable[bpy.types.Armature]) -> None:
        """Take a snapshot of these armatures' bone names (forgetting older snapshots)."""
        for armature in armatures:
            self._seen[armature.session_uid] = tuple(armature.bones.keys())

    def changes(self, armatures: Iterable[bpy.types.Armature]) -> dict[int, dict[str, str]]:
        """Renames since the last snapshot of each armature; the snapshots move on.

        An armature seen for the first time has no renames (it is only remembered).
        """
        out: dict[int, dict[str, str]] = {}
        for armature in armatures:
            # keys(): the names in order, read in C (this runs after every pose change)
            now = tuple(armature.bones.keys())
            before = self._seen.get(armature.session_uid)
            if before == now:
                continue
            self._seen[armature.session_uid] = now
            mapping = renamed(before, now) if before is not None else {}
            if mapping:
                out[armature.session_uid] = mapping
        return out

    def forget(self) -> None:
        """Drop every snapshot (a new file was loaded)."""
        self._seen.clear()


def follow(objects: Iterable[bpy.types.Object], renames: Renames) -> list[str]:
    """Write renamed bones' new names into the Reach constraints of ``objects``.

    ``bone`` and ``chain_root`` name bones of the constraint's own armature, ``target_bone``
    a bone of the target armature. Linked armatures without an override are left alone (they
    cannot be edited; their library holds the names). Returns one line per name changed.
    """
    notes: list[str] = []
    for obj in objects:
        if obj.type != "ARMATURE" or obj.data is None or why_not_editable(obj) is not None:
            continue
        own = renames.get(obj.data.session_uid, {})
        for item in settings_of(obj).constraints:
            target = item.target
            of_target = (
                renames.get(target.data.session_uid, {})
                if target is not None and target.type == "ARMATURE"
                else {}
            )
            for prop, mapping in (
                ("bone", own),
                ("chain_root", own),
                ("target_chain_root", of_target),
                ("target_bone", of_target),
            ):
                old = getattr(item, prop)
                if old in mapping:
                    setattr(item, prop, mapping[old])
                    notes.append(
                        f"Constraint '{item.name}' of '{obj.name}': {prop} '{old}' renamed "
                        f"to '{mapping[old]}'"
                    )
    return notes
