"""Part of the bridge (:mod:`.build`): one solved bone's joints, and its pose channels.

See :mod:`.build` for the three parametrisations (``LOCAL`` relinearised axes, ``IK_SEGMENT``
Blender's IK segment with its limits, :mod:`..blender_ik.ik_limits`; ``EULER`` angles in Limit
Rotation's order) and why.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, cast

import numpy as np

from ... import solver
from ...props.access import bone_settings_of
from ..blender import channel_rotations
from ..blender_ik import ik_limits
from ..errors import RigError

if TYPE_CHECKING:  # the bridge uses Blender only through the objects passed in
    import bpy

OCTAHEDRON = 1.5 * np.pi  # radians; |a| + |b| + |c| bound of Blender's Euler branch
IK_SEGMENT = "IK_SEGMENT"  # parametrisation of bones posed as Blender's IK segment


@dataclass
class SolvedBone:
    """How one solved bone's channels map to figure joints."""

    name: str
    param: str  # "LOCAL", an Euler order, or IK_SEGMENT
    rotation_mode: str
    rotation_joints: list[tuple[int, str]] = field(default_factory=list)  # (axis, joint)
    location_joints: list[tuple[int, str]] = field(default_factory=list)  # (axis, joint)
    keyed_rotation: tuple[int, ...] = ()  # rotation channel indices that change
    location_segment: str | None = None  # helper segment of the location joints, if any
    # IK Stretch (see :mod:`.stretch`): the group driving the bone's stretch, its length
    # (scene units) and whether the solve writes the bone's scale channels.
    stretch: str | None = None
    length: float = 0.0
    writes_scale: bool = False
    segment: ik_limits.LimitJoints | None = None  # IK_SEGMENT: Blender's segment for the bone
    coordinates: list[str] = field(default_factory=list)  # IK_SEGMENT: its solver coordinates


def rotation_values(pb: bpy.types.PoseBone, mode: str | None = None) -> np.ndarray:
    """A pose bone's rotation channels in its rotation mode (``mode`` when the caller has
    read it): (4,) or (3,)."""
    mode = pb.rotation_mode if mode is None else mode
    if mode == "QUATERNION":
        return np.array(pb.rotation_quaternion, dtype=float)
    if mode == "AXIS_ANGLE":
        return np.array(pb.rotation_axis_angle, dtype=float)
    return np.array(pb.rotation_euler, dtype=float)


def set_rotation_values(pb: bpy.types.PoseBone, values: np.ndarray) -> None:
    """Write rotation channels (from :func:`rotation_values`' layout) into a pose bone."""
    mode = pb.rotation_mode
    channels = values.tolist()  # Blender's API takes sequences of floats
    if mode == "QUATERNION":
        pb.rotation_quaternion = channels
    elif mode == "AXIS_ANGLE":
        pb.rotation_axis_angle = channels
    else:
        pb.rotation_euler = channels


def rotation_data_path(pb: bpy.types.PoseBone) -> str:
    """The RNA property holding a pose bone's rotation in its rotation mode."""
    mode = pb.rotation_mode
    if mode == "QUATERNION":
        return "rotation_quaternion"
    if mode == "AXIS_ANGLE":
        return "rotation_axis_angle"
    return "rotation_euler"


