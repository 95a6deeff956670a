"""Goals on Rigify's metarig read from a known pose, solved one at a time (not a test file).

Shared by the tests of rigs at other scales and of imported rigs (issue 18, section 2): the
targets of reachable Position, Position & Orientation and Aim goals are where the rig's own
bones are in :data:`POSE`, so every one is reachable whatever the rig's size, placement or
bone orientations; a fourth Position goal lies 1 % of the rig's height beyond the left arm's
reach. Import with ``from tests.blender.scale_support import ...``.
"""

from __future__ import annotations

from itertools import pairwise

import bpy
import numpy as np
from mathutils import Euler, Matrix

from tests.blender.conftest import run_op
from tests.blender.reach_scenes import add_constraint, last_report

#: Euler XYZ rotations (radians, in each bone's own axes) of the pose the targets are read from.
POSE = {
    "upper_arm.L": (0.3, 0.1, -0.5),
    "forearm.L": (0.6, 0.0, 0.0),
    "upper_arm.R": (-0.2, 0.3, 0.4),
    "forearm.R": (0.8, 0.0, 0.1),
    "spine.005": (0.2, 0.1, 0.0),
    "spine.006": (0.1, 0.3, 0.0),
}
ARM_L = {"chain_mode": "ROOT", "chain_root": "shoulder.L"}
#: (bone, goal type, constraint settings) of each goal, in :func:`goal_targets` order.
GOALS = (
    ("hand.L", "POSITION", ARM_L),
    ("hand.R", "POSITION_ORIENTATION", {"chain_mode": "ROOT", "chain_root": "shoulder.R"}),
    (
        "spine.006",
        "AIM",
        {"effector": "HEAD", "aim_axis": "Z", "chain_mode": "ROOT", "chain_root": "spine.004"},
    ),
    ("hand.L", "POSITION", ARM_L),  # out of reach by 1 % of the rig's height
)
REACHABLE = (True, True, True, False)


def set_rotation(pb: bpy.types.PoseBone, euler: tuple[float, float, float]) -> None:
    """Give ``pb`` the rotation ``euler`` (XYZ, radians) in its own rotation mode."""
    q = Euler(euler, "XYZ").to_quaternion()
    if pb.rotation_mode == "QUATERNION":
        pb.rotation_quaternion = q
    elif pb.rotation_mode == "AXIS_ANGLE":
        axis, angle = q.to_axis_angle()
        pb.rotation_axis_angle = (angle, *axis)
    else:
        pb.rotation_euler = q.to_euler(pb.rotation_mode)


def at_rest(obj: bpy.types.Object) -> None:
    """Every bone's rotation back to identity (location and scale left as they are)."""
    for pb in obj.pose.bones:
        set_rotation(pb, (0.0, 0.0, 0.0))
    bpy.context.view_layer.update()


def _world(obj: bpy.types.Object, local: object) -> np.ndarray:
    return np.array(obj.matrix_world @ local)


def goal_targets(obj: bpy.types.Object) -> list[np.ndarray]:
    """World matrices (4, 4, unit axes) of the :data:`GOALS`' targets for the rig as placed."""
    at_rest(obj)
    bones = obj.pose.bones
    chain = [
        _world(obj, bones[n].head) for n in ("shoulder.L", "upper_arm.L", "forearm.L", "hand.L")
    ]
    reach = sum(float(np.linalg.norm(b - a)) for a, b in pairwise(chain))
    reach += float(np.linalg.norm(_world(obj, bones["hand.L"].tail) - chain[-1]))
    corners = np.array([_world(obj, pb.head) for pb in bones])
    height = float(np.linalg.norm(corners.max(axis=0) - corners.min(axis=0)))
    side = _world(obj, bones["shoulder.L"].head) - _world(obj, bones["shoulder.R"].head)
    far = np.eye(4)
    far[:3, 3] = chain[0] + (reach + 0.01 * height) * side / np.linalg.norm(side)
    for name, euler in POSE.items():
        set_rotation(bones[name], euler)
    bpy.context.view_layer.update()

    def frame(name: str, at: str) -> np.ndarray:
        m = _world(obj, bones[name].matrix)
        m[:3, :3] /= np.linalg.norm(m[:3, :3], axis=0)
        m[:3, 3] = _world(obj, getattr(bones[name], at))
        return m

    hand_l, hand_r = np.eye(4), frame("hand.R", "tail")
    hand_l[:3, 3] = frame("hand.L", "tail")[:3, 3]
    look = np.eye(4)
    head = frame("spine.006", "head")
    look[:3, 3] = head[:3, 3] + 0.4 * height * head[:3, 2]
    at_rest(obj)
    return [hand_l, hand_r, look, far]


def solve_each(obj: bpy.types.Object, targets: list[np.ndarray]) -> list[tuple[str, int, int]]:
    """Solve each of :data:`GOALS` alone, from the rest pose, at its target (world (4, 4));
    return (status, iterations, correction passes) per goal."""
    out = []
    for i, ((bone, goal, extra), matrix) in enumerate(zip(GOALS, targets, strict=True)):
        empty = bpy.data.objects.new(f"T{i}", None)
        bpy.context.scene.collection.objects.link(empty)
        empty.matrix_world = Matrix(matrix.tolist())
        bpy.context.view_layer.update()
        obj.reach_ik.constraints.clear()
        at_rest(obj)
        add_constraint(obj, bone, empty, goal, **extra)
        run_op(bpy.ops.reach.solve)
        report = last_report(obj)
        out.append((report.status, report.iterations, report.passes))
    return out


def reached(status: str) -> bool:
    """Whether a report's status line says every goal was reached."""
    return status.startswith("All goals reached")
