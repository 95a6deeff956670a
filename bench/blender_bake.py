"""Blender-side speed: bake of the demo rig, solve-at-frame, and Blender's own Bake Action.

Run as ``.venv/bin/python -m bench.blender_bake``. In one process:

1. the demo scene (Rigify metarig, 51 DOF, 5 constraints, 120 frames of animated targets)
   baked once with ``bpy.ops.reach.bake``, for the poses of step 2 and the tip errors;
2. a solve at single frames of the same rig, each from the pose baked two frames earlier
   (read the scene, solve, write the pose, measure it on Blender's evaluated pose): through
   ``bpy.ops.reach.solve`` (the whole operator), through ``RigSession.solve_frame`` on the
   session :mod:`bridge.session.kept` keeps, and on a session built for every solve;
   median and p95 of wall and CPU time (this thread's) in ms;
3. the same motion driven by Blender's built-in IK constraints (hands and feet, same chains,
   Damped Track for the look-at) baked with ``bpy.ops.nla.bake`` (visual keying), in rounds
   of one Reach bake (solving + bulk key writing) then one Blender bake, each from no action
   and the rest pose, so both bakes of a round see the machine's load of the same moment;
   best and median frame rates, and the ratios of frame rates (wall time, and CPU time of the
   whole process, which the machine's other load distorts less) of the best runs and the
   median over the rounds. Tip errors of both bakes are printed too.

   Like with like: Blender's bake keys the bones Reach keys and the same kinds of channel
   (:func:`reach_keyed`; for the demo the rotations of 17 bones), as Bake Action does for
   the selected bones (its default). Keying every one of the metarig's 159 bones, most of
   which nothing moves, costs Blender about three times as much; that bake is timed too
   (first in each round) and printed as a reference row only.

4. on Rigify's generated human (:mod:`bench.rigify_rig`: about 700 bones, drivers, its
   four IK chains converted), a solve after each move of ``hand_ik.L`` around the circle of
   the live-update bench (move, view-layer update, then the timed solve), in the three ways
   of step 2, and the move's update alone (Blender's evaluation of the rig), in
   :data:`GENERATED_ROUNDS` rounds; with its profile. ``python -m bench.blender_bake rigify``
   runs this part alone and replaces only its section of the file.

``python -m bench.blender_bake demo`` runs step 3 alone (the bakes of the demo, Reach's and
Blender's, in rounds) with a profile of one Reach bake, and replaces only its section
(``demo_bakes``) of the file.

``BLENDER_RESULTS.md`` gets the figures and pyinstrument profiles of the solves at frames and
of a bake. ``make bench-blender`` runs it with one BLAS thread, as ``make bench``.
"""

from __future__ import annotations

import importlib
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from bench.rigify_rig import CONTROL, STEPS, drag_to, generated_rig
from bench.sections import marked_sections, write_section
from examples.blender_demo import (
    FRAMES,
    _isolate_blender_home,
    build_scene,
    install_extension,
    last_report,
)

RUNS = 5
EXTENSION = "bl_ext.user_default.reach_ik"
RESULTS = Path(__file__).resolve().parent / "BLENDER_RESULTS.md"
GENERATED_ROUNDS = 2  # drags around the circle per way of solving, on the generated rig


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


def _reach_bake(batched: bool = True) -> tuple[float, float]:
    """Frames per second of one ``reach.bake`` over the demo range and its CPU milliseconds
    per frame (the whole process: Blender's threads count); ``batched`` False: one frame
    after another (the bake before issue 21)."""
    import bpy

    bpy.context.scene.frame_set(1)
    start, start_cpu = time.perf_counter(), time.process_time()
    assert bpy.ops.reach.bake(mode="REPLACE", batched=batched) == {"FINISHED"}
    cpu = 1000.0 * (time.process_time() - start_cpu) / FRAMES
    return FRAMES / (time.perf_counter() - start), cpu


def _baked_poses(rig: object) -> dict[int, list[object]]:
    """Every pose bone's ``matrix_basis`` at every frame of the baked range."""
    import bpy

    poses = {}
    for frame in range(1, FRAMES + 1):
        bpy.context.scene.frame_set(frame)
        poses[frame] = [pb.matrix_basis.copy() for pb in rig.pose.bones]
    return poses


