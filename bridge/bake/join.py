"""A sub-range bake joins the keys around it: where its frames start from.

A bake normally starts from the rest pose (:mod:`.baking`), which keeps it a function of the
shot. Re-baking only part of a keyed range that way lets redundant limbs settle on other
solutions than the keys before and after the range hold, so the pose pops where the new keys
meet the old ones (0.55 and 0.80 in bone matrix entries at frames 99/100 and 150/151 of the
demo re-baked over 100-150; 0.02 between other frames).

When the solved channels are keyed outside the baked range (and the keys stay in the action the
bake writes to), :class:`KeyedSpan` says so, and every frame the existing keys cover starts from
the pose they give there (the animation as Blender evaluates it at that frame) instead of the
previous frame's solution: the first frame continues the motion before the range, a frame whose
targets did not change keeps its keyed pose (the solve starts there with every goal reached),
and a frame whose targets changed is solved from the nearest keyed pose, on the keys' branch;
the last frames meet the keys after the range. The first frame always starts from the pose the
animation gives there (past the last key: the last keyed pose, as Blender holds it); frames
beyond the keys continue the previous frame's solution as in any bake, and so does every
later frame of a smooth bake (:mod:`.smooth`: each joint's change per frame is bounded
around the previous frame's solution, which a keyed start would break).

``bpy`` is used only through :mod:`..blender.compat`, :mod:`..write.keys` and the objects passed in.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..blender import compat
from ..write.keys import read_points

if TYPE_CHECKING:
    from bpy.types import Object

    from ..write.keys import ChannelKey


@dataclass(frozen=True)
class KeyedSpan:
    """The frames ``[first, last]`` the solved channels' existing keys span, in a bake whose
    range they reach beyond (so it joins them).

    Attributes:
        first, last: the earliest and the latest key on any solved channel (frames).
    """

    first: float
    last: float

    @classmethod
    def around(
        cls, obj: Object, channels: Sequence[ChannelKey], frames: Sequence[int], target: str
    ) -> KeyedSpan | None:
        """The span of ``obj``'s existing keys on ``channels`` when a bake of ``frames`` into
        ``target`` (a :data:`.target.TARGETS` name) joins them: some key lies outside
        ``[frames[0], frames[-1]]`` and stays in the action the bake writes to (not a new
        strip's empty action). None otherwise: the bake starts from the rest pose."""
        if target == "NEW_STRIP":
            return None
        keyed = [_key_frames(obj, path, index) for path, index, _group in channels]
        found = np.concatenate([k for k in keyed if k.size] or [np.zeros(0)])
        if not found.size:
            return None
        first, last = float(found.min()), float(found.max())
        if first >= frames[0] and last <= frames[-1]:
            return None
        return cls(first, last)

    def starts(self, frame: int, index: int, smooth: bool) -> bool:
        """Whether the bake's ``index``-th frame, ``frame``, starts from the pose the existing
        keys give there: the first frame, and every frame within the keys' span unless the
        bake is smooth (its bound holds each frame to the previous frame's solution)."""
        return index == 0 or (not smooth and self.first <= frame <= self.last)


def _key_frames(obj: Object, path: str, index: int) -> np.ndarray:
    """Frames (n,) of the keys on one channel of ``obj``'s action (empty without any)."""
    fcurve = compat.find_fcurve(obj, path, index)
    if fcurve is None or not len(fcurve.keyframe_points):
        return np.zeros(0)
    co = np.empty(2 * len(fcurve.keyframe_points), dtype=np.float32)
    read_points(fcurve.keyframe_points, "co", co)
    return co[0::2].astype(float)
