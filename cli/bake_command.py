"""``reach_bake``: bake the Reach constraints of a shot's armatures into keys, or one chunk of
the shot into a chunk file for ``reach_merge`` (docs/farm.md).

Each armature is baked by :func:`..bridge.bake.baking.bake` (the Bake button's bake, with the
armature's own Only Selected Bones and Smooth settings, one frame after another: a chunk must
start as the unsplit bake of the shot does, which the batched path's anchors ahead of a frame
would change, :mod:`..bridge.bake.batched`), then every frame is measured as
Blender plays it back (:func:`..bridge.measure.over_frames.measure_frames`) for the report's
worst residual and its frame. The file is saved only after every armature baked.
"""

from __future__ import annotations

import bpy

from ..bridge.bake import baking, chunk
from ..bridge.measure.over_frames import measure_frames
from ..props.access import settings_of
from . import chunk_file, running, shot
from .options import BakeOptions, parse_bake
from .report_json import ArmatureOutcome, CommandReport

COMMAND = "reach_bake"


def run(argv: list[str]) -> int:
    """``reach_bake [options]`` on the loaded file; the exit code (see :mod:`.report_json`)."""
    return running.command(COMMAND, argv, parse_bake, _bake)


def _bake(options: BakeOptions, report: CommandReport) -> None:
    running.check_writable(options.output, "--output")
    running.check_writable(options.chunk, "--chunk")
    scene = shot.scene(options.scene)
    objects = shot.armatures(scene, options.armatures)
    frames = shot.frames(scene, options.frames)
    depsgraph = shot.depsgraph(scene)
    if options.chunk is not None:
        _bake_chunk(options, report, scene, depsgraph, objects, frames)
        return
    time_limit = baking.TIME_LIMIT if options.time_limit is None else options.time_limit
    for obj in objects:
        settings = settings_of(obj)
        with running.about(obj.name):
            baked = baking.bake(obj, settings, frames, options.mode, scene=scene,
                                depsgraph=depsgraph, target=options.target,
                                bones=shot.bones_to_key(obj, settings), method=options.method,
                                smooth=shot.smooth_bound(settings),
                                time_limit=time_limit, batched=False)  # fmt: skip
            worst = measure_frames(obj, settings, scene, depsgraph, frames)
        report.armatures.append(ArmatureOutcome(obj.name, (frames[0], frames[-1]), worst, baked))
    report.saved = running.save(options.save, options.output)


def _bake_chunk(options: BakeOptions, report: CommandReport, scene: bpy.types.Scene,
                depsgraph: bpy.types.Depsgraph, objects: list[bpy.types.Object],
                frames: list[int]) -> None:  # fmt: skip
    """Bake ``frames`` of each armature as one chunk of the shot into ``options.chunk``."""
    assert options.chunk is not None, "called for a --chunk bake only"
    the_shot = options.shot or (scene.frame_start, scene.frame_end)
    span = (frames[0], frames[-1])
    fingerprint = chunk_file.fingerprint()  # of the file as loaded, before anything changes
    baked = []
    for obj in objects:
        settings = settings_of(obj)
        with running.about(obj.name):
            keys, bake_report, worst = chunk.bake_chunk(
                obj, settings, span, the_shot, options.lead_in, scene=scene,
                depsgraph=depsgraph, bones=shot.bones_to_key(obj, settings),
                method=options.method, smooth=shot.smooth_bound(settings),
                time_limit=options.time_limit,
            )  # fmt: skip
        baked.append(keys)
        report.armatures.append(ArmatureOutcome(obj.name, span, worst, bake_report))
    chunk_file.write(options.chunk, fingerprint, the_shot, options.lead_in, baked)
    report.extra["chunk"] = options.chunk
