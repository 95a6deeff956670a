"""A shot baked in chunks by separate processes, then keyed in one go: the keys of one chunk.

A farm splits a shot's frames into chunks baked at the same time. A bake is a chain (each frame
starts from the previous frame's solution, :mod:`.start`), so a chunk cannot start where the
unsplit bake would be without baking everything before it. :func:`bake_chunk` starts earlier
instead: it solves ``lead_in`` frames before the chunk's first frame (never before the shot's
first frame; the first chunk has none and is the unsplit bake's start exactly), keeps the
chunk's own frames, and keeps the lead-in's keys for the merge's stitch (:mod:`.stitch`). Every
goal the unsplit bake meets, a chunk meets; but a redundant limb's free motion (its null space)
keeps what the start left in it, and a longer lead-in does not wash it out: a later chunk's
keys are not the unsplit bake's (docs/farm.md gives the figures measured on the demo and a
3-bone chain). The same chunking always gives the same keys.

The chunk is baked with :func:`.baking.bake` into the process's copy of the file after the
solved channels' keys inside the shot are removed (as the unsplit bake of the shot replaces
them, so they never change where a chunk starts), read back from the F-curves and measured as
Blender plays them. A chunk's process never saves the file; :func:`write_chunks` keys the
chunks into the armature as one bake would (:class:`.target.BakeTarget`,
:func:`..write.keys.write_keys`).

``bpy`` is used only through :mod:`..blender.compat` and the objects passed in.
"""

from __future__ import annotations

import itertools
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..blender import compat
from ..errors import RigError
from ..measure.over_frames import WorstOverFrames, measure_frames
from ..rig.build import build_rig
from ..write import keys
from .baking import TIME_LIMIT, BakeReport, bake, only_bones
from .target import BakeTarget

if TYPE_CHECKING:
    from bpy.types import Depsgraph, Object, Scene

    from ...props.groups import ReachSettings


@dataclass(frozen=True)
class ChunkKeys:
    """The keys one chunk baked for one armature.

    Attributes:
        armature: the armature object's name.
        frames: (first, last) kept frames, inclusive; one key per frame.
        channels: the keyed channels ``(data_path, array_index, group)``.
        values: (n_channels, n_frames) key values (radians, scene units, quaternion parts),
            as Blender stored them (float32).
        solved_from: the first frame solved (``frames[0]`` minus the lead-in, or the shot's
            first frame).
        lead: (n_channels, frames[0] - solved_from) the key values of the lead-in frames,
            which the merge blends into the chunk before (:mod:`.stitch`).
        method: the solve method the chunk was baked with (None: the armature's own).
    """

    armature: str
    frames: tuple[int, int]
    channels: tuple[keys.ChannelKey, ...]
    values: np.ndarray
    solved_from: int
    lead: np.ndarray
    method: str | None = None

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (floats as Python floats: a float32 survives the round trip)."""
        return {
            "armature": self.armature, "frames": list(self.frames),
            "solved_from": self.solved_from,
            "channels": [list(c) for c in self.channels],
            "values": [[float(v) for v in row] for row in self.values],
            "lead": [[float(v) for v in row] for row in self.lead], "method": self.method,
        }  # fmt: skip

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ChunkKeys:
        """The inverse of :meth:`to_json`; RigError on a malformed entry."""
        try:
            first, last = (int(f) for f in data["frames"])
            channels = tuple((str(p), int(i), str(g)) for p, i, g in data["channels"])
            values = np.array(data["values"], dtype=float).reshape(len(channels), -1)
            solved_from = int(data["solved_from"])
            lead = np.array(data["lead"], dtype=float).reshape(len(channels), first - solved_from)
            method = None if data.get("method") is None else str(data["method"])
            chunk = cls(str(data["armature"]), (first, last), channels, values, solved_from,
                        lead, method)  # fmt: skip
        except (KeyError, TypeError, ValueError) as exc:
            raise RigError(f"a chunk entry is malformed: {exc}") from None
        if values.shape[1] != last - first + 1:
            raise RigError(
                f"chunk of '{chunk.armature}' {first}-{last}: "
                f"{values.shape[1]} keys per channel for {last - first + 1} frames"
            )
        return chunk


def solve_range(frames: tuple[int, int], shot: tuple[int, int], lead_in: int) -> list[int]:
    """The frames a chunk solves: ``lead_in`` frames before ``frames`` (not before the shot's
    first frame) and the chunk's own; RigError when the chunk lies outside the shot."""
    first, last = frames
    if first < shot[0] or last > shot[1]:
        raise RigError(f"the chunk {first}-{last} is not inside the shot {shot[0]}-{shot[1]}")
    return list(range(max(shot[0], first - max(lead_in, 0)), last + 1))


