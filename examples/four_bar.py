"""Headless demo: a four-bar linkage driven by an animated crank through one full revolution.

Run as ``.venv/bin/python -m examples.four_bar`` (``make four-bar``). Seed 003's mechanism
(Klingener, *Inverse Kinematics on the Java 3D Scene Graph*): links AB (the crank, the input),
BC (the coupler), CD (the rocker) on the fixed base DA, in one armature in the world's XZ
plane. The loop is closed by one Reach constraint: the chain crank -> coupler -> rocker is an
open chain whose end (the rocker's tail) is held on the base's tail D, a bone of the same
armature that the solve does not move. The goal is a *Line* through D along the hinge axis:
in the plane that is D itself, with the two equations a planar closure has (a *Position* goal
would add a third, dependent one). Every moving bone is a hinge about its Z axis (the plane's
normal; Lock IK X and Y). The crank is *Driven*: its animated angle is the input, the solve
finds the coupler and the rocker. The script builds the extension zip, installs it in a
throw-away Blender user folder, bakes :data:`FRAMES` frames through ``bpy.ops.reach.bake``,
saves ``out/four_bar.blend`` and the contact sheet ``out/four_bar.png`` and prints the bake
report, the per-frame bake time, the worst loop closure on Blender's evaluated pose and the
sub-steps the bake took.

The closed form (:func:`assembly`, :func:`joint_angles`, :func:`transmission`) is plain numpy:
the tests compare Blender's evaluated pose with it.
"""

from __future__ import annotations

import math
import time
import traceback
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from examples.blender_demo import _isolate_blender_home, _leave, install_extension, last_report

REPO_ROOT = Path(__file__).resolve().parents[1]
#: Link lengths (scene units): crank AB, coupler BC, rocker CD, base DA. Grashof
#: (1 + 3 <= 2.5 + 3) with the crank shortest and next to the base: a crank-rocker, whose crank
#: turns all the way round.
CRANK_ROCKER = (1.0, 3.0, 2.5, 3.0)
#: Frames of one revolution: 72 steps of 5 degrees, the last frame at 360 degrees.
FRAMES = 73
#: The crank's angle from the base at rest (radians).
REST_ANGLE = math.radians(60.0)
#: The loop's open side: C to the left of B -> D (counter-clockwise seen from the front).
BRANCH = 1.0
#: Distance tolerance of the demo (scene units): well under 1e-6 of the linkage's size.
TOLERANCE = 1e-6
#: The plane's normal in the world (the hinges' axis): -Y, so angles turn counter-clockwise as
#: seen from the front (X right, Z up).
NORMAL = (0.0, -1.0, 0.0)
SHEET_FRAMES = (1, 13, 25, 37, 49, 61)
BONES = ("base", "crank", "coupler", "rocker")


def world(p: Sequence[float]) -> tuple[float, float, float]:
    """The world point (3,) of a point (2,) of the linkage's plane (x -> X, y -> Z)."""
    return (float(p[0]), 0.0, float(p[1]))


def plane(p: Sequence[float]) -> np.ndarray:
    """The plane point (2,) of a world point (3,) (the inverse of :func:`world`)."""
    return np.array([p[0], p[2]], dtype=float)


def assembly(
    theta: float, links: Sequence[float] = CRANK_ROCKER, branch: float = BRANCH
) -> tuple[np.ndarray, np.ndarray] | None:
    """The joints B and C (2,) in the plane at crank angle ``theta`` (radians, from the base
    A -> D), A at the origin and D at ``(base, 0)``; C on ``branch``'s side of B -> D (+1 left,
    -1 right); None where the loop cannot close (B too far from or too near to D)."""
    a, b, c, d = links
    pb = a * np.array([math.cos(theta), math.sin(theta)])
    bd = np.array([d, 0.0]) - pb
    length = float(np.linalg.norm(bd))
    cos_b = (b * b + length * length - c * c) / (2.0 * b * length)
    if not -1.0 <= cos_b <= 1.0:
        return None
    angle = branch * math.acos(cos_b)
    turn = np.array([[math.cos(angle), -math.sin(angle)], [math.sin(angle), math.cos(angle)]])
    return pb, pb + b * (turn @ (bd / length))


def side(pb: np.ndarray, pc: np.ndarray, pd: np.ndarray) -> float:
    """Which side of B -> D the joint C is on: the sign of the cross product (+1 left)."""
    u, v = pd - pb, pc - pb
    return math.copysign(1.0, u[0] * v[1] - u[1] * v[0])


