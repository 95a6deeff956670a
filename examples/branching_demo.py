"""Headless demo of seed 004's figures: a branching arm, and several arms on one spiral each.

Run as ``.venv/bin/python -m examples.branching_demo`` (``make branching``). It installs the
extension as :mod:`examples.blender_demo` does, then builds two scenes through the operators
only (``reach.constraint_add``, ``reach.target_track``, ``reach.bake``):

* **branching arm** (:func:`build_branching_arm`): one armature whose two-bone trunk splits
  into two two-bone branches, each with an end-effector; one target goes round a circle, the
  other round a figure-eight (both target tracks), and the trunk is shared: the bake solves
  both goals at every frame as one problem;
* **spiral arms** (:func:`build_spiral_arms`): three separate three-bone arms, each following
  its own spiral (target tracks), baked in **one** bake over all three armatures
  (``reach.bake(all_selected=True)``).

It prints each bake's report and per-frame solve time, and renders a contact sheet of each
scene (``out/branching.png``, ``out/spiral_arms.png``; :mod:`examples.demo_render`).
"""

from __future__ import annotations

import time
from pathlib import Path

from examples.blender_demo import (
    _isolate_blender_home,
    install_extension,
    last_report,
    run_and_leave,
)

REPO_ROOT = Path(__file__).resolve().parents[1]
#: Frames of each shot (one turn of each track).
FRAMES = 48
#: Frames of the contact sheets.
SHEET_FRAMES = (1, 9, 17, 25, 33, 41)
#: Where the branching arm's targets go round (world, scene units): centre per branch.
CIRCLE_CENTRE = (-1.0, 0.0, 3.0)
EIGHT_CENTRE = (1.0, 0.0, 3.0)
TRACK_SIZE = 0.45
#: The spiral arms: their bases along X (scene units), the spirals' final radius.
SPIRAL_BASES = (-2.0, 0.0, 2.0)
SPIRAL_SIZE = 0.6


def _armature(name: str, bones: list[tuple[str, tuple, tuple, str | None]]) -> object:
    """An armature object made of ``(name, head, tail, parent)`` bones (connected to their
    parent), linked to the scene, active and selected, in object mode."""
    import bpy

    data = bpy.data.armatures.new(name)
    obj = bpy.data.objects.new(name, data)
    bpy.context.scene.collection.objects.link(obj)
    bpy.context.view_layer.objects.active = obj
    obj.select_set(True)
    bpy.ops.object.mode_set(mode="EDIT")
    for bone, head, tail, parent in bones:
        edit = data.edit_bones.new(bone)
        edit.head, edit.tail = head, tail
        if parent is not None:
            edit.parent = data.edit_bones[parent]
            edit.use_connect = True
    bpy.ops.object.mode_set(mode="OBJECT")
    return obj


def _empty(name: str, location: tuple) -> object:
    import bpy

    empty = bpy.data.objects.new(name, None)
    empty.empty_display_type = "SPHERE"
    empty.empty_display_size = 0.08
    empty.location = location
    bpy.context.scene.collection.objects.link(empty)
    return empty


def _reach(obj: object, bone: str, target: object, name: str) -> None:
    """A Position constraint on ``bone``'s tail through ``reach.constraint_add``, its chain up
    to the root (shared joints compromise between the branches)."""
    import bpy

    bpy.context.view_layer.objects.active = obj
    result = bpy.ops.reach.constraint_add(bone=bone, target=target.name, goal_type="POSITION")
    assert result == {"FINISHED"}, result
    item = obj.reach_ik.constraints[-1]
    item.name = name
    item.chain_mode = "ALL"


def _track(target: object, shape: str, size: float, plane: str = "XZ") -> None:
    """Key ``target`` along a preset path over the scene range (``reach.target_track``)."""
    import bpy

    result = bpy.ops.reach.target_track(
        target=target.name, shape=shape, size=size, plane=plane, center_from="OBJECT"
    )
    assert result == {"FINISHED"}, result


def new_file(frames: int = FRAMES) -> None:
    """An empty file whose scene range is ``1..frames``."""
    import bpy

    bpy.ops.wm.read_homefile(use_empty=True)
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, frames
    scene.frame_set(1)


def add_branching_armature() -> object:
    """The branching armature alone (active, object mode): trunk ``trunk`` and ``trunk.2`` up
    +Z from the origin (1 unit each); from the trunk's top, ``left`` and ``left.2`` go up and to
    -X, ``right`` and ``right.2`` up and to +X (0.99 units each): mirror images across the YZ
    plane."""
    d = 0.7
    return _armature("Branching", [
        ("trunk", (0.0, 0.0, 0.0), (0.0, 0.0, 1.0), None),
        ("trunk.2", (0.0, 0.0, 1.0), (0.0, 0.0, 2.0), "trunk"),
        ("left", (0.0, 0.0, 2.0), (-d, 0.0, 2.0 + d), "trunk.2"),
        ("left.2", (-d, 0.0, 2.0 + d), (-2 * d, 0.0, 2.0 + 2 * d), "left"),
        ("right", (0.0, 0.0, 2.0), (d, 0.0, 2.0 + d), "trunk.2"),
        ("right.2", (d, 0.0, 2.0 + d), (2 * d, 0.0, 2.0 + 2 * d), "right"),
    ])  # fmt: skip