def bake_chunk(obj: Object, settings: ReachSettings, frames: tuple[int, int],
               shot: tuple[int, int], lead_in: int, *, scene: Scene, depsgraph: Depsgraph,
               bones: Collection[str] | None = None, method: str | None = None,
               smooth: float | None = None, time_limit: float | None = None,
               ) -> tuple[ChunkKeys, BakeReport, list[WorstOverFrames]]:  # fmt: skip
    """Bake one chunk (see the module docstring) into this session's copy of the file.

    The solved channels' keys inside the shot are removed first, as the unsplit bake of the
    shot replaces them, so they never change where a chunk starts; then the chunk's frames
    (with the lead-in) are baked into the current action and measured as Blender plays them
    back. The session's file is changed: a chunk's process does not save it.

    Args:
        obj, settings: the armature and its Reach settings.
        frames: the chunk's (first, last) frames, inclusive, inside ``shot``.
        shot: the whole shot's (first, last) frames.
        lead_in: frames solved before ``frames[0]`` and not kept.
        scene, depsgraph, bones, method, smooth, time_limit: as for :class:`.baking.BakeJob`.

    Returns:
        The chunk's keys, the bake's report (its frames include the lead-in) and the worst
        residuals measured over the chunk's own frames.

    Raises:
        BakeError / RigError: the chunk cannot be baked.
    """
    solved = solve_range(frames, shot, lead_in)
    keys.clear_solved_keys(obj, settings, (float(shot[0]), float(shot[1])))
    # One frame after another, as the unsplit bake of the shot (cli.bake_command).
    report = bake(obj, settings, solved, "REPLACE", scene=scene, depsgraph=depsgraph,
                  bones=bones, method=method, smooth=smooth,
                  time_limit=TIME_LIMIT if time_limit is None else time_limit,
                  batched=False)  # fmt: skip
    channels = _keyed_channels(obj, report, bones, settings)
    values = np.array([values_at(fcurve, (solved[0], frames[1])) for _key, fcurve in channels])
    worst = measure_frames(obj, settings, scene, depsgraph, range(frames[0], frames[1] + 1))
    n_lead = frames[0] - solved[0]
    chunk = ChunkKeys(obj.name, frames, tuple(k for k, _f in channels), values[:, n_lead:],
                      solved[0], values[:, :n_lead], method)  # fmt: skip
    return chunk, report, worst


def _keyed_channels(obj: Object, report: BakeReport, bones: Collection[str] | None,
                    settings: ReachSettings) -> list[tuple[keys.ChannelKey, Any]]:  # fmt: skip
    """The channels the bake keyed, with their F-curves, in the rig's channel order."""
    channels = keys.solved_channels(build_rig(obj, settings))
    out = []
    for path, index, group in channels if bones is None else only_bones(channels, bones):
        fcurve = compat.find_fcurve(obj, path, index)
        if fcurve is None:
            raise RigError(f"the bake of '{obj.name}' left no keys on {path}[{index}]")
        out.append(((path, index, group), fcurve))
    if len(out) != report.n_channels:
        raise RigError(
            f"the bake of '{obj.name}' keyed {report.n_channels} channels, {len(out)} found"
        )
    return out


def values_at(fcurve: Any, frames: tuple[int, int]) -> np.ndarray:
    """The key values (n,) of ``fcurve`` on each frame of ``frames`` (one key per frame)."""
    points = fcurve.keyframe_points
    co = np.empty(2 * len(points), dtype=np.float32)
    keys.read_points(points, "co", co)
    at, value = co[0::2].astype(float), co[1::2].astype(float)
    wanted = np.arange(frames[0], frames[1] + 1, dtype=float)
    index = np.searchsorted(at, wanted)
    if np.any(index >= len(at)) or not np.allclose(at[np.minimum(index, len(at) - 1)], wanted):
        raise RigError(f"the bake left no key on some frame of {frames[0]}-{frames[1]} "
                       f"of '{fcurve.data_path}'")  # fmt: skip
    return value[index]


def join(chunks: Sequence[ChunkKeys]) -> ChunkKeys:
    """The chunks of one armature as one run of frames; RigError when they overlap, leave a
    gap, or key other channels (a chunk of another rig or another bake's settings)."""
    ordered = sorted(chunks, key=lambda c: c.frames[0])
    first = ordered[0]
    for before, after in itertools.pairwise(ordered):
        if after.frames[0] != before.frames[1] + 1:
            raise RigError(
                f"chunks of '{first.armature}' {before.frames[0]}-{before.frames[1]} "
                f"and {after.frames[0]}-{after.frames[1]} "
                f"{'overlap' if after.frames[0] <= before.frames[1] else 'leave a gap'}"
            )
        if after.channels != first.channels:
            raise RigError(f"the chunk {after.frames[0]}-{after.frames[1]} of "
                           f"'{first.armature}' keys other channels than the chunk "
                           f"{first.frames[0]}-{first.frames[1]}")  # fmt: skip
    values = np.concatenate([c.values for c in ordered], axis=1)
    frames = (first.frames[0], ordered[-1].frames[1])
    return ChunkKeys(first.armature, frames, first.channels, values, first.solved_from,
                     first.lead, first.method)  # fmt: skip


def write_chunks(obj: Object, chunk: ChunkKeys, target: str, mode: str) -> int:
    """Key ``chunk`` (one armature's joined chunks, :func:`join`) into ``obj`` as a bake into
    ``target`` with ``mode`` would; return the number of keys written."""
    frames = np.arange(chunk.frames[0], chunk.frames[1] + 1, dtype=float)
    data = {key: (frames, chunk.values[row]) for row, key in enumerate(chunk.channels)}
    bounds = (float(frames[0]), float(frames[-1]))
    return BakeTarget(obj, target, chunk.frames[0]).write(
        lambda: keys.write_keys(obj, data, bounds, mode)
    )
