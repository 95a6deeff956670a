"""``reach_merge``: key a shot from the chunk files ``reach_bake --chunk`` wrote, then measure
it as ``reach_check`` does (exit code 0 every goal met, 1 some goal missed, 2 error).

Where two chunks meet, the lead-in frames of the later one are blended from both chunks and
solved again (:mod:`..bridge.bake.stitch`): no jump at a boundary. It refuses (exit code 2,
nothing written) chunks baked from another version of the .blend (their fingerprint is not
this file's), chunks that overlap or leave a gap or do not cover the shot they were baked
for, and chunks of an armature the file does not have. Every chunk is read, checked and
stitched before any key is written.
"""

from __future__ import annotations

from collections import defaultdict

from ..bridge.bake.chunk import ChunkKeys, write_chunks
from ..bridge.bake.stitch import stitch
from ..bridge.measure.over_frames import measure_frames
from ..props.access import settings_of
from . import chunk_file, running, shot
from .options import MergeOptions, parse_merge
from .report_json import ArmatureOutcome, CommandReport
from .shot import CommandError

COMMAND = "reach_merge"


def run(argv: list[str]) -> int:
    """``reach_merge CHUNK.json... [options]`` on the loaded file; the exit code."""
    return running.command(COMMAND, argv, parse_merge, _merge)


def _merge(options: MergeOptions, report: CommandReport) -> None:
    running.check_writable(options.output, "--output")
    scene = shot.scene(options.scene)
    this_file = chunk_file.fingerprint()
    per_armature: dict[str, list[ChunkKeys]] = defaultdict(list)
    shots = set()
    for path in options.chunks:
        the_shot, chunks = chunk_file.read(path, this_file)
        shots.add(the_shot)
        for keys in chunks:
            per_armature[keys.armature].append(keys)
    if len(shots) != 1:
        raise CommandError(f"the chunks belong to different shots: {sorted(shots)}")
    [(first, last)] = shots
    objects = shot.armatures(scene, sorted(per_armature))  # every one is there
    depsgraph = shot.depsgraph(scene)
    stitched = {}
    for obj in objects:  # every armature's keys ready before any is written
        settings = settings_of(obj)
        with running.about(obj.name):
            stitched[obj.name] = stitch(obj, settings, per_armature[obj.name], scene=scene,
                                        depsgraph=depsgraph,
                                        bones=shot.bones_to_key(obj, settings),
                                        smooth=shot.smooth_bound(settings))  # fmt: skip
        covered = stitched[obj.name].frames
        if covered != (first, last):
            raise CommandError(f"the chunks of '{obj.name}' cover {covered[0]}-{covered[1]} of "
                               f"the shot {first}-{last}: a chunk is missing")  # fmt: skip
    for obj in objects:
        keys = stitched[obj.name]
        with running.about(obj.name):
            written = write_chunks(obj, keys, options.target, options.mode)
            frames = list(range(keys.frames[0], keys.frames[1] + 1))
            worst = measure_frames(obj, settings_of(obj), scene, depsgraph, frames)
        report.armatures.append(ArmatureOutcome(obj.name, keys.frames, worst, keys=written))
    report.extra["chunks"] = list(options.chunks)
    report.saved = running.save(options.save, options.output)
