"""Headless demo: an excavator arm moved by two hydraulic cylinders, closed by *Attach to Bone*.

Run as ``.venv/bin/python -m examples.excavator`` (``make excavator``). The arm lies in the
armature's YZ plane (every hinge turns about X): a fixed ``base`` (the turret), the ``boom``
hinged on it, the ``stick`` hinged at the boom's tip and the ``bucket`` fixed on the stick.
Each cylinder is two bones: a cylinder bone hinged on one link and a rod bone sliding in it
(its location along the cylinder's axis is animated: the piston length, an input read from
the pose at every frame, never solved), whose tail is attached (*Attach to Bone*, a ball
joint; the arm stays planar because every hinge turns about X) to a point of the next link:

* ``cylinder.boom`` on the base pushes ``rod.boom``'s tail against the boom;
* ``cylinder.stick`` on the boom pushes ``rod.stick``'s tail against the stick's heel, behind
  its hinge.

Bake Reach then solves the boom's, the stick's and both cylinders' angles at every frame as
one system (two closed loops sharing the boom); the bucket follows. The script bakes
:data:`FRAMES` frames through ``bpy.ops.reach.bake``, prints each attachment's worst closure
on Blender's evaluated pose and the bake time per frame, renders a contact sheet into
``out/excavator.png`` (:mod:`examples.demo_render`) and saves ``out/excavator.blend``.
"""

from __future__ import annotations

import math
import time

import numpy as np

from examples.blender_demo import REPO_ROOT, _isolate_blender_home, _leave, install_extension

FRAMES = 60
#: Frames of the contact sheet.
SHEET_FRAMES = (1, 11, 21, 31, 41, 51)
#: Bones (head, tail) in the armature's YZ plane, metres, and their parents (None: root).
BONES: dict[str, tuple[tuple[float, float], tuple[float, float], str | None]] = {
    "base": ((0.0, 0.0), (0.0, 1.0), None),
    "boom": ((0.3, 1.0), (3.0, 2.6), "base"),
    "stick": ((3.0, 2.6), (4.6, 0.6), "boom"),
    "bucket": ((4.6, 0.6), (4.2, 0.1), "stick"),
}
#: The hydraulic cylinders: name -> (link it pivots on, its pivot (y, z), link it pushes,
#: where along that link it pushes (0 head, 1 tail; negative: behind the head)).
CYLINDERS = {
    "boom": ("base", (0.8, 0.3), "boom", 0.45),
    "stick": ("boom", (1.2, 2.3), "stick", -0.25),
}
#: Share of a cylinder's pivot-to-attachment length the cylinder bone and the rod's hidden
#: part take (the rod's head sits inside the cylinder).
CYLINDER_SHARE, ROD_START = 0.6, 0.35
#: Piston strokes: the rod's location (metres along the cylinder) at frame f is
#: ``amplitude * sin(2 pi (f - 1) / FRAMES + phase)``.
STROKES = {"boom": (0.25, 0.0), "stick": (0.2, math.pi / 2)}
#: The closure tolerance of the bake, relative to the arm's reach (the Tolerance setting).
RELATIVE_CLOSURE = 1e-6


def _point(yz: tuple[float, float]) -> tuple[float, float, float]:
    return (0.0, yz[0], yz[1])


def _along(head: tuple[float, float], tail: tuple[float, float], f: float) -> np.ndarray:
    a, b = np.array(head), np.array(tail)
    return a + f * (b - a)


def arm_size() -> float:
    """The arm's reach (metres): base, boom, stick and bucket lengths added."""
    return float(sum(np.linalg.norm(np.subtract(t, h)) for h, t, _p in BONES.values()))


def _edit_bones(arm: object) -> None:
    """Links and cylinders in edit mode (roll 0: every bone's X axis is the world X)."""
    edit = arm.data.edit_bones
    for name, (head, tail, parent) in BONES.items():
        bone = edit.new(name)
        bone.head, bone.tail = _point(head), _point(tail)
        if parent is not None:
            bone.parent = edit[parent]
            bone.use_connect = parent != "base"
    for name, (pivot_link, pivot, pushed, at) in CYLINDERS.items():
        head, tail, _parent = BONES[pushed]
        attach = _along(head, tail, at)
        cylinder = edit.new(f"cylinder.{name}")
        cylinder.head, cylinder.tail = _point(pivot), _point(_along(pivot, attach, CYLINDER_SHARE))
        cylinder.parent = edit[pivot_link]
        rod = edit.new(f"rod.{name}")
        rod.head, rod.tail = _point(_along(pivot, attach, ROD_START)), _point(attach)
        rod.parent = cylinder


