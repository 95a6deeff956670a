"""Several armatures in one system against each armature alone, in real (headless) Blender.

Run as ``.venv/bin/python -m bench.joined_armatures`` (one BLAS thread:
``OPENBLAS_NUM_THREADS=1``). It installs the extension as the demo does and measures, in
:data:`ROUNDS` rounds, over :data:`FRAMES` frames:

1. **two arms holding one part** (``tests/blender/test_joined_armatures.py``'s scene: A's tip
   on B's tip, B's tip on a plane that rises 0.5): the joined bake (``reach.bake``: one solve
   per frame over both armatures) against the two armatures baked one after the other, each
   alone (:func:`bridge.bake.baking.bake`, the path every bake took before: A reads B's bone
   where Blender has it, a fixed target); per-frame solve time (median, p95, ms) and the
   closure residual (A's tip to B's tip on Blender's evaluated pose) at every frame;
2. **three spiral arms** (``examples/branching_demo.py``, no link between them): one bake of
   all three (``all_selected``) against three bakes, one per armature; per-frame solve time of
   the one system against the sum of the three, and bake wall time per frame; and the Solve
   operator at each frame, all three as one system against each alone (wall time, summed).

Prints a Markdown table (``bench/JOINED.md`` keeps the last run's).
"""

from __future__ import annotations

import importlib
import statistics
import time

import numpy as np

from examples import branching_demo
from examples.blender_demo import _isolate_blender_home, install_extension, run_and_leave

ROUNDS = 5
FRAMES = 48


def _p95(values: list[float]) -> float:
    return float(np.quantile(values, 0.95))


def _two_arms() -> tuple[object, object]:
    """The two-arm hold of the tests, its plane rising from 0.9 to 1.4 over the frames."""
    import bpy

    from tests.blender.reach_scenes import add_constraint, add_empty, make_chain

    branching_demo.new_file(FRAMES)
    b = make_chain("B", n=2)
    b.location = (2.5, 0.0, 0.0)
    a = make_chain("A", n=2)
    plane = add_empty("Plane", (2.5, 0.0, 1.2))
    for frame, z in ((1, 0.9), (FRAMES, 1.4)):
        plane.location.z = z
        plane.keyframe_insert("location", frame=frame)
    add_constraint(b, "b1", plane, "PLANE", target_axis="Z")
    add_constraint(a, "b1", b, "POSITION", target_bone="b1", target_head_tail=1.0)
    bpy.context.view_layer.objects.active = a
    return a, b


def _closures(a: object, b: object) -> list[float]:
    """A's tip to B's tip on the evaluated pose at every frame, scene units."""
    import bpy

    def tail(obj: object) -> np.ndarray:
        return np.array(obj.matrix_world @ obj.pose.bones["b1"].tail)

    out = []
    for frame in range(1, FRAMES + 1):
        bpy.context.scene.frame_set(frame)
        out.append(float(np.linalg.norm(tail(a) - tail(b))))
    return out


def _alone(objects: list[object]) -> list[float]:
    """Bake each armature alone (the one-armature path); per-frame solve seconds summed over
    them (each bake's solver time spread evenly over its frames)."""
    import bpy

    baking = importlib.import_module("bl_ext.user_default.reach_ik.bridge.bake.baking")
    per_frame = np.zeros(FRAMES)
    for obj in objects:
        report = baking.bake(obj, obj.reach_ik, range(1, FRAMES + 1), scene=bpy.context.scene,
                             depsgraph=bpy.context.evaluated_depsgraph_get())  # fmt: skip
        per_frame += report.solve_seconds / FRAMES
    return per_frame.tolist()


def _joined(active: object, all_selected: bool) -> tuple[list[float], float]:
    """One joined bake through the operator; per-frame solve seconds and wall seconds."""
    import bpy

    together = importlib.import_module("bl_ext.user_default.reach_ik.bridge.joined.together")
    bpy.context.view_layer.objects.active = active
    kept: list[object] = []
    original = together.bake_joined

    def recording(*args: object, **kwargs: object) -> object:
        kept.append(original(*args, **kwargs))
        return kept[-1]

    together.bake_joined = recording
    try:
        clock = time.perf_counter()
        assert bpy.ops.reach.bake(all_selected=all_selected) == {"FINISHED"}
        wall = time.perf_counter() - clock
    finally:
        together.bake_joined = original
    return list(kept[0].solve_seconds), wall


