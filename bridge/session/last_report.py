"""The last solve's or bake's report per armature, kept at runtime only.

Results are not written into the armature's ID properties: writing an ID collection on every
solve fills the undo stack and the .blend with data that is stale as soon as anything moves,
and a library-overridden armature refuses new collection items. They are keyed by the
object's ``session_uid`` (unique for the Blender session; a reloaded file gets new ids, so a
report never outlives the pose it describes).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the bridge uses Blender only through the objects passed in
    import bpy

    from ..bake.report import BakeReport
    from ..measure.frame_report import FrameReport

_LAST: dict[int, FrameReport | BakeReport] = {}


def store(obj: bpy.types.ID, report: FrameReport | BakeReport) -> None:
    """Remember ``report`` (a solve's or a bake's) as ``obj``'s last result."""
    _LAST[obj.session_uid] = report


def last(obj: bpy.types.ID) -> FrameReport | BakeReport | None:
    """The last report stored for ``obj``, or None."""
    return _LAST.get(obj.session_uid)


def clear() -> None:
    """Forget every stored report (on unregister)."""
    _LAST.clear()