def build_scene(frames: int = FRAMES) -> object:
    """The excavator armature, its animated rods and two *Attach to Bone* constraints made by
    ``bpy.ops.reach.attach_to_bone``; returns the armature object (active, pose mode)."""
    import bpy

    bpy.ops.wm.read_homefile(use_empty=True)
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, frames
    data = bpy.data.armatures.new("Excavator")
    arm = bpy.data.objects.new("Excavator", data)
    scene.collection.objects.link(arm)
    bpy.context.view_layer.objects.active = arm
    bpy.ops.object.mode_set(mode="EDIT")
    _edit_bones(arm)
    bpy.ops.object.mode_set(mode="POSE")
    for name in ("boom", "stick", "cylinder.boom", "cylinder.stick"):
        pb = arm.pose.bones[name]
        pb.lock_ik_y = pb.lock_ik_z = True  # a hinge about X
    for name in CYLINDERS:
        rod = arm.pose.bones[f"rod.{name}"]
        rod.lock_ik_x = rod.lock_ik_y = rod.lock_ik_z = True  # slides, never turns
        amplitude, phase = STROKES[name]
        for frame in range(1, frames + 1):
            rod.location = (0.0, amplitude * math.sin(2 * math.pi * (frame - 1) / frames + phase),
                            0.0)  # fmt: skip
            rod.keyframe_insert("location", frame=frame)
    scene.frame_set(1)
    for name, (_link, _pivot, pushed, at) in CYLINDERS.items():
        result = bpy.ops.reach.attach_to_bone(bone=f"rod.{name}", other=pushed, hold="POINT")
        assert result == {"FINISHED"}, result
        item = arm.reach_ik.constraints[-1]
        item.target_head_tail = at  # behind the stick's hinge for the stick cylinder
    settings = arm.reach_ik
    settings.auto_tolerance = False
    settings.tolerance = RELATIVE_CLOSURE * arm_size()
    return arm


def closures(arm: object) -> list[float]:
    """Each attachment's closure (metres) on Blender's evaluated pose at the current frame:
    the distance from the rod's tail to its point on the pushed link."""
    import bpy

    depsgraph = bpy.context.evaluated_depsgraph_get()
    evaluated = arm.evaluated_get(depsgraph)
    world = np.array(evaluated.matrix_world, dtype=float)
    out = []
    for item in arm.reach_ik.constraints:
        rod = evaluated.pose.bones[item.bone]
        other = evaluated.pose.bones[item.target_bone]
        tail = world @ np.array([*rod.tail, 1.0])
        head, other_tail = np.array(other.head), np.array(other.tail)
        point = world @ np.array([*(head + item.target_head_tail * (other_tail - head)), 1.0])
        out.append(float(np.linalg.norm((tail - point)[:3])))
    return out


def link_angles(arm: object) -> dict[str, float]:
    """Angles (radians) of the boom, stick and cylinders in the YZ plane, evaluated pose."""
    import bpy

    evaluated = arm.evaluated_get(bpy.context.evaluated_depsgraph_get())
    out = {}
    for name in ("boom", "stick", "cylinder.boom", "cylinder.stick"):
        pb = evaluated.pose.bones[name]
        d = np.array(pb.tail) - np.array(pb.head)
        out[name] = math.atan2(d[2], d[1])
    return out


def main() -> None:
    """Build, bake, measure, render and save."""
    _isolate_blender_home()
    import bpy

    from examples import demo_render

    install_extension()
    arm = build_scene()
    start = time.perf_counter()
    result = bpy.ops.reach.bake()
    seconds = time.perf_counter() - start
    assert result == {"FINISHED"}, result
    worst = [0.0] * len(arm.reach_ik.constraints)
    for frame in range(1, FRAMES + 1):
        bpy.context.scene.frame_set(frame)
        worst = [max(w, c) for w, c in zip(worst, closures(arm), strict=True)]
    out = REPO_ROOT / "out"
    renders = out / "renders"
    renders.mkdir(parents=True, exist_ok=True)
    demo_render.add_figure_mesh(arm)
    look_at = (0.0, 2.6, 1.5)
    camera = demo_render.setup_render(look_at=look_at, resolution=(440, 330), ortho_scale=7.0)
    camera.location = (8.0, look_at[1], look_at[2])  # from the side: the arm's plane
    camera.rotation_euler = (math.pi / 2, 0.0, math.pi / 2)
    shots = [(f, demo_render.render_frame(f, renders / f"excavator_{f:03d}.png"))
             for f in SHEET_FRAMES]  # fmt: skip
    half = len(shots) // 2
    rows = [("baked", shots[:half]), ("baked", shots[half:])]
    demo_render.contact_sheet(rows, out / "excavator.png")
    bpy.ops.wm.save_as_mainfile(filepath=str(out / "excavator.blend"))
    print(f"Reach IK excavator: {FRAMES} frames baked in {seconds:.2f} s = "
          f"{1000 * seconds / FRAMES:.2f} ms per frame (keys included)")  # fmt: skip
    size = arm_size()
    for item, w in zip(arm.reach_ik.constraints, worst, strict=True):
        print(f"  {item.name}: worst closure {w:.3g} m = {w / size:.3g} of the arm's reach")
    print(f"saved {out / 'excavator.blend'} and the contact sheet {out / 'excavator.png'}")


def _run() -> None:
    import traceback

    try:
        main()
    except BaseException:
        traceback.print_exc()
        _leave(1)
    _leave(0)


if __name__ == "__main__":
    _run()
