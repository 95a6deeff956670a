"""``reach_check``: measure the residuals of what is already baked, as Blender plays it back;
write nothing (exit code 0 every goal met, 1 some goal missed, 2 error)."""

from __future__ import annotations

from ..bridge.measure.over_frames import measure_frames
from ..props.access import settings_of
from . import running, shot
from .options import CheckOptions, parse_check
from .report_json import ArmatureOutcome, CommandReport

COMMAND = "reach_check"


def run(argv: list[str]) -> int:
    """``reach_check [options]`` on the loaded file; the exit code."""
    return running.command(COMMAND, argv, parse_check, _check)


def _check(options: CheckOptions, report: CommandReport) -> None:
    scene = shot.scene(options.scene)
    frames = shot.frames(scene, options.frames)
    depsgraph = shot.depsgraph(scene)
    for obj in shot.armatures(scene, options.armatures):
        with running.about(obj.name):
            worst = measure_frames(obj, settings_of(obj), scene, depsgraph, frames)
        report.armatures.append(ArmatureOutcome(obj.name, (frames[0], frames[-1]), worst))
