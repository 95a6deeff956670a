"""Blender-side speed: bake of the demo rig, solve-at-frame, and Blender's own Bake Action.

Run as ``.venv/bin/python -m bench.blender_bake``. In one process:

1. the demo scene (Rigify metarig, 51 DOF, 5 constraints, 120 frames of animated targets)
   baked with ``bpy.ops.reach.bake`` (solving + bulk key writing), best and median of runs;
2. ``bpy.ops.reach.solve`` at single frames of the same rig (the whole operator: reading the
   rig, building the problem, solving, writing the pose), median and p95 in ms;
3. the same motion driven by Blender's built-in IK constraints (hands and feet, same chains,
   Damped Track for the look-at) baked with ``bpy.ops.nla.bake`` (visual keying), and the
   ratio of frame rates. Tip errors of both bakes are printed too.
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path

import numpy as np

from examples.blender_demo import (
    FRAMES,
    _isolate_blender_home,
    build_scene,
    install_extension,
    last_report,
)

RUNS = 3
RESULTS = Path(__file__).resolve().parent / "BLENDER_RESULTS.md"


def _tip_errors(rig: object) -> tuple[float, float]:
    """Worst tip distance (units) and aim angle (degrees) over all frames and constraints."""
    import bpy

    scene = bpy.context.scene
    worst_distance = worst_angle = 0.0
    for frame in range(1, FRAMES + 1):
        scene.frame_set(frame)
        depsgraph = bpy.context.evaluated_depsgraph_get()
        evaluated = rig.evaluated_get(depsgraph)
        for item in rig.reach_ik.constraints:
            pb = evaluated.pose.bones[item.bone]
            target = np.array(item.target.matrix_world.translation)
            if item.goal_type == "AIM":
                m = np.array(evaluated.matrix_world @ pb.matrix)
                d = target - m[:3, 3]
                c = np.dot(m[:3, 2], d) / (np.linalg.norm(m[:3, 2]) * np.linalg.norm(d))
                worst_angle = max(worst_angle, float(np.degrees(np.arccos(min(1.0, c)))))
            else:
                tail = np.array(evaluated.matrix_world @ pb.tail)
                worst_distance = max(worst_distance, float(np.linalg.norm(tail - target)))
    return worst_distance, worst_angle


def bench_reach_bake(rig: object) -> list[float]:
    """Frames per second of ``reach.bake`` over the demo range, one figure per run."""
    import bpy

    rates = []
    for _ in range(RUNS):
        bpy.context.scene.frame_set(1)
        start = time.perf_counter()
        assert bpy.ops.reach.bake(mode="REPLACE") == {"FINISHED"}
        rates.append(FRAMES / (time.perf_counter() - start))
    return rates


def bench_solve_at_frame(rig: object) -> list[float]:
    """Milliseconds of ``reach.solve`` at frames across the range (pose then reset by frame)."""
    import bpy

    scene = bpy.context.scene
    times = []
    for frame in list(range(1, FRAMES + 1, 4)) * 2:
        scene.frame_set(frame)  # the baked keys put the rig near, not at, the new targets
        scene.frame_set(max(1, frame - 2))
        scene.frame_current = frame  # targets of `frame`, pose of two frames earlier
        bpy.context.view_layer.update()
        start = time.perf_counter()
        assert bpy.ops.reach.solve() == {"FINISHED"}
        times.append(1000.0 * (time.perf_counter() - start))
    return times


def setup_builtin_ik(rig: object) -> None:
    """Blender's own constraints for the same motion; Reach constraints disabled."""
    chain_count = {"Hand L": 4, "Hand R": 4, "Foot L": 3, "Foot R": 3}
    for item in rig.reach_ik.constraints:
        item.enabled = False
        pb = rig.pose.bones[item.bone]
        if item.goal_type == "AIM":
            con = pb.constraints.new("DAMPED_TRACK")
            con.target = item.target
            con.track_axis = "TRACK_Z"
        else:
            con = pb.constraints.new("IK")
            con.target = item.target
            con.chain_count = chain_count[item.name]


def bench_blender_bake(rig: object) -> list[float]:
    """Frames per second of ``nla.bake`` (visual keying) of the built-in IK motion."""
    import bpy

    bpy.context.view_layer.objects.active = rig
    bpy.ops.object.mode_set(mode="POSE")
    rates = []
    for _ in range(RUNS):
        rig.animation_data.action = None
        start = time.perf_counter()
        result = bpy.ops.nla.bake(
            frame_start=1, frame_end=FRAMES, only_selected=False, visual_keying=True,
            clear_constraints=False, use_current_action=True, bake_types={"POSE"},
        )  # fmt: skip
        rates.append(FRAMES / (time.perf_counter() - start))
        assert result == {"FINISHED"}, result
    bpy.ops.object.mode_set(mode="OBJECT")
    return rates


def main() -> None:
    """Run the three measurements and print the figures."""
    _isolate_blender_home()
    import bpy

    install_extension()
    rig = build_scene()
    bpy.context.view_layer.objects.active = rig
    reach_rates = bench_reach_bake(rig)
    dof = last_report(rig).n_dof
    reach_errors = _tip_errors(rig)
    solve_ms = bench_solve_at_frame(rig)
    setup_builtin_ik(rig)
    for pb in rig.pose.bones:  # the built-in constraints drive the pose now
        pb.matrix_basis.identity()
    blender_rates = bench_blender_bake(rig)
    for pb in rig.pose.bones:  # measure the baked keys alone
        for con in pb.constraints:
            con.mute = True
    blender_errors = _tip_errors(rig)
    reach_best, blender_best = max(reach_rates), max(blender_rates)
    lines = [
        f"Blender {bpy.app.version_string}; demo rig: {dof} DOF, "
        f"{len(rig.reach_ik.constraints)} constraints, {FRAMES} frames",
        f"reach.bake:        best {reach_best:7.1f} frames/s, median "
        f"{statistics.median(reach_rates):7.1f} (keys included; {RUNS} runs)",
        f"reach.solve:       median {statistics.median(solve_ms):6.2f} ms, p95 "
        f"{np.percentile(solve_ms, 95):6.2f} ms ({len(solve_ms)} solves)",
        f"nla.bake (IK):     best {blender_best:7.1f} frames/s, median "
        f"{statistics.median(blender_rates):7.1f} (visual keying, built-in IK + Damped Track)",
        f"ratio reach/Blender bake speed: {reach_best / blender_best:.2f}",
        f"worst tip error / aim angle: Reach {reach_errors[0]:.2e} units, "
        f"{reach_errors[1]:.3f} deg; Blender IK {blender_errors[0]:.2e} units, "
        f"{blender_errors[1]:.3f} deg",
    ]
    print("\n".join(lines))
    from bench.report import machine_line

    RESULTS.write_text(
        "# Blender bake benchmark (`make bench-blender`)\n\n"
        f"Machine: {machine_line()}; {time.strftime('%Y-%m-%d')}.\n\n"
        "```\n" + "\n".join(lines) + "\n```\n"
    )


if __name__ == "__main__":
    main()