def bench_solve_at_frame(
    rig: object, solve: Callable[[], object]
) -> tuple[list[float], list[float]]:
    """Wall and CPU milliseconds of ``solve()`` at frames across the range, each from the pose
    baked two frames earlier (so every solve iterates: the targets have moved since).

    The rig's action is detached first, so the pose written before a solve is the one the
    solve starts from (a keyed pose would be re-evaluated from its keys); it is put back.
    """
    import bpy

    scene = bpy.context.scene
    poses = _baked_poses(rig)
    action, rig.animation_data.action = rig.animation_data.action, None
    wall, cpu = [], []
    for frame in list(range(3, FRAMES + 1, 4)) * 2:
        scene.frame_set(frame)  # the targets of `frame`
        for pb, matrix in zip(rig.pose.bones, poses[frame - 2], strict=True):
            pb.matrix_basis = matrix
        bpy.context.view_layer.update()
        start, start_cpu = time.perf_counter(), time.thread_time()
        solve()
        cpu.append(1000.0 * (time.thread_time() - start_cpu))
        wall.append(1000.0 * (time.perf_counter() - start))
    rig.animation_data.action = action
    return wall, cpu


def _solvers(rig: object) -> dict[str, Callable[[], object]]:
    """The three ways a frame is solved: the Solve operator, ``RigSession.solve_frame`` on
    the kept session, and on a session built for every solve (the cost of the build)."""
    import bpy

    cache = importlib.import_module(f"{EXTENSION}.bridge.session.kept")
    session = importlib.import_module(f"{EXTENSION}.bridge.session.rig_session")
    args = (rig, rig.reach_ik, bpy.context.scene, bpy.context.view_layer)

    def operator() -> object:
        assert bpy.ops.reach.solve() == {"FINISHED"}
        return None

    def kept() -> object:
        return cache.session_for(*args).solve_frame()

    def rebuilt() -> object:
        return session.RigSession(*args).solve_frame()

    return {
        "reach.solve (operator)": operator,
        "solve_frame (kept session)": kept,
        "solve_frame (built each time)": rebuilt,
    }


def _row(label: str, wall: list[float], cpu: list[float]) -> str:
    return (
        f"{label + ':':31s}median {statistics.median(wall):6.2f} ms, p95 "
        f"{np.percentile(wall, 95):6.2f} ms; CPU median {statistics.median(cpu):6.2f} ms, p95 "
        f"{np.percentile(cpu, 95):6.2f} ms ({len(wall)} solves)"
    )


def setup_builtin_ik(rig: object) -> None:
    """Blender's own constraints for the same motion (muted until :func:`drive_with`)."""
    chain_count = {"Hand L": 4, "Hand R": 4, "Foot L": 3, "Foot R": 3}
    for item in rig.reach_ik.constraints:
        pb = rig.pose.bones[item.bone]
        if item.goal_type == "AIM":
            con = pb.constraints.new("DAMPED_TRACK")
            con.target = item.target
            con.track_axis = "TRACK_Z"
        else:
            con = pb.constraints.new("IK")
            con.target = item.target
            con.chain_count = chain_count[item.name]
        con.mute = True


def reach_keyed(rig: object) -> tuple[set[str], set[str]]:
    """The bones whose channels ``reach.bake`` keys on ``rig`` and the kinds of those channels
    as ``nla.bake`` names them (``"LOCATION"``, ``"ROTATION"``, ``"SCALE"``)."""
    import bpy

    keys = importlib.import_module(f"{EXTENSION}.bridge.write.keys")
    build = importlib.import_module(f"{EXTENSION}.bridge.rig.build")
    with_reach = [item.enabled for item in rig.reach_ik.constraints]
    for item in rig.reach_ik.constraints:  # the rig Reach bakes, whatever drives it now
        item.enabled = True
    try:
        channels = keys.solved_channels(build.build_rig(rig, rig.reach_ik))
    finally:
        for item, enabled in zip(rig.reach_ik.constraints, with_reach, strict=True):
            item.enabled = enabled
        bpy.context.view_layer.update()
    kinds = {"location": "LOCATION", "scale": "SCALE"}
    return (
        {group for _path, _index, group in channels},
        {kinds.get(path.rsplit(".", 1)[1], "ROTATION") for path, _index, _group in channels},
    )


def drive_with(rig: object, reach: bool) -> None:
    """Reach constraints on and Blender's muted (``reach``), or the other way round; no
    action and the rest pose either way, so every bake starts from the same state."""
    for item in rig.reach_ik.constraints:
        item.enabled = reach
    for pb in rig.pose.bones:
        for con in pb.constraints:
            con.mute = reach
        pb.matrix_basis.identity()
    rig.animation_data.action = None


