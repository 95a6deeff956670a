"""Live posing: update time while a hand target of the demo metarig is dragged, and the cost
of the two ways to notice a change (``python -m bench.live_update``; ``make bench`` runs it).

In one headless Blender (bpy), on the demo scene of ``make demo`` (Rigify metarig, 51 DOF,
five constraints; the targets' animation removed so they stay where they are put):

1. *Drag*: ``hand_target.L`` is moved along a path (a circle of radius 0.12 around its start,
   :data:`STEPS` steps, one turn) with Live on and the default 16 ms budget; each step is what
   a drag does: set the location, let Blender update the view layer. Timed: the whole update
   (Blender's evaluation, the handler, the solve, the pose written and measured). Also: the
   same drag with Live off (Blender's update alone), the live solve's own time, how many
   updates stopped at the budget, and the hand's distance to its target after each update
   (the unfinished ones included, before any resume).
2. *Noticing a change*: the handler runs only on Blender's updates, so an idle scene costs
   nothing; an update that touches none of the rig's inputs costs the handler's filter
   (timed: an unrelated empty moved, Live on and off). A modal timer would instead compare the
   rig's inputs at every tick whether anything moved (timed: one
   :func:`bridge.live_inputs.fingerprint` of the metarig), and would see a change only at its
   next tick (up to one interval, 16.7 ms at 60 Hz, later than the handler).

Median and p95 in ms. The section it writes into ``bench/RESULTS.md`` (between the markers
below, added at the end when missing) carries the machine line.
"""

from __future__ import annotations

import importlib
import math
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from bench.sections import write_section
from examples.blender_demo import _isolate_blender_home, build_scene, install_extension

EXTENSION = "bl_ext.user_default.reach_ik"
RESULTS = Path(__file__).resolve().parent / "RESULTS.md"
STEPS = 120
RADIUS = 0.12
REPEATS = 200  # of the cheap timings (filter, fingerprint)


def percentiles(values: list[float]) -> tuple[float, float]:
    """Median and 95th percentile of ``values``, in ms (values in seconds)."""
    ms = np.array(values) * 1000.0
    return float(np.median(ms)), float(np.percentile(ms, 95))


def _row(label: str, values: list[float]) -> str:
    median, p95 = percentiles(values)
    return f"| {label} | {median:.2f} | {p95:.2f} |"


def _timed(step: Callable[[], None]) -> float:
    start = time.perf_counter()
    step()
    return time.perf_counter() - start


def drag(
    rig: object, target: object, live: object | None, solver_times: list[float] | None = None
) -> tuple[list[float], list[float], int]:
    """Move ``target`` along the circle, one view-layer update per step, with Live on when
    ``live`` (the installed ``bridge.live``) is given; return the update times (s), the hand's
    distance to the target after each update (scene units) and how many live solves stopped
    at the budget; ``solver_times`` receives each live solve's solver seconds."""
    import bpy

    rig.reach_ik.live = live is not None
    bpy.context.view_layer.update()  # the first live solve (a cold session) is not timed
    centre = np.array(target.location)
    times, misses, stopped = [], [], 0
    for step in range(1, STEPS + 1):
        angle = 2.0 * math.pi * step / STEPS
        offset = RADIUS * np.array([math.cos(angle) - 1.0, 0.0, math.sin(angle)])

        def move(offset: np.ndarray = offset) -> None:
            target.location = centre + offset
            bpy.context.view_layer.update()

        times.append(_timed(move))
        stopped += live is not None and live.state_of(rig).unfinished
        if solver_times is not None:  # the solver's own seconds, from the solve's report
            solver_times.append(
                importlib.import_module(f"{EXTENSION}.bridge.results").last(rig).seconds
            )
        tail = np.array(rig.matrix_world @ rig.pose.bones["hand.L"].tail)
        misses.append(float(np.linalg.norm(tail - np.array(target.matrix_world.translation))))
    target.location = centre
    return times, misses, stopped


def main() -> None:
    """Run both measurements, print them and write the section of bench/RESULTS.md."""
    _isolate_blender_home()
    import bpy

    install_extension()
    live = importlib.import_module(f"{EXTENSION}.bridge.live")
    inputs = importlib.import_module(f"{EXTENSION}.bridge.live_inputs")
    rig = build_scene()
    for obj in bpy.data.objects:
        if obj.type == "EMPTY":
            obj.animation_data_clear()
    target = bpy.data.objects["hand_target.L"]
    bpy.context.view_layer.objects.active = rig
    baseline, _, _ = drag(rig, target, None)
    state = live.state_of(rig)
    solver_times: list[float] = []
    times, misses, stopped = drag(rig, target, live, solver_times)
    solve_times = state.seconds[1:]  # the drag's solves (the first is the switch-on solve)
    live_solves = len(solve_times)
    other = bpy.data.objects.new("Unrelated", None)
    bpy.context.scene.collection.objects.link(other)

    def nudge() -> None:
        other.location.x += 1e-3
        bpy.context.view_layer.update()

    filter_on = [_timed(nudge) for _ in range(REPEATS)]
    rig.reach_ik.live = False
    bpy.context.view_layer.update()
    filter_off = [_timed(nudge) for _ in range(REPEATS)]
    bones = state.bones
    poll = [_timed(lambda: inputs.fingerprint(rig, bones)) for _ in range(REPEATS)]
    poll_median = percentiles(poll)[0]
    within = sum(m < rig.reach_ik.tolerance * 10.0 for m in misses)
    from bench.report import machine_line

    lines = [
        "## Live posing (`python -m bench.live_update`)",
        "",
        f"Machine: {machine_line()}; {time.strftime('%Y-%m-%d')}. Blender "
        f"{bpy.app.version_string}; demo rig ({len(rig.reach_ik.constraints)} constraints, "
        f"{len(bones or ())} figure bones), `hand_target.L` dragged along a circle of radius "
        f"{RADIUS} in {STEPS} steps, one view-layer update per step, budget "
        f"{live.BUDGET * 1000:.0f} ms.",
        "",
        "| per update (ms) | median | p95 |",
        "|---|---|---|",
        _row("update, Live on (evaluation + solve + write + measure)", times),
        _row("update, Live off (Blender alone)", baseline),
        _row("the live solve alone (session, solve, write, evaluate, measure)", solve_times),
        _row("the solver within it (the part the budget bounds)", solver_times),
        _row("unrelated update, Live on (the handler's filter included)", filter_on),
        _row("unrelated update, Live off", filter_off),
        _row("a timer's poll of the rig's inputs (one fingerprint)", poll),
        "",
        f"{live_solves} live solves for {STEPS} updates; {stopped} stopped at the budget and "
        f"went on at the next update; hand within 10x tolerance of its target after "
        f"{within} of {STEPS} updates (worst {max(misses):.2e} units, median "
        f"{statistics.median(misses):.2e}). Idle: the handler costs nothing (Blender calls it "
        f"only on an update); a 60 Hz timer would spend {poll_median * 60:.1f} ms of every "
        f"second polling this rig, and show a change up to 16.7 ms later.",
    ]
    text = "\n".join(lines)
    print(text)
    write_section(RESULTS, "live_update", text)


if __name__ == "__main__":
    main()
