"""Where a bake writes its keys: the current action, a new action, or a new NLA strip.

``CURRENT``     the keys go into the armature's action (created if it has none), as
                :mod:`..write.keys` describes for the *Replace* and *Layer* modes.
``NEW_ACTION``  the armature gets a new action, a copy of its current one (every other
                channel keeps its animation; an empty action if it had none) named
                "<action> Reach"; the keys go into the copy; the original action is left as
                it was, for the user to switch back to.
``NEW_STRIP``   the keys go into a new action holding only the baked channels, placed as a
                strip (blend *Replace*, no extrapolation) at the first baked frame on a new
                NLA track "Reach Bake" above the others; the current action stays assigned and
                untouched. The active action plays over the NLA, so if it keys a baked channel
                too, that channel shows the action, not the strip (the report says so).

:meth:`BakeTarget.undo` removes what :meth:`BakeTarget.write` created and assigns the
original action and slot again: a bake that fails or is cancelled after writing leaves no
trace (:mod:`..write.saved_state` puts the current action's keys back). ``bpy`` is used only through
:mod:`..blender.compat` and the objects passed in.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import TYPE_CHECKING, Any

from ..blender import compat

if TYPE_CHECKING:
    from bpy.types import Action, NlaTrack, Object

TARGETS = ("CURRENT", "NEW_ACTION", "NEW_STRIP")
TRACK_NAME = "Reach Bake"


class BakeTarget:
    """The destination of one bake's keys (see the module docstring).

    Args:
        obj: the armature object.
        kind: one of :data:`TARGETS`.
        frame_start: first baked frame (where a new strip starts).

    Raises:
        ValueError: ``kind`` is not one of :data:`TARGETS`.
    """

    def __init__(self, obj: Object, kind: str, frame_start: float) -> None:
        if kind not in TARGETS:
            raise ValueError(f"BakeTarget: kind must be one of {TARGETS}, not {kind!r}")
        self.obj = obj
        self.kind = kind
        self.frame_start = frame_start
        self.original: tuple[Action | None, Any] = compat.assigned_action(obj)
        self.created: Action | None = None
        self.track: NlaTrack | None = None

    def write(self, write_keys: Callable[[], int]) -> int:
        """Run ``write_keys`` (which keys the object's assigned action) into this target;
        return its key count."""
        if self.kind == "CURRENT":
            return write_keys()
        action, _slot = self.original
        if self.kind == "NEW_ACTION":
            base = action.name if action is not None else f"{self.obj.name}Action"
            self.created = compat.new_action(f"{base} Reach", like=action)
            compat.assign_action(self.obj, self.created)
            return write_keys()
        self.created = compat.new_action(f"{self.obj.name} Reach Bake")
        compat.assign_action(self.obj, self.created)  # write_keys keys the assigned action
        written = write_keys()
        _created, slot = compat.assigned_action(self.obj)
        compat.assign_action(self.obj, *self.original)
        animation_data = self.obj.animation_data
        assert animation_data is not None, "assign_action creates the animation data"
        self.track = animation_data.nla_tracks.new()
        self.track.name = TRACK_NAME
        strip = self.track.strips.new(self.created.name, int(self.frame_start), self.created)
        compat.set_strip_slot(strip, slot)
        strip.blend_type = "REPLACE"
        strip.extrapolation = "NOTHING"
        return written

    def note(self, channels: Collection[tuple[str, int]]) -> str | None:
        """For a new strip: a sentence when the active action keys some of the baked
        ``channels`` ((data_path, index) pairs) and so plays over the strip; else None."""
        action, _slot = self.original
        if self.kind != "NEW_STRIP" or action is None:
            return None
        keyed = {(f.data_path, f.array_index) for f in compat.fcurves(self.obj)}
        over = len(keyed & set(channels))
        if not over:
            return None
        return (
            f"The active action '{action.name}' keys {over} of the baked channels and plays "
            f"over the strip on '{TRACK_NAME}': push it down or remove those keys"
        )

    def undo(self) -> None:
        """Remove the track and action :meth:`write` created; assign the original action."""
        animation_data = self.obj.animation_data
        if self.track is not None and animation_data is not None:
            animation_data.nla_tracks.remove(self.track)
        self.track = None
        if self.created is not None:
            if compat.assigned_action(self.obj)[0] == self.created:
                compat.assign_action(self.obj, *self.original)
            compat.delete_action(self.created)
        self.created = None
