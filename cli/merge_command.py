"""``reach_merge``: key a shot from the chunk files ``reach_bake --chunk`` wrote, then measure
it as ``reach_check`` does (exit code 0 every goal met, 1 some goal missed, 2 error).

It refuses (exit code 2, nothing written) chunks baked from another version of the .blend
(their fingerprint is not this file's), chunks that overlap or leave a gap, and chunks of an
armature the file does not have. Every chunk is read and checked before any key is written.
"""

from __future__ import annotations

from collections import defaultdict

from ..bridge.bake.chunk import ChunkKeys, join, write_chunks
from ..bridge.measure.over_frames import measure_frames
from ..props.access import settings_of
from . import chunk_file, running, shot
from .options import MergeOptions, parse_merge
from .report_json import ArmatureOutcome, CommandReport

COMMAND = "reach_merge"


def run(argv: list[str]) -> int:
    """``reach_merge CHUNK.json... [options]`` on the loaded file; the exit code."""
    return running.command(COMMAND, argv, parse_merge, _merge)


def _merge(options: MergeOptions, report: CommandReport) -> None:
    running.check_writable(options.output, "--output")
    scene = shot.scene(options.scene)
    this_file = chunk_file.fingerprint()
    per_armature: dict[str, list[ChunkKeys]] = defaultdict(list)
    for path in options.chunks:
        for keys in chunk_file.read(path, this_file):
            per_armature[keys.armature].append(keys)
    joined = {name: join(chunks) for name, chunks in sorted(per_armature.items())}
    objects = shot.armatures(scene, list(joined))  # every armature is there, before writing
    depsgraph = shot.depsgraph(scene)
    for obj in objects:
        keys = joined[obj.name]
        with running.about(obj.name):
            written = write_chunks(obj, keys, options.target, options.mode)
            frames = list(range(keys.frames[0], keys.frames[1] + 1))
            worst = measure_frames(obj, settings_of(obj), scene, depsgraph, frames)
        report.armatures.append(ArmatureOutcome(obj.name, keys.frames, worst, keys=written))
    report.extra["chunks"] = list(options.chunks)
    report.saved = running.save(options.save, options.output)