def add_branch_goals(arm: object, left: object, right: object) -> None:
    """A Position constraint on each branch's tip, ``left.2`` on ``left`` and ``right.2`` on
    ``right``, each chain up to the root, equal weights."""
    _reach(arm, "left.2", left, "Left tip")
    _reach(arm, "right.2", right, "Right tip")


def build_branching_arm() -> object:
    """The branching arm (:func:`add_branching_armature`) and its two tracked targets (see the
    module doc); returns the armature. The left tip follows a circle around
    :data:`CIRCLE_CENTRE`, the right tip a figure-eight around :data:`EIGHT_CENTRE`, both of
    size :data:`TRACK_SIZE` in the XZ plane.
    """
    import bpy

    arm = add_branching_armature()
    circle = _empty("Circle target", CIRCLE_CENTRE)
    eight = _empty("Figure-eight target", EIGHT_CENTRE)
    _track(circle, "CIRCLE", TRACK_SIZE)
    _track(eight, "FIGURE_EIGHT", TRACK_SIZE)
    add_branch_goals(arm, circle, eight)
    bpy.context.view_layer.objects.active = arm
    return arm


def build_spiral_arms() -> list[object]:
    """Three three-bone arms standing at :data:`SPIRAL_BASES` on X, each tip on its own spiral
    (radius growing to :data:`SPIRAL_SIZE`, in the XY plane 2.4 units up); returns them, the
    first active, all selected."""
    import bpy

    arms = []
    for k, x in enumerate(SPIRAL_BASES):
        arm = _armature(f"Spiral arm {k + 1}", [
            ("b0", (x, 0.0, 0.0), (x, 0.0, 1.0), None),
            ("b1", (x, 0.0, 1.0), (x, 0.0, 2.0), "b0"),
            ("b2", (x, 0.0, 2.0), (x, 0.0, 3.0), "b1"),
        ])  # fmt: skip
        target = _empty(f"Spiral target {k + 1}", (x, 0.0, 2.4))
        _track(target, "SPIRAL", SPIRAL_SIZE, plane="XY")
        _reach(arm, "b2", target, "Tip on spiral")
        arms.append(arm)
    for arm in arms:
        arm.select_set(True)
    bpy.context.view_layer.objects.active = arms[0]
    return arms


def _pictures(arms: list[object], look_at: tuple, scale: float, front: bool) -> None:
    """Display geometry for every armature and its targets, and the camera: looking along +Y
    when ``front`` (paths in the XZ plane), else demo_render's view from the front left."""
    import math

    from examples import demo_render

    for arm in arms:
        demo_render.add_figure_mesh(arm)
    targets = [item.target for arm in arms for item in arm.reach_ik.constraints]
    demo_render.add_target_spheres(targets, radius=0.07)
    camera = demo_render.setup_render(look_at=look_at, resolution=(320, 320), ortho_scale=scale)
    if front:
        camera.location = (look_at[0], look_at[1] - 8.0, look_at[2])
        camera.rotation_euler = (math.pi / 2.0, 0.0, 0.0)


def _sheet(label: str, out: Path) -> list:
    from examples import demo_render

    renders = out / "renders"
    renders.mkdir(parents=True, exist_ok=True)
    return [(f, demo_render.render_frame(f, renders / f"{label}_{f:03d}.png"))
            for f in SHEET_FRAMES]  # fmt: skip


def _bake(arms: list[object], all_selected: bool) -> float:
    """Bake the scene range; return the wall time, seconds."""
    import bpy

    bpy.context.view_layer.objects.active = arms[0]
    start = time.perf_counter()
    result = bpy.ops.reach.bake(all_selected=all_selected)
    assert result == {"FINISHED"}, result
    return time.perf_counter() - start


def main() -> None:
    """Build, bake and picture both scenes; print the reports."""
    _isolate_blender_home()
    from examples import demo_render

    install_extension()
    out = REPO_ROOT / "out"
    out.mkdir(exist_ok=True)
    new_file()
    arm = build_branching_arm()
    _pictures([arm], look_at=(0.0, 0.0, 2.0), scale=4.6, front=True)
    seconds = _bake([arm], all_selected=False)
    report = last_report(arm)
    print(f"branching arm: {FRAMES} frames baked in {seconds:.2f} s, {report.n_dof} DOF")
    print("\n".join(report.residual_lines()))
    demo_render.contact_sheet([("branching arm", _sheet("branching", out))],
                              out / "branching.png")  # fmt: skip
    new_file()
    arms = build_spiral_arms()
    _pictures(arms, look_at=(0.0, 0.0, 1.6), scale=6.5, front=False)
    seconds = _bake(arms, all_selected=True)
    print(f"spiral arms: {len(arms)} armatures, {FRAMES} frames baked as one system in "
          f"{seconds:.2f} s")  # fmt: skip
    for obj in arms:
        part = last_report(obj)
        print(f"  {obj.name}:")
        print("\n".join(f"  {line}" for line in part.residual_lines()))
    demo_render.contact_sheet([("three arms, one bake", _sheet("spiral_arms", out))],
                              out / "spiral_arms.png")  # fmt: skip
    print(f"saved the contact sheets {out / 'branching.png'} and {out / 'spiral_arms.png'}")


if __name__ == "__main__":
    run_and_leave(main)