def bone_limits(
    pb: bpy.types.PoseBone, constraint_name: str
) -> tuple[str | None, np.ndarray, np.ndarray]:
    """Euler order and (3,) lower/upper limits (radians) of a pose bone, or (None, ...).

    A bone is Euler when it has an enabled local-space Limit Rotation or a locked Euler
    channel: the box is then the Limit Rotation's, intersected with the bone's IK limits
    read as Euler bounds (such a pose is what Blender shows). Any other bone: ``None``, and
    its IK limits are Blender's IK segment limits (:func:`ik_limits_of`).
    """
    lower, upper = np.full(3, -np.inf), np.full(3, np.inf)
    limited = False
    order = pb.rotation_mode if pb.rotation_mode in channel_rotations.EULER_ORDERS else "XYZ"
    for constraint in pb.constraints:
        if (
            constraint.type != "LIMIT_ROTATION"
            or constraint.mute
            or constraint.owner_space != "LOCAL"
        ):
            continue
        con = cast("bpy.types.LimitRotationConstraint", constraint)
        if con.euler_order != "AUTO":
            order = con.euler_order
        for k, axis in enumerate("xyz"):
            if getattr(con, f"use_limit_{axis}"):
                lo, hi = getattr(con, f"min_{axis}"), getattr(con, f"max_{axis}")
                if lo > hi:
                    raise RigError(
                        f"Constraint '{constraint_name}': bone '{pb.name}' has contradictory "
                        f"limits on {axis.upper()} (Limit Rotation '{con.name}': min > max)"
                    )
                lower[k], upper[k] = max(lower[k], lo), min(upper[k], hi)
                limited = True
    euler_locked = any(held_locks(pb))
    if limited or euler_locked:
        for k, axis in enumerate("xyz"):
            if getattr(pb, f"use_ik_limit_{axis}"):
                lower[k] = max(lower[k], getattr(pb, f"ik_min_{axis}"))
                upper[k] = min(upper[k], getattr(pb, f"ik_max_{axis}"))
    for k, axis in enumerate("XYZ"):
        if lower[k] > upper[k]:
            raise RigError(
                f"Constraint '{constraint_name}': bone '{pb.name}' has contradictory limits "
                f"on {axis} (IK limits and Limit Rotation do not overlap)"
            )
    return (order if limited or euler_locked else None), lower, upper


def ik_limits_of(pb: bpy.types.PoseBone) -> ik_limits.Limits | None:
    """The bone's IK locks and limits when Blender's IK segment meaning applies, else None.

    None for a bone without IK limits, with every IK axis locked, or Euler
    (:func:`bone_limits` returns an order: Limit Rotation or a locked Euler channel).
    """
    limited = tuple(bool(getattr(pb, f"use_ik_limit_{a}")) for a in "xyz")
    locked = (bool(pb.lock_ik_x), bool(pb.lock_ik_y), bool(pb.lock_ik_z))
    if not any(limited) or all(locked):
        return None
    if any(
        c.type == "LIMIT_ROTATION" and not c.mute and c.owner_space == "LOCAL"
        for c in pb.constraints
    ) or any(held_locks(pb)):
        return None
    lower = np.array([getattr(pb, f"ik_min_{a}") for a in "xyz"], dtype=float)
    upper = np.array([getattr(pb, f"ik_max_{a}") for a in "xyz"], dtype=float)
    return ik_limits.Limits(
        locked,  # type: ignore[arg-type]
        limited,  # type: ignore[arg-type]
        np.minimum(lower, 0.0),
        np.maximum(upper, 0.0),
    )


def held_locks(pb: bpy.types.PoseBone) -> list[bool]:
    """Which of the bone's rotation channels a solve keeps fixed (X, Y, Z): Lock Rotation on
    an Euler bone, unless its *Hold Lock Rotation* setting is off (Blender's IK ignores
    transform locks; Convert turns the setting off on the chains it converts)."""
    if (
        pb.rotation_mode not in channel_rotations.EULER_ORDERS
        or not bone_settings_of(pb).hold_lock_rotation
    ):
        return [False] * 3
    return [bool(locked) for locked in pb.lock_rotation]


def is_driven(pb: bpy.types.PoseBone) -> bool:
    """Whether the bone's channels are inputs (its *Driven* setting): like a bone whose every
    axis is locked it gets no joints, and unlike it, its channels are read afresh at every
    frame (it is left out of the solved bones, so :meth:`.pose.RigPose.read` reads it as it
    reads every bone the solve does not write; no bake keys it)."""
    return bool(bone_settings_of(pb).driven)


def _rigidity(pb: bpy.types.PoseBone) -> np.ndarray:
    """Rigidity (3,) per local axis: Reach's own if set, else Blender's IK stiffness."""
    settings = bone_settings_of(pb)
    if settings.use_rigidity:
        return np.clip(np.array(settings.rigidity, dtype=float), 0.0, 1.0)
    return np.array([pb.ik_stiffness_x, pb.ik_stiffness_y, pb.ik_stiffness_z], dtype=float)