def _blender_bake(rig: object, every_bone: bool = False) -> tuple[float, float]:
    """Frames per second of one ``nla.bake`` (visual keying) of the built-in IK motion, and
    its CPU milliseconds per frame (as :func:`_reach_bake`): of the bones and channel kinds
    Reach keys (:func:`reach_keyed`), or with ``every_bone`` of every bone, all channels."""
    import bpy

    bones, kinds = reach_keyed(rig)
    bpy.context.view_layer.objects.active = rig
    bpy.ops.object.mode_set(mode="POSE")
    for pb in rig.pose.bones:  # Bake Action keys the selected bones (its default)
        pb.select = pb.name in bones
    channels = {"LOCATION", "ROTATION", "SCALE", "BBONE", "PROPS"} if every_bone else kinds
    start, start_cpu = time.perf_counter(), time.process_time()
    result = bpy.ops.nla.bake(
        frame_start=1, frame_end=FRAMES, only_selected=not every_bone, visual_keying=True,
        clear_constraints=False, use_current_action=True, bake_types={"POSE"},
        channel_types=channels,
    )  # fmt: skip
    cpu = 1000.0 * (time.process_time() - start_cpu) / FRAMES
    rate = FRAMES / (time.perf_counter() - start)
    assert result == {"FINISHED"}, result
    bpy.ops.object.mode_set(mode="OBJECT")
    return rate, cpu


Rates = list[tuple[float, float]]  # (frames/s, CPU ms per frame) of each bake


def bench_bakes(rig: object) -> tuple[Rates, Rates, Rates]:
    """:data:`RUNS` rounds of one Blender bake of every bone, one Reach bake, then one Blender
    bake of the same channels (the last bake of all: its keys are the ones left): the rates
    of each, Reach's, Blender's and every bone's."""
    reach, blender, every_bone = [], [], []
    for _ in range(RUNS):
        drive_with(rig, reach=False)
        every_bone.append(_blender_bake(rig, every_bone=True))
        drive_with(rig, reach=True)
        reach.append(_reach_bake())
        drive_with(rig, reach=False)
        blender.append(_blender_bake(rig))
    return reach, blender, every_bone


def _profiles(rig: object, kept: Callable[[], object]) -> str:
    """pyinstrument trees (shares of the total, calls above 3 %) of the solves at frames on
    the kept session and of one bake."""
    import bpy

    from bench.profiling import profile

    solves = profile(lambda: bench_solve_at_frame(rig, kept), threshold=0.03, percent=True)
    bake = profile(lambda: bpy.ops.reach.bake(mode="REPLACE"), threshold=0.03, percent=True)
    return (
        "## Profile: solves at frames on the kept session (setting the start pose included)\n\n"
        f"```\n{solves.strip()}\n```\n\n## Profile: one reach.bake of the 120 frames\n\n"
        f"```\n{bake.strip()}\n```\n"
    )


def solves_after_moves(
    rig: object, solve: Callable[[], object] | None
) -> tuple[list[float], list[float]]:
    """Wall and CPU (this thread's) milliseconds of ``solve()`` after each move of the
    generated rig's control around the circle (:func:`bench.rigify_rig.drag_to`, not timed),
    :data:`GENERATED_ROUNDS` turns; ``solve`` None times the moves' updates instead."""
    import bpy

    centre = np.array(rig.pose.bones[CONTROL].location)
    wall, cpu = [], []
    for step in list(range(1, STEPS + 1)) * GENERATED_ROUNDS:
        if solve is None:
            start, start_cpu = time.perf_counter(), time.thread_time()
            drag_to(rig, centre, step)
        else:
            drag_to(rig, centre, step)
            start, start_cpu = time.perf_counter(), time.thread_time()
            solve()
        cpu.append(1000.0 * (time.thread_time() - start_cpu))
        wall.append(1000.0 * (time.perf_counter() - start))
    rig.pose.bones[CONTROL].location = centre.tolist()
    bpy.context.view_layer.update()
    return wall, cpu


