"""Headless demo: Rigify's human metarig with animated hand, foot and look-at targets.

Run as ``.venv/bin/python -m examples.blender_demo`` (``make demo``). It builds the extension
zip with Blender's own builder, installs and enables it in a throw-away Blender user folder,
builds the scene, bakes 120 frames through ``bpy.ops.reach.bake``, saves ``out/demo.blend``
and prints the per-constraint report and the bake speed. It also renders (Workbench) a few
frames before and after the bake into the contact sheet ``out/demo.png``
(:mod:`examples.demo_render`).
"""

from __future__ import annotations

import importlib
import math
import os
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from pathlib import Path

from examples.extension_zip import build

REPO_ROOT = Path(__file__).resolve().parents[1]
FRAMES = 120
#: Frames of the contact sheet ``out/demo.png``.
SHEET_FRAMES = (1, 21, 41, 61, 81, 101)


def _isolate_blender_home() -> None:
    """Point Blender's user folders at a temporary HOME (before ``bpy`` is imported)."""
    home = tempfile.mkdtemp(prefix="reach-ik-demo-home-")
    os.environ["HOME"] = home
    os.environ["XDG_CONFIG_HOME"] = os.path.join(home, ".config")
    for name in list(os.environ):
        if name.startswith("BLENDER_USER_"):
            del os.environ[name]


def install_extension() -> None:
    """Build the zip with ``blender_ext.py`` (from the bpy wheel), install and enable it."""
    import bpy

    zip_path = build(Path(tempfile.mkdtemp(prefix="reach-ik-build-")))
    result = bpy.ops.extensions.package_install_files(
        filepath=str(zip_path), repo="user_default", enable_on_install=True
    )
    assert result == {"FINISHED"}, result
    assert hasattr(bpy.types.Object, "reach_ik"), "the extension did not register"


def last_report(rig: object) -> object:
    """The installed extension's report of the last solve or bake of ``rig`` (runtime only)."""
    results = importlib.import_module("bl_ext.user_default.reach_ik.bridge.session.last_report")
    return results.last(rig)


def _keyframe_path(obj: object, path: object, frames: int = FRAMES) -> None:
    """Key ``obj.location`` at every frame from ``path(frame) -> (x, y, z)``."""
    for frame in range(1, frames + 1):
        obj.location = path(frame)
        obj.keyframe_insert("location", frame=frame)


def _empty(name: str, size: float = 0.05) -> object:
    import bpy

    empty = bpy.data.objects.new(name, None)
    empty.empty_display_type = "SPHERE"
    empty.empty_display_size = size
    bpy.context.scene.collection.objects.link(empty)
    return empty


def _tail(rig: object, bone: str) -> tuple[float, float, float]:
    return tuple(rig.matrix_world @ rig.data.bones[bone].tail_local)