def add_solved_bone(
    fig: solver.Figure,
    pb: bpy.types.PoseBone,
    owner: str,
    root_translation: bool,
) -> SolvedBone:
    """Add the joints of one solved bone (segments already exist)."""
    name = pb.name
    bone = pb.bone
    order, lower, upper = bone_limits(pb, owner)
    rig = _rigidity(pb)
    info = SolvedBone(name, order or "LOCAL", pb.rotation_mode)
    info.location_segment = location_segment(pb, owner, root_translation)
    seg = info.location_segment or name
    if bone.parent is None and root_translation:
        for k in range(3):
            info.location_joints.append(
                (k, fig.add_prismatic(seg, np.eye(3)[k], name=f"{name}:loc{'XYZ'[k]}"))
            )
    locks = [pb.lock_ik_x, pb.lock_ik_y, pb.lock_ik_z]
    limits = ik_limits_of(pb) if order is None else None
    if limits is not None:
        info.param = IK_SEGMENT
        info.segment = ik_limits.limit_joints(limits)
        info.rotation_joints, info.coordinates = ik_limits.add_to_figure(
            fig, name, info.segment, rig
        )
        info.keyed_rotation = _keyed(pb, bool(info.rotation_joints), ())
        return info
    if order is None:
        for k in range(3):
            if not locks[k]:
                joint = fig.add_revolute(
                    name, np.eye(3)[k], rigidity=rig[k], name=f"{name}:rot{'XYZ'[k]}"
                )
                info.rotation_joints.append((k, joint))
        info.keyed_rotation = _keyed(pb, bool(info.rotation_joints), ())
        return info
    current = channel_rotations.matrix_to_euler(
        channel_rotations.channels_to_rotation(rotation_values(pb), pb.rotation_mode), order
    )
    euler_locks = held_locks(pb)
    fixed = []
    span = 0.0
    for letter in reversed(order):
        k = channel_rotations.AXIS_INDEX[letter]
        lo, hi = max(lower[k], -np.pi), min(upper[k], np.pi)
        if locks[k] or euler_locks[k]:
            lo = hi = float(np.clip(current[k], lo, hi))
            fixed.append(k)
        joint = fig.add_revolute(name, np.eye(3)[k], lo, hi, rig[k], name=f"{name}:rot{letter}")
        info.rotation_joints.append((k, joint))
        span += max(abs(lo), abs(hi))
    if span > OCTAHEDRON:  # the box reaches beyond Blender's Euler branch: cut it there
        joints = dict(info.rotation_joints)
        for signs in np.ndindex(2, 2, 2):
            coeffs = {joints[k]: (1.0 if signs[k] else -1.0) for k in range(3)}
            fig.add_linear_constraint(coeffs, upper=OCTAHEDRON, label=f"{name} Euler branch")
    info.keyed_rotation = _keyed(pb, len(fixed) < 3, tuple(fixed))
    return info


def location_segment(pb: bpy.types.PoseBone, owner: str, root_translation: bool) -> str | None:
    """The helper segment that carries a ``LOCAL`` bone's location joints, or None.

    A ``LOCAL`` bone's rotation is relinearised into its segment's rest transform, so its
    prismatic (location) joints, which come first in ``matrix_basis``, sit on a parent
    segment of their own at the bone's head. ``EULER`` and ``IK_SEGMENT`` bones keep all
    joints on one segment.
    """
    if not has_location(pb, root_translation):
        return None
    order, _lower, _upper = bone_limits(pb, owner)
    return f"{pb.name}@loc" if order is None and ik_limits_of(pb) is None else None


def has_location(pb: bpy.types.PoseBone, root_translation: bool) -> bool:
    """Whether a solved bone gets prismatic (location) joints."""
    return pb.bone.parent is None and root_translation


def _keyed(pb: bpy.types.PoseBone, moves: bool, fixed: tuple[int, ...]) -> tuple[int, ...]:
    """Rotation channel indices written for a bone (an Euler channel held fixed is not)."""
    if not moves:
        return ()
    if pb.rotation_mode in channel_rotations.EULER_ORDERS:
        return tuple(k for k in range(3) if k not in fixed)
    return (0, 1, 2, 3)
