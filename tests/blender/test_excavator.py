"""The excavator demo (:mod:`examples.excavator`): two hydraulic cylinders, each rod attached to
the next link (Attach to Bone), the rods' strokes animated; Bake Reach solves the boom, the
stick and the cylinders. Checked on Blender's evaluated pose at every frame: each attachment
closes within the bake's Tolerance (1e-6 of the arm's reach), and the boom's and the stick's
angles are the closed-form triangle solution of the strokes (on the rest pose's branch), so no
frame jumps more than the stroke step allows."""

from __future__ import annotations

import math

import bpy
import numpy as np

from examples import excavator
from tests.blender.conftest import run_op
from tests.blender.reach_scenes import last_report

#: Angles agree with the closed form to this (radians): the closure tolerance over the lever.
ANGLE = 1e-4


def _meet(p: np.ndarray, r: float, c: np.ndarray, length: float, rest: np.ndarray) -> np.ndarray:
    """The point (2,) at distance ``r`` from ``p`` and ``length`` from ``c`` on the side of the
    line p-c where ``rest`` (2,) lies (the assembly branch of the rest pose)."""
    pc = c - p
    d = float(np.linalg.norm(pc))
    along = (r * r - length * length + d * d) / (2.0 * d)
    h = math.sqrt(r * r - along * along)
    u = pc / d
    normal = np.array([-u[1], u[0]])
    side = 1.0 if float(normal @ (rest - p)) >= 0.0 else -1.0
    return p + along * u + side * h * normal


def _angle(v: np.ndarray) -> float:
    return math.atan2(v[1], v[0])


def _closed_form(strokes: dict[str, float]) -> dict[str, float]:
    """World angles (radians, in the YZ plane) of the boom and the stick for rod strokes
    (metres, the rods' locations): triangles of pivot, cylinder pivot and attachment."""
    out = {}
    angles_at_rest = {}
    for name, (_link, pivot, pushed, at) in excavator.CYLINDERS.items():
        head, tail, _ = excavator.BONES[pushed]
        p, c = np.array(head), np.array(pivot)
        attach = np.array(excavator._along(head, tail, at))
        length = float(np.linalg.norm(attach - c)) + strokes[name]
        moved = _meet(p, float(np.linalg.norm(attach - p)), c, length, attach)
        # The pushed link turns as its attachment does about its hinge (pivot fixed in the
        # frame of the link it pivots on, at its rest place there).
        turn = _angle(moved - p) - _angle(attach - p)
        angles_at_rest[pushed] = _angle(np.subtract(tail, head))
        out[pushed] = turn
    boom = angles_at_rest["boom"] + out["boom"]
    stick = angles_at_rest["stick"] + out["boom"] + out["stick"]
    return {"boom": boom, "stick": stick}


def test_excavator_bake_closes_every_attachment_at_every_frame(
    clean_scene: bpy.types.Scene,
) -> None:
    arm = excavator.build_scene()
    items = list(arm.reach_ik.constraints)
    assert [(i.goal_type, i.bone, i.target_bone) for i in items] == [
        ("ATTACH", "rod.boom", "boom"), ("ATTACH", "rod.stick", "stick"),
    ]  # fmt: skip
    tolerance = arm.reach_ik.tolerance
    assert abs(tolerance - 1e-6 * excavator.arm_size()) < 1e-12
    run_op(bpy.ops.reach.bake)
    report = last_report(arm)
    assert report.n_dof == 4  # boom, stick and the two cylinders: one hinge each
    worst = 0.0
    baked, expected = [], []
    for frame in range(1, excavator.FRAMES + 1):
        bpy.context.scene.frame_set(frame)
        worst = max(worst, *excavator.closures(arm))
        strokes = {name: arm.pose.bones[f"rod.{name}"].location[1] for name in excavator.CYLINDERS}
        angles = excavator.link_angles(arm)
        baked.append([angles["boom"], angles["stick"]])
        closed = _closed_form(strokes)
        expected.append([closed["boom"], closed["stick"]])
    assert worst <= tolerance, worst
    # The bake's report measured the same closures on Blender's pose (float32: within 1e-6).
    assert report.measured
    reported = [report.worst[item.name] for item in items]
    assert all(satisfied for _distance, _angle, satisfied in reported)
    assert abs(max(distance for distance, _angle, _ok in reported) - worst) < 1e-6
    baked_a, expected_a = np.unwrap(np.array(baked), axis=0), np.unwrap(np.array(expected), axis=0)
    assert np.abs(baked_a - expected_a).max() < ANGLE
    # No frame jumps: each frame's change is the closed form's (the strokes' step times the
    # linkage's transmission) within the angle tolerance, and the boom does move.
    steps, allowed = np.diff(baked_a, axis=0), np.diff(expected_a, axis=0)
    assert (np.abs(steps) <= np.abs(allowed) + 2 * ANGLE).all()
    assert np.ptp(baked_a[:, 0]) > math.radians(20.0)


def test_excavator_preview_on_frame_change_closes_the_loops(clean_scene: bpy.types.Scene) -> None:
    """Evaluate on Frame Change (a preview, no keys) reads each frame's strokes from the rods'
    animation and closes both attachments, before any bake."""
    arm = excavator.build_scene()
    arm.reach_ik.evaluate_on_frame_change = True
    tolerance = arm.reach_ik.tolerance
    for frame in range(2, 12):
        bpy.context.scene.frame_set(frame)
        bpy.context.view_layer.update()
        assert max(excavator.closures(arm)) <= tolerance, frame