def build_scene(frames: int = FRAMES) -> object:
    """The demo scene: metarig, five animated targets, five Reach constraints; returns the rig.

    Knees and elbows are hinges (``lock_ik_y``/``lock_ik_z``, IK limit X in [0, 150] deg);
    every other solved bone turns freely: 43 DOF in all (as the bake reports them).
    """
    import addon_utils
    import bpy

    bpy.ops.wm.read_homefile(use_empty=True)
    if not addon_utils.check("rigify")[1]:
        addon_utils.enable("rigify", default_set=True)
    bpy.ops.object.armature_human_metarig_add()
    rig = bpy.context.active_object
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, frames
    for hinge in ("forearm.L", "forearm.R", "shin.L", "shin.R"):
        pb = rig.pose.bones[hinge]
        pb.lock_ik_y = pb.lock_ik_z = True
        pb.use_ik_limit_x = True
        pb.ik_min_x, pb.ik_max_x = 0.0, math.radians(150.0)

    def phase(frame: int, turns: float = 1.0) -> float:
        return 2.0 * math.pi * turns * (frame - 1) / frames

    constraints = []
    for side, sign in (("L", 1.0), ("R", -1.0)):
        hand = _empty(f"hand_target.{side}")
        cx, cy, cz = 0.3 * sign, -0.3, 1.25
        _keyframe_path(hand, lambda f, s=sign, c=(cx, cy, cz): (
            c[0] + 0.1 * math.cos(phase(f) * s), c[1], c[2] + 0.1 * math.sin(phase(f) * s)
        ))  # fmt: skip
        constraints.append((f"Hand {side}", f"hand.{side}", hand, "POSITION",
                            {"chain_mode": "ROOT", "chain_root": f"shoulder.{side}"}))  # fmt: skip
        foot = _empty(f"foot_target.{side}")
        fx, fy, fz = _tail(rig, f"foot.{side}")
        shift = 0.0 if side == "L" else math.pi
        _keyframe_path(foot, lambda f, b=(fx, fy, fz), p=shift: (
            b[0], b[1] - 0.12 * math.sin(phase(f, 2) + p),
            b[2] + 0.08 + 0.05 * (1.0 - math.cos(phase(f, 2) + p)),
        ))  # fmt: skip
        constraints.append((f"Foot {side}", f"foot.{side}", foot, "POSITION",
                            {"chain_mode": "LENGTH", "chain_length": 3}))  # fmt: skip
    look = _empty("look_target", 0.1)
    _keyframe_path(
        look, lambda f: (0.5 * math.sin(phase(f)), -1.2, 1.75 + 0.15 * math.cos(phase(f, 2)))
    )
    constraints.append(("Look", "spine.006", look, "AIM",
                        {"effector": "HEAD", "aim_axis": "Z", "chain_mode": "ROOT",
                         "chain_root": "spine.004"}))  # fmt: skip
    scene.frame_set(1)
    bpy.context.view_layer.objects.active = rig
    for name, bone, target, goal, extra in constraints:
        result = bpy.ops.reach.constraint_add(bone=bone, target=target.name, goal_type=goal)
        assert result == {"FINISHED"}
        item = rig.reach_ik.constraints[-1]
        item.name = name
        for key, value in extra.items():
            setattr(item, key, value)
    return rig


def prepare_pictures(rig: object) -> None:
    """Display geometry for the figure and its targets, and the camera (see
    :mod:`examples.demo_render`)."""
    from examples import demo_render

    demo_render.add_figure_mesh(rig)
    demo_render.add_target_spheres([item.target for item in rig.reach_ik.constraints])
    demo_render.setup_render()


def render_sheet_row(folder: Path, label: str) -> list[tuple[int, object]]:
    """Render :data:`SHEET_FRAMES` into ``folder``; ``(frame, pixels)`` per frame."""
    from examples import demo_render

    return [(f, demo_render.render_frame(f, folder / f"{label}_{f:03d}.png"))
            for f in SHEET_FRAMES]  # fmt: skip


def main() -> None:
    """Build, render, bake, render again, save and report."""
    _isolate_blender_home()
    import bpy

    from examples import demo_render

    install_extension()
    rig = build_scene()
    out = REPO_ROOT / "out"
    renders = out / "renders"
    renders.mkdir(parents=True, exist_ok=True)
    prepare_pictures(rig)
    before = render_sheet_row(renders, "before")
    bpy.context.scene.frame_set(1)
    bpy.context.view_layer.objects.active = rig
    start = time.perf_counter()
    result = bpy.ops.reach.bake()
    seconds = time.perf_counter() - start
    assert result == {"FINISHED"}, result
    report = last_report(rig)
    after = render_sheet_row(renders, "after")
    demo_render.contact_sheet(
        [("rest pose (before the bake)", before), ("after the bake", after)], out / "demo.png"
    )
    bpy.ops.wm.save_as_mainfile(filepath=str(out / "demo.blend"))
    print(f"Reach IK demo: {len(report.constraints)} constraints, {report.n_dof} DOF, "
          f"{FRAMES} frames baked in "
          f"{seconds:.2f} s = {FRAMES / seconds:.1f} frames/s (keys included)")  # fmt: skip
    print("per-constraint worst residual over the bake (measured on Blender's pose):")
    print("\n".join(report.residual_lines()))
    print(f"saved {out / 'demo.blend'} and the contact sheet {out / 'demo.png'}")


def _leave(status: int) -> None:
    """Exit with ``status`` before Blender's C exit handlers run: bpy 4.3 hangs in them after
    a render (its shader compiler's destructor waits forever), bpy 4.2 may crash there.
    Everything the demo makes is written and printed by then."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)


def run_and_leave(entry: Callable[[], None]) -> None:
    """Run a demo's ``entry``, print any traceback, and leave (:func:`_leave`): status 0 when it
    returned, 1 when it raised."""
    try:
        entry()
    except BaseException:
        traceback.print_exc()
        _leave(1)
    _leave(0)


if __name__ == "__main__":
    run_and_leave(main)
