"""Where two chunks of a shot meet, the pose passes from one to the other over a few frames,
every one of them solved: no jump at a chunk boundary.

Two chunks reach the same goals at their boundary but not with the same pose: a redundant limb
keeps, in its free motion (null space), what its start left in it, and a chunk starts from
another pose than the unsplit bake (:mod:`.chunk`). Joined as they are, the keys jump there.

The merge knows both sides on the lead-in frames before a chunk's first frame: the previous
chunk keyed them, and the chunk solved them (and kept them as ``lead``). :func:`stitch` blends
the two there, channel by channel, with a weight rising smoothly from the previous chunk (0)
to the next one (1) (quaternions on the same side first), writes the blend as keys, and bakes
those frames again as a bake of part of a keyed range: each frame starts from the blended pose
(:mod:`.join`) and is solved, so it meets its goals with the least change from the blend. The
frames of each chunk outside the lead-in keep the chunk's keys. Everything happens in a copy of
the armature's action that is removed afterwards; the caller writes the result.

``bpy`` is used only through :mod:`..blender.compat` and the objects passed in.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from ..blender import compat
from ..errors import RigError
from ..write import keys
from .baking import TIME_LIMIT, bake
from .chunk import ChunkKeys, join, values_at
from .target import BakeTarget

if TYPE_CHECKING:
    from bpy.types import Depsgraph, Object, Scene

    from ...props.groups import ReachSettings


def weights(n: int) -> np.ndarray:
    """(n,) blend weights of the next chunk over ``n`` lead-in frames: smoothstep from near
    0 to near 1, never reaching either (the end frames belong to the chunks)."""
    t = np.arange(1, n + 1, dtype=float) / (n + 1)
    return t * t * (3.0 - 2.0 * t)


def blend(channels: Sequence[keys.ChannelKey], before: np.ndarray, after: np.ndarray,
          ) -> np.ndarray:  # fmt: skip
    """Blend ``before`` into ``after`` (both (n_channels, n) key values over the same frames)
    with :func:`weights`; a bone's quaternion is first put on ``before``'s side (q and -q are
    the same rotation)."""
    after = after.copy()
    rows: dict[str, list[int]] = {}
    for row, (path, _index, _group) in enumerate(channels):
        if path.endswith(".rotation_quaternion"):
            rows.setdefault(path, []).append(row)
    for quaternion in rows.values():
        flip = np.sum(before[quaternion] * after[quaternion], axis=0) < 0.0
        after[quaternion] = np.where(flip, -after[quaternion], after[quaternion])
    w = weights(before.shape[1])
    return (1.0 - w) * before + w * after


def stitch(obj: Object, settings: ReachSettings, chunks: Sequence[ChunkKeys], *, scene: Scene,
           depsgraph: Depsgraph, bones: Collection[str] | None = None,
           smooth: float | None = None, time_limit: float = TIME_LIMIT) -> ChunkKeys:  # fmt: skip
    """The chunks of one armature joined (:func:`.chunk.join`), each boundary's lead-in
    frames blended and solved again (see the module docstring); the file is left as it was.

    Raises:
        RigError / BakeError: the chunks do not fit together, or a frame cannot be solved.
    """
    ordered = sorted(chunks, key=lambda c: c.frames[0])
    joined = join(ordered)
    values = joined.values.copy()
    windows = []
    for chunk in ordered[1:]:
        n = chunk.frames[0] - chunk.solved_from
        if n == 0:
            continue
        columns = np.arange(chunk.solved_from, chunk.frames[0]) - joined.frames[0]
        values[:, columns] = blend(joined.channels, values[:, columns], chunk.lead)
        windows.append((chunk.solved_from, chunk.frames[0] - 1))
    if not windows:
        return joined
    frames = np.arange(joined.frames[0], joined.frames[1] + 1, dtype=float)
    data = {key: (frames, values[row]) for row, key in enumerate(joined.channels)}
    work = BakeTarget(obj, "NEW_ACTION", joined.frames[0])  # a copy of the action, removed below
    try:
        work.write(lambda: keys.write_keys(obj, data, (frames[0], frames[-1]), "REPLACE"))
        for first, last in windows:
            bake(obj, settings, range(first, last + 1), "REPLACE", scene=scene,
                 depsgraph=depsgraph, bones=bones, method=joined.method, smooth=smooth,
                 time_limit=time_limit)  # fmt: skip
        stitched = []
        for path, index, _group in joined.channels:
            fcurve = compat.find_fcurve(obj, path, index)
            if fcurve is None:
                raise RigError(f"the stitch of '{obj.name}' lost the channel {path}[{index}]")
            stitched.append(values_at(fcurve, joined.frames))
    finally:
        work.undo()
    return replace(joined, values=np.array(stitched))
