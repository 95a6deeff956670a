"""Armatures a Reach job is working on right now, which live posing must leave alone.

A Solve writes the pose and lets Blender evaluate it (``view_layer.update()``), and a bake
steps the scene's frame over many events; both fire Blender's update and frame-change
handlers while they run. Live posing (:mod:`..live.posing`) skips an armature while it is held here,
so it never solves inside another solve and never poses a frame a bake is solving or
measuring. Holds nest (a count per armature, keyed by ``session_uid``).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the bridge uses Blender only through the objects passed in
    import bpy

_HELD: dict[int, int] = {}
_RELEASES: dict[int, int] = {}  # releases so far per armature: what a job may have written


def hold(obj: bpy.types.ID) -> None:
    """Mark ``obj`` as worked on until the matching :func:`release`."""
    uid = obj.session_uid
    _HELD[uid] = _HELD.get(uid, 0) + 1


def release(obj: bpy.types.ID) -> None:
    """End one :func:`hold` of ``obj`` (a release without a hold does nothing)."""
    uid = obj.session_uid
    if uid not in _HELD:
        return
    _RELEASES[uid] = _RELEASES.get(uid, 0) + 1
    count = _HELD[uid] - 1
    if count > 0:
        _HELD[uid] = count
    else:
        _HELD.pop(uid, None)


@contextmanager
def holding(obj: bpy.types.ID) -> Iterator[None]:
    """Hold ``obj`` for the duration of a ``with`` block."""
    hold(obj)
    try:
        yield
    finally:
        release(obj)


def is_busy(obj: bpy.types.ID) -> bool:
    """Whether a Reach job holds ``obj`` now."""
    return obj.session_uid in _HELD


def releases(obj: bpy.types.ID) -> int:
    """How many holds of ``obj`` have ended: a change means a Reach job wrote it since."""
    return _RELEASES.get(obj.session_uid, 0)


def clear() -> None:
    """Forget every hold (a new file was loaded; its objects have new ids)."""
    _HELD.clear()
    _RELEASES.clear()