def joint_angles(pa: np.ndarray, pb: np.ndarray, pc: np.ndarray, pd: np.ndarray) -> np.ndarray:
    """The solved hinges' angles (2,), radians: coupler from crank, rocker from coupler."""

    def heading(p: np.ndarray, q: np.ndarray) -> float:
        return math.atan2(q[1] - p[1], q[0] - p[0])

    crank, coupler, rocker = heading(pa, pb), heading(pb, pc), heading(pc, pd)
    return np.array([coupler - crank, rocker - coupler])


def wrapped(angles: np.ndarray) -> np.ndarray:
    """Angles (radians) wrapped to [-pi, pi)."""
    return (np.asarray(angles) + math.pi) % (2.0 * math.pi) - math.pi


def transmission(links: Sequence[float] = CRANK_ROCKER, branch: float = BRANCH) -> float:
    """The largest ``|d q / d theta|`` of the solved hinges ``q`` (:func:`joint_angles`) over a
    revolution of the crank, from the closed form (central differences on 3600 angles):
    how many radians a hinge turns at most per radian of crank."""
    pa, pd = np.zeros(2), np.array([links[3], 0.0])
    step = 2.0 * math.pi / 3600
    worst = 0.0
    for theta in np.arange(0.0, 2.0 * math.pi, step):
        ahead = assembly(theta + step / 2, links, branch)
        behind = assembly(theta - step / 2, links, branch)
        if ahead is None or behind is None:
            continue
        change = wrapped(joint_angles(pa, *ahead, pd) - joint_angles(pa, *behind, pd))
        worst = max(worst, float(np.max(np.abs(change))) / step)
    return worst


def build_four_bar(
    links: Sequence[float] = CRANK_ROCKER,
    crank_keys: Sequence[tuple[int, float]] = ((1, 0.0), (FRAMES, 2.0 * math.pi)),
    driven: bool = True,
    rest_angle: float = REST_ANGLE,
    name: str = "FourBar",
) -> object:
    """The linkage in the current scene; returns the armature object (active, object mode).

    Args:
        links: crank, coupler, rocker and base lengths (scene units).
        crank_keys: ``(frame, angle)`` keys of the crank's turn from its rest (radians),
            linear between keys; the scene's range becomes the keys' range.
        driven: the crank's *Driven* setting.
        rest_angle: the crank's angle from the base at rest (radians); the coupler and rocker
            rest on the :data:`BRANCH` assembly there.
        name: the armature's name.
    """
    import bpy

    closed = assembly(rest_angle, links)
    if closed is None:
        raise ValueError(f"the linkage {links} cannot close at {rest_angle} rad")
    pb, pc = closed
    pd = np.array([links[3], 0.0])
    scene = bpy.context.scene
    arm = bpy.data.armatures.new(name)
    rig = bpy.data.objects.new(name, arm)
    scene.collection.objects.link(rig)
    bpy.context.view_layer.objects.active = rig
    rig.select_set(True)
    bpy.ops.object.mode_set(mode="EDIT")
    parent = None
    for bone, (head, tail) in zip(
        BONES, ((np.zeros(2), pd), (np.zeros(2), pb), (pb, pc), (pc, pd)), strict=True
    ):
        edit = arm.edit_bones.new(bone)
        edit.head, edit.tail = world(head), world(tail)
        edit.align_roll(NORMAL)  # the bone's Z axis is the hinge axis
        edit.parent = parent
        edit.use_connect = bone in ("coupler", "rocker")
        parent = edit
    bpy.ops.object.mode_set(mode="OBJECT")
    for bone in BONES[1:]:
        pose_bone = rig.pose.bones[bone]
        pose_bone.rotation_mode = "XYZ"
        pose_bone.lock_ik_x = pose_bone.lock_ik_y = True  # a hinge about Z
    crank = rig.pose.bones["crank"]
    crank.reach_ik.driven = driven
    for frame, angle in crank_keys:
        crank.rotation_euler = (0.0, 0.0, angle)
        crank.keyframe_insert("rotation_euler", index=2, frame=frame)
    crank.rotation_euler = (0.0, 0.0, crank_keys[0][1])
    for curve in _fcurves(rig):
        for key in curve.keyframe_points:
            key.interpolation = "LINEAR"
    scene.frame_start, scene.frame_end = crank_keys[0][0], crank_keys[-1][0]
    scene.frame_set(scene.frame_start)
    result = bpy.ops.reach.constraint_add(bone="rocker", target=rig.name, goal_type="LINE")
    assert result == {"FINISHED"}, result
    item = rig.reach_ik.constraints[-1]
    item.name = "Close the loop at D"
    item.target_bone, item.target_head_tail, item.target_axis = "base", 1.0, "Z"
    item.chain_mode, item.chain_root = "ROOT", "crank"
    settings = rig.reach_ik
    settings.auto_tolerance = False
    settings.tolerance = TOLERANCE
    return rig