def generated_rig_section() -> str:
    """Solves after moves on Rigify's generated rig, and their profile: the section's text."""
    import bpy

    from bench.profiling import profile
    from bench.report import machine_line

    rig = generated_rig()
    solvers = _solvers(rig)
    rows = [_row("update after a move (Blender)", *solves_after_moves(rig, None))]
    rows += [_row(label, *solves_after_moves(rig, solve)) for label, solve in solvers.items()]
    report = last_report(rig)
    tree = profile(lambda: solves_after_moves(rig, solvers["reach.solve (operator)"]),
                   threshold=0.03, percent=True)  # fmt: skip
    return (
        "## Rigify's generated rig: Solve after a move (`python -m bench.blender_bake rigify`)"
        f"\n\nMachine: {machine_line()}; {time.strftime('%Y-%m-%d')}.\n\n```\n"
        f"Blender {bpy.app.version_string}; Rigify's generated human: {len(rig.data.bones)} "
        f"bones, {report.dof} DOF, {len(rig.reach_ik.constraints)} constraints (Convert "
        f"Built-in IK); {CONTROL} moved around a circle, {STEPS} steps x {GENERATED_ROUNDS}\n"
        + "\n".join(rows)
        + f"\nlast report: {report.text().splitlines()[0]}\n```\n\n"
        "Profile: the operator's solves after moves (the moves' updates included)\n\n"
        f"```\n{tree.strip()}\n```"
    )


def frame_set_ms(rounds: int = 3) -> float:
    """Median wall milliseconds of ``scene.frame_set`` per frame over the demo range, as the
    scene is now (a floor of every bake that evaluates each frame)."""
    import bpy

    scene = bpy.context.scene
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        for frame in range(1, FRAMES + 1):
            scene.frame_set(frame)
        times.append(1000.0 * (time.perf_counter() - start) / FRAMES)
    return statistics.median(times)


def demo_bakes_section() -> str:
    """Step 3 alone on the demo, in rounds of three bakes (Reach's batched, Reach's one frame
    after another, Blender's), with a profile of one Reach bake each way: the section's text."""
    import bpy

    from bench.profiling import profile
    from bench.report import machine_line

    rig = build_scene()
    bpy.context.view_layer.objects.active = rig
    rig.animation_data_create()
    setup_builtin_ik(rig)
    reach, blender, sequential = [], [], []
    for _ in range(RUNS):
        drive_with(rig, reach=True)
        reach.append(_reach_bake())
        drive_with(rig, reach=True)
        sequential.append(_reach_bake(batched=False))
        drive_with(rig, reach=False)
        blender.append(_blender_bake(rig))
    drive_with(rig, reach=True)
    unkeyed = frame_set_ms()  # the solving pass: only the targets animate
    assert bpy.ops.reach.bake(mode="REPLACE") == {"FINISHED"}
    keyed = frame_set_ms()  # the measuring pass: the 66 channels keyed
    drive_with(rig, reach=True)
    trees = {
        batched: profile(
            lambda b=batched: bpy.ops.reach.bake(mode="REPLACE", batched=b),
            threshold=0.02, percent=True,
        )
        for batched in (False, True)
    }  # fmt: skip
    report = last_report(rig)
    load = ", ".join(f"{v:.1f}" for v in os.getloadavg())
    wall_ratios = [r[0] / b[0] for r, b in zip(reach, blender, strict=True)]
    cpu_ratios = [b[1] / r[1] for r, b in zip(reach, blender, strict=True)]

    def rates(runs: Rates) -> str:
        return (
            f"median {1000.0 / statistics.median(r for r, _c in runs):5.2f} ms/frame wall, "
            f"{statistics.median(c for _r, c in runs):5.2f} ms/frame CPU (best "
            f"{1000.0 / max(r for r, _c in runs):5.2f} wall, {min(c for _r, c in runs):5.2f} CPU)"
        )

    return (
        "## The demo's bakes alone (`python -m bench.blender_bake demo`)\n\n"
        f"Machine: {machine_line()}; {time.strftime('%Y-%m-%d %H:%M')}.\n\n```\n"
        f"Blender {bpy.app.version_string}; demo rig: {report.n_dof} DOF, "
        f"{len(rig.reach_ik.constraints)} constraints, {FRAMES} frames; {RUNS} rounds\n"
        f"reach.bake:          {rates(reach)}\n"
        f"  batched=False:     {rates(sequential)}\n"
        f"nla.bake (IK):       {rates(blender)}\n"
        f"ratio Reach/Blender speed per round: wall "
        f"{', '.join(f'{r:.2f}' for r in wall_ratios)} (median "
        f"{statistics.median(wall_ratios):.2f}); CPU {', '.join(f'{r:.2f}' for r in cpu_ratios)}"
        f" (median {statistics.median(cpu_ratios):.2f})\n"
        f"scene.frame_set: {unkeyed:.2f} ms/frame with only the targets animated (a bake's "
        f"solving pass), {keyed:.2f} ms/frame with Reach's keys (its measuring pass)\n"
        f"last report: {report.text().splitlines()[0]}\nload average at the end: {load}\n```\n\n"
        f"Profile: one reach.bake of the demo, one frame after another (batched=False)\n\n"
        f"```\n{trees[False].strip()}\n```\n\n"
        f"Profile: one reach.bake of the demo, batched\n\n```\n{trees[True].strip()}\n```"
    )