def _solve_walls(arms: list[object]) -> tuple[list[float], list[float]]:
    """Wall seconds of ``reach.solve`` at each frame: one Solve of every armature as one system
    (``all_selected``), then one Solve of each armature alone (summed), at the same frames."""
    import bpy

    joined, alone = [], []
    for frame in range(1, FRAMES + 1):
        bpy.context.scene.frame_set(frame)
        bpy.context.view_layer.objects.active = arms[0]
        clock = time.perf_counter()
        assert bpy.ops.reach.solve(all_selected=True) == {"FINISHED"}
        joined.append(time.perf_counter() - clock)
        total = 0.0
        for arm in arms:
            bpy.context.view_layer.objects.active = arm
            clock = time.perf_counter()
            assert bpy.ops.reach.solve() == {"FINISHED"}
            total += time.perf_counter() - clock
        alone.append(total)
    return joined, alone


def main() -> None:
    """Measure both scenes and print the table."""
    _isolate_blender_home()
    install_extension()
    rows = []
    joined_t, alone_t, joined_c, alone_c = [], [], [], []
    for _ in range(ROUNDS):
        a, b = _two_arms()
        seconds, _wall = _joined(a, all_selected=False)
        joined_t += seconds
        joined_c += _closures(a, b)
        a, b = _two_arms()
        alone_t += _alone([b, a])  # B first: A then reads B's baked bone, as a user would
        alone_c += _closures(a, b)
    rows.append(("two arms holding one part, one system", joined_t, max(joined_c)))
    rows.append(("two arms holding one part, each alone (before)", alone_t, max(alone_c)))
    spiral_joined, spiral_alone, walls = [], [], {"joined": [], "alone": []}
    for _ in range(ROUNDS):
        branching_demo.new_file(FRAMES)
        arms = branching_demo.build_spiral_arms()
        seconds, wall = _joined(arms[0], all_selected=True)
        spiral_joined += seconds
        walls["joined"].append(wall / FRAMES)
        branching_demo.new_file(FRAMES)
        arms = branching_demo.build_spiral_arms()
        clock = time.perf_counter()
        spiral_alone += _alone(arms)
        walls["alone"].append((time.perf_counter() - clock) / FRAMES)
    rows.append(("three spiral arms, one system", spiral_joined, None))
    rows.append(("three spiral arms, three bakes (sum per frame)", spiral_alone, None))
    solve_joined, solve_alone = [], []
    for _ in range(ROUNDS):
        branching_demo.new_file(FRAMES)
        joined_walls, alone_walls = _solve_walls(branching_demo.build_spiral_arms())
        solve_joined += joined_walls
        solve_alone += alone_walls
    print(f"{ROUNDS} rounds x {FRAMES} frames; solve time per frame (all armatures), ms")
    print("| case | mean | median | p95 | worst closure (units) |")
    print("|---|---|---|---|---|")
    for label, values, closure in rows:
        ms = [1000.0 * v for v in values]
        worst = "" if closure is None else f"{closure:.2e}"
        print(f"| {label} | {statistics.fmean(ms):.2f} | {statistics.median(ms):.2f} | "
              f"{_p95(ms):.2f} | {worst} |")  # fmt: skip
    for label, values in (("one system", solve_joined), ("each alone, summed", solve_alone)):
        ms = [1000.0 * v for v in values]
        print(f"spiral arms, Solve operator wall time per frame ({label}): median "
              f"{statistics.median(ms):.2f} ms, p95 {_p95(ms):.2f} ms")  # fmt: skip
    for key, values in walls.items():
        print(f"spiral arms, bake wall time per frame ({key}): median "
              f"{1000.0 * statistics.median(values):.2f} ms")  # fmt: skip


if __name__ == "__main__":
    run_and_leave(main)
