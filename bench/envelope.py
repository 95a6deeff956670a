"""Reach Envelope speed: the demo metarig's left arm at issue 21's size (>= 10,000 samples).

Run as ``OPENBLAS_NUM_THREADS=1 .venv/bin/python -m bench.envelope``. In one process it
installs the extension, builds the demo scene at its first frame (:mod:`examples.blender_demo`:
feet planted, gaze kept) and maps *Hand L* at :data:`RESOLUTION` (10,144 samples):

1. ``bpy.ops.reach.envelope`` end to end (the samples' solves and the cloud object),
   :data:`RUNS` times: wall and process CPU time, median and largest;
2. one :class:`EnvelopeJob` run step by step, timed by the way each step solved its samples
   (a batch, or one by one as a Solve), with the counts: samples, those no pose reaches
   (decided without a solve), batched, solved one by one, reached; then the same with
   *Require Orientation* (the hand holding the target's orientation).

It writes the section ``envelope`` of ``bench/BLENDER_RESULTS.md`` (the goal of issue 21:
10,000 samples in <= 10 s on the project's machine) and prints it.
"""

from __future__ import annotations

import importlib
import statistics
import time
from pathlib import Path

from bench.report import machine_line
from bench.sections import write_section
from examples.envelope import demo_at_first_frame

RESOLUTION = 28
RUNS = 3
CONSTRAINT = "Hand L"
EXTENSION = "bl_ext.user_default.reach_ik"
RESULTS = Path(__file__).resolve().parent / "BLENDER_RESULTS.md"


def _operator_runs(rig: object) -> tuple[list[float], list[float], str]:
    """Wall and CPU seconds of :data:`RUNS` envelope operators, and the last one's report."""
    import bpy

    settings = rig.reach_ik
    settings.active_index = next(
        k for k, item in enumerate(settings.constraints) if item.name == CONSTRAINT
    )
    wall, cpu = [], []
    for _ in range(RUNS):
        start, clock = time.perf_counter(), time.process_time()
        assert bpy.ops.reach.envelope(resolution=RESOLUTION) == {"FINISHED"}
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - clock)
    cloud = bpy.data.objects[f"Envelope {CONSTRAINT}"]
    report = (
        f"{cloud['reach_reached']} of {cloud['reach_samples']} samples reached "
        f"(spacing {cloud['reach_spacing']:.4f})"
    )
    for obj in [o for o in bpy.data.objects if o.name.startswith("Envelope ")]:
        bpy.data.objects.remove(obj)
    return wall, cpu, report


def _phases(rig: object, orientation: bool = False) -> str:
    """One job, step by step: wall and CPU seconds and samples by way of solving."""
    import bpy

    reach_map = importlib.import_module(f"{EXTENSION}.bridge.envelope.reach_map")
    start = time.perf_counter()
    job = reach_map.EnvelopeJob(
        rig, rig.reach_ik, bpy.context.scene, bpy.context.view_layer, CONSTRAINT, RESOLUTION,
        orientation=orientation,
    )  # fmt: skip
    setup = time.perf_counter() - start
    skipped = job.index
    seconds = {"batch": 0.0, "one by one": 0.0}
    cpu = dict(seconds)
    counts = dict.fromkeys(seconds, 0)
    while not job.done:
        way = "batch" if job._batched else "one by one"
        before = job.index
        start, clock = time.perf_counter(), time.process_time()
        job.step()
        seconds[way] += time.perf_counter() - start
        cpu[way] += time.process_time() - clock
        counts[way] += job.index - before
    parts = ", ".join(
        f"{counts[w]:,} {w} in {seconds[w]:.2f} s (CPU {cpu[w]:.2f} s)" for w in seconds
    )
    held = ", orientation held" if orientation else ""
    return (
        f"one job step by step{held}: {len(job.points):,} samples, {skipped:,} no pose reaches "
        f"(no solve; set-up {setup:.2f} s), {parts}; {int(job.reached.sum()):,} reached"
    )


def main() -> None:
    """Measure and write the section."""
    rig = demo_at_first_frame()
    import bpy

    phases = f"{_phases(rig)}\n{_phases(rig, orientation=True)}"
    wall, cpu, report = _operator_runs(rig)
    body = (
        "## Reach Envelope of the demo metarig's left arm (`python -m bench.envelope`)\n\n"
        f"Machine: {machine_line()}; {time.strftime('%Y-%m-%d')}.\n\n```\n"
        f"Blender {bpy.app.version_string}; constraint '{CONSTRAINT}' at frame 1 (feet planted, "
        f"gaze kept), resolution {RESOLUTION}: {report}\n"
        f"reach.envelope (operator): wall median {statistics.median(wall):.2f} s, largest "
        f"{max(wall):.2f} s; CPU median {statistics.median(cpu):.2f} s, largest "
        f"{max(cpu):.2f} s ({RUNS} runs; issue 21 asks <= 10 s)\n"
        f"{phases}\n```"
    )
    write_section(RESULTS, "envelope", body)
    print(body)


if __name__ == "__main__":
    from examples.blender_demo import run_and_leave

    run_and_leave(main)