def main() -> None:
    """Run the measurements and print the figures (``rigify`` as the only argument: the
    generated rig's section alone)."""
    _isolate_blender_home()
    import bpy

    install_extension()
    if sys.argv[1:] == ["rigify"]:
        text = generated_rig_section()
        print(text)
        write_section(RESULTS, "generated_rig", text)
        return
    if sys.argv[1:] == ["demo"]:
        text = demo_bakes_section()
        print(text)
        write_section(RESULTS, "demo_bakes", text)
        return
    rig = build_scene()
    bpy.context.view_layer.objects.active = rig
    _reach_bake()  # the baked poses the solves start from
    dof = last_report(rig).n_dof
    reach_errors = _tip_errors(rig)
    solvers = _solvers(rig)
    solve_rows = [_row(label, *bench_solve_at_frame(rig, solve))
                  for label, solve in solvers.items()]  # fmt: skip
    profiles = _profiles(rig, solvers["solve_frame (kept session)"])
    setup_builtin_ik(rig)
    reach, blender, every_bone = bench_bakes(rig)
    for pb in rig.pose.bones:  # measure the last Blender bake's keys alone
        for con in pb.constraints:
            con.mute = True
    blender_errors = _tip_errors(rig)
    reach_rates, reach_cpu = (list(v) for v in zip(*reach, strict=True))
    blender_rates, blender_cpu = (list(v) for v in zip(*blender, strict=True))
    every_rates, every_cpu = (list(v) for v in zip(*every_bone, strict=True))
    bones, kinds = reach_keyed(rig)
    reach_best, blender_best = max(reach_rates), max(blender_rates)
    wall_ratios = [r[0] / b[0] for r, b in zip(reach, blender, strict=True)]
    cpu_ratios = [b[1] / r[1] for r, b in zip(reach, blender, strict=True)]
    lines = [
        f"Blender {bpy.app.version_string}; demo rig: {dof} DOF, "
        f"{len(rig.reach_ik.constraints)} constraints, {FRAMES} frames",
        f"reach.bake:        best {reach_best:7.1f} frames/s, median "
        f"{statistics.median(reach_rates):7.1f} (keys included; {RUNS} runs); CPU "
        f"{min(reach_cpu):.2f} ms/frame (best run)",
        *solve_rows,
        f"nla.bake (IK):     best {blender_best:7.1f} frames/s, median "
        f"{statistics.median(blender_rates):7.1f} (visual keying, built-in IK + Damped Track; "
        f"the {len(bones)} bones and channels ({', '.join(sorted(kinds)).lower()}) Reach "
        f"keys); CPU {min(blender_cpu):.2f} ms/frame (best run)",
        f"  reference, every bone: best {max(every_rates):7.1f} frames/s, median "
        f"{statistics.median(every_rates):7.1f} (all {len(rig.pose.bones)} bones, all channels);"
        f" CPU {min(every_cpu):.2f} ms/frame (best run)",
        f"ratio reach/Blender bake speed: {reach_best / blender_best:.2f} (wall, best runs); "
        f"{min(blender_cpu) / min(reach_cpu):.2f} (CPU)",
        f"  per round (Reach then Blender, {RUNS} rounds): wall "
        f"{', '.join(f'{r:.2f}' for r in wall_ratios)}; CPU "
        f"{', '.join(f'{r:.2f}' for r in cpu_ratios)}; median {statistics.median(wall_ratios):.2f}"
        f" wall, {statistics.median(cpu_ratios):.2f} CPU",
        f"worst tip error / aim angle: Reach {reach_errors[0]:.2e} units, "
        f"{reach_errors[1]:.3f} deg; Blender IK {blender_errors[0]:.2e} units, "
        f"{blender_errors[1]:.3f} deg",
    ]
    print("\n".join(lines))
    from bench.report import machine_line

    kept = marked_sections(RESULTS)  # the sections other runs wrote (demo_bakes, ...)
    RESULTS.write_text(
        "# Blender bake benchmark (`make bench-blender`)\n\n"
        f"Machine: {machine_line()}; {time.strftime('%Y-%m-%d')}.\n\n"
        "```\n"
        + "\n".join(lines)
        + "\n```\n\n"
        + profiles
        + "".join(f"\n{section}\n" for section in kept)
    )
    text = generated_rig_section()
    print(text)
    write_section(RESULTS, "generated_rig", text)


if __name__ == "__main__":
    main()
