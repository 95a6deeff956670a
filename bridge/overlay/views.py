"""The overlay's views of an armature's Reach constraints, read from Blender's current pose.

:func:`views_of` reads, for each enabled constraint whose bone and target exist, the
end-effector on the pose Blender shows (the original pose bones hold the evaluated pose),
the target point and axis, and the state of the constraint at the last measured solve or
bake (:mod:`..session.last_report`). ``bpy`` is used only through the objects passed in.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..bake.report import BakeReport
from ..loops.attach import solver_kind
from ..rig.goals import effector_factor, signed_axis
from .shapes import GoalView

if TYPE_CHECKING:
    import bpy

    from ...props.groups import ReachConstraint, ReachSettings
    from ..measure.frame_report import FrameReport


def states(report: FrameReport | BakeReport | None) -> dict[str, str]:
    """Constraint (or disjunction group) name -> ``REACHED`` / ``MISSED`` in ``report``."""
    if report is None:
        return {}
    if isinstance(report, BakeReport):  # the worst frame of each constraint
        return {name: "REACHED" if ok else "MISSED" for name, (_d, _a, ok) in report.worst.items()}
    return {c.name: "REACHED" if c.satisfied else "MISSED" for c in report.constraints}


def _point(matrix: np.ndarray, local: object) -> np.ndarray:
    return (matrix @ np.append(np.asarray(local, dtype=float), 1.0))[:3]


def _target_frame(item: ReachConstraint) -> tuple[np.ndarray, np.ndarray] | None:
    """World point (3,) and axes (3, 3) (columns X, Y, Z) of the item's target, or None."""
    target = item.target
    if target is None:
        return None
    world = np.array(target.matrix_world, dtype=float)
    if target.type == "ARMATURE" and item.target_bone:
        pose_bone = target.pose.bones.get(item.target_bone) if target.pose else None
        if pose_bone is None:
            return None
        head, tail = np.asarray(pose_bone.head, float), np.asarray(pose_bone.tail, float)
        point = _point(world, head + item.target_head_tail * (tail - head))
        return point, world[:3, :3] @ np.array(pose_bone.matrix, dtype=float)[:3, :3]
    return world[:3, 3], world[:3, :3]


def view_of(obj: bpy.types.Object, item: ReachConstraint, state: str) -> GoalView | None:
    """The view of one constraint item, or None when its bone or target is missing or
    degenerate (nothing to draw; the next solve names the problem)."""
    pose_bone = obj.pose.bones.get(item.bone) if obj.pose else None
    frame = _target_frame(item)
    if pose_bone is None or frame is None:
        return None
    world = np.array(obj.matrix_world, dtype=float)
    head, tail = _point(world, pose_bone.head), _point(world, pose_bone.tail)
    bone_axes = world[:3, :3] @ np.array(pose_bone.matrix, dtype=float)[:3, :3]
    target, target_axes = frame
    try:
        return GoalView(
            name=item.name,
            kind=solver_kind(item),  # an Attach to Bone drawn as its Hold's goal
            effector=head + effector_factor(item) * (tail - head),
            target=target,
            axis=target_axes @ signed_axis(item.target_axis),
            aim=bone_axes @ signed_axis(item.aim_axis) if item.goal_type == "AIM" else None,
            size=float(np.linalg.norm(tail - head)),
            state=state,
        )
    except ValueError:  # a zero-scale target or bone: nothing sensible to draw
        return None


def views_of(obj: bpy.types.Object, settings: ReachSettings,
             report: FrameReport | BakeReport | None) -> list[GoalView]:  # fmt: skip
    """A view of every enabled constraint of armature ``obj`` that can be drawn, coloured by
    ``report`` (the last solve's or bake's; a constraint of a disjunction group takes the
    group's state)."""
    known = states(report)
    out = []
    for item in settings.constraints:
        if not item.enabled:
            continue
        state = known.get(item.group.strip() or item.name, "UNSOLVED")
        view = view_of(obj, item, state)
        if view is not None:
            out.append(view)
    return out