def _fcurves(rig: object) -> list:
    """The F-curves of ``rig``'s action (legacy on 4.2, the slot's channelbag on 4.4+)."""
    import bpy

    action = rig.animation_data.action
    if bpy.app.version < (4, 4, 0):
        return list(action.fcurves)
    from bpy_extras import anim_utils

    bag = anim_utils.action_get_channelbag_for_slot(action, rig.animation_data.action_slot)
    return list(bag.fcurves)


def evaluated_joints(rig: object) -> tuple[np.ndarray, ...]:
    """A, B, C, D and the rocker's tail (2,) in the plane, as Blender evaluated the pose."""
    m = np.array(rig.matrix_world, dtype=float)

    def point(bone: str, tail: bool) -> np.ndarray:
        pose_bone = rig.pose.bones[bone]
        p = pose_bone.tail if tail else pose_bone.head
        return plane((m @ np.array([*p, 1.0]))[:3])

    return (
        point("crank", False), point("crank", True), point("coupler", True),
        point("base", True), point("rocker", True),
    )  # fmt: skip


def closure(rig: object) -> float:
    """The loop's gap (scene units) on Blender's evaluated pose: rocker tail to D, in 3D."""
    m = np.array(rig.matrix_world, dtype=float)
    tail = m @ np.array([*rig.pose.bones["rocker"].tail, 1.0])
    d = m @ np.array([*rig.pose.bones["base"].tail, 1.0])
    return float(np.linalg.norm(tail[:3] - d[:3]))


def prepare_pictures(rig: object) -> None:
    """Display geometry for the links and a camera looking straight at the plane."""
    from examples import demo_render

    demo_render.add_figure_mesh(rig)
    centre = world((0.5 * CRANK_ROCKER[3], 1.0))
    camera = demo_render.setup_render(look_at=centre, resolution=(360, 300), ortho_scale=7.0)
    camera.location = (centre[0], -10.0, centre[2])
    camera.rotation_euler = (math.pi / 2, 0.0, 0.0)


def main() -> None:
    """Build, bake, measure, render, save and report."""
    _isolate_blender_home()
    import bpy

    from examples import demo_render

    install_extension()
    bpy.ops.wm.read_homefile(use_empty=True)
    rig = build_four_bar()
    out = REPO_ROOT / "out"
    renders = out / "renders"
    renders.mkdir(parents=True, exist_ok=True)
    bpy.context.view_layer.objects.active = rig
    start = time.perf_counter()
    result = bpy.ops.reach.bake()
    seconds = time.perf_counter() - start
    assert result == {"FINISHED"}, result
    report = last_report(rig)
    scene = bpy.context.scene
    gaps = []
    for frame in range(1, FRAMES + 1):
        scene.frame_set(frame)
        gaps.append(closure(rig))
    prepare_pictures(rig)
    row = [
        (f, demo_render.render_frame(f, renders / f"four_bar_{f:03d}.png")) for f in SHEET_FRAMES
    ]
    demo_render.contact_sheet([("four-bar, crank driven", row)], out / "four_bar.png")
    scene.frame_set(1)
    bpy.ops.wm.save_as_mainfile(filepath=str(out / "four_bar.blend"))
    size = max(CRANK_ROCKER)
    print(report.text())
    print(f"Reach IK four-bar: {FRAMES} frames baked in {seconds:.3f} s = "
          f"{1e3 * seconds / FRAMES:.2f} ms per frame (keys and measuring included)")  # fmt: skip
    print(f"of which the solver: {1e3 * report.solve_seconds / FRAMES:.2f} ms and "
          f"{report.iterations / FRAMES:.1f} iterations per frame")  # fmt: skip
    print(f"loop closure on Blender's evaluated pose: worst {max(gaps):.2e} units "
          f"= {max(gaps) / size:.1e} of the longest link")  # fmt: skip
    mechanism = report.mechanism
    print(f"sub-steps taken: {sum(mechanism.substeps.values())}, "
          f"frames held (loop open): {len(mechanism.held)}")  # fmt: skip
    print(f"saved {out / 'four_bar.blend'} and the contact sheet {out / 'four_bar.png'}")


if __name__ == "__main__":
    try:
        main()
    except BaseException:
        traceback.print_exc()
        _leave(1)
    _leave(0)
