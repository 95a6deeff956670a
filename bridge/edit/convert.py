"""Convert Built-in IK: an armature's IK constraints become Reach constraints, the originals muted.

What carries over, read as Blender's solver reads it (``source/blender/ikplugin``):

* the chain: ``use_tail = False`` moves the chain's tip to the bone's parent (its tail is the
  end-effector) and ``chain_count`` counts from that tip; 0 is every ancestor;
* the target: an object, or a bone of an armature (``subtarget``, whose head is the goal:
  the IK constraint has no head/tail setting); an armature target without a bone is ignored
  by Blender and reported here;
* ``use_location`` / ``use_rotation``, ``weight`` and ``orient_weight``;
* the pole target and pole angle: the bend plane Blender gives the chain (:mod:`..blender_ik.pole`)
  becomes a plane goal and a half-space goal on the chain's most bent joint, read from two
  helper empties that follow the root bone, the target and the pole every frame;
* on an iTaSC armature the same, except the pole (iTaSC's pole bends the chain elsewhere: 0.4 to
  0.55 of the chain's length from the Standard solver's pose, measured) and what only iTaSC
  has (distance type, freed axes, solver settings), which are reported as not converted.

Drivers and F-curves on a converted constraint's ``mute`` / ``enabled`` would switch it back
on at the next evaluation (Rigify drives them), so their F-curves are muted too and named in
the report. ``bpy`` is used only through the objects passed in.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, cast

import numpy as np

from ...props.access import armature_data, bone_settings_of, settings_of
from ...solver.errors import InvalidInputError
from ..blender.channel_rotations import EULER_ORDERS
from ..blender.compat import fcurves
from ..blender_ik import pole
from ..blender_ik.ik_trees import ik_chain, shared_trees
from .constraint_list import NothingToDoError, append

if TYPE_CHECKING:
    import bpy

    from ...props.groups import ReachConstraint

#: Names of the pole frame empty's constraints (:mod:`..solve.pole_start` finds the IK through
#: them).
FRAME_ROOT, FRAME_TARGET, FRAME_POLE = "Reach pole root", "Reach pole target", "Reach pole"
#: Properties whose driver or F-curve would bring a muted constraint back to life.
SWITCHES = ("mute", "enabled")


@dataclass(frozen=True)
class Conversion:
    """Outcome of :func:`convert_builtin_ik`: new constraint names, what was left, what else
    was done (driver F-curves muted, helper empties made)."""

    converted: tuple[str, ...]
    skipped: tuple[str, ...]
    notes: tuple[str, ...] = ()

    def text(self) -> str:
        """The report: a summary line, then one line per Reach constraint made, per thing not
        converted and per note (Blender cuts one line of a report after 1,024 characters)."""
        left = f"; not converted: {len(self.skipped)} (below)" if self.skipped else ""
        return "\n".join([
            f"converted {len(self.converted)} IK constraint(s) (now muted){left}",
            *(f"  converted: {name}" for name in self.converted),
            *not_converted_lines(self.skipped),
            *(f"  note: {note}" for note in self.notes),
        ])  # fmt: skip


def not_converted_lines(skipped: Sequence[str]) -> list[str]:
    """One report line per thing Convert left (a constraint and why, or a setting of one)."""
    return [f"  not converted: {entry}" for entry in skipped]


@dataclass
class _Log:
    converted: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _itasc_leftovers(obj: bpy.types.Object, ik: bpy.types.KinematicConstraint) -> list[str]:
    """iTaSC-only settings of ``ik`` that Reach does not reproduce (empty for Standard)."""
    pose = cast("bpy.types.Pose", obj.pose)
    if pose.ik_solver != "ITASC":
        return []
    out = []
    if ik.ik_type == "DISTANCE":
        out.append("iTaSC distance type")
    # ``lock_*`` on means "constrained along that axis" (the default); off frees the axis.
    free = [
        f"location {a}" for a in "xyz" if ik.use_location and not getattr(ik, f"lock_location_{a}")
    ]
    free += [
        f"rotation {a}" for a in "xyz" if ik.use_rotation and not getattr(ik, f"lock_rotation_{a}")
    ]
    if free:
        out.append(f"iTaSC free {', '.join(free)} (not constrained)")
    return out


def _release_locks(chain: list[bpy.types.PoseBone]) -> list[str]:
    """Lock Rotation on the chain's Euler bones: Blender's IK turns such bones anyway (the
    locks are for the transform tools; Rigify locks its IK bones this way), so Reach's
    *Hold Lock Rotation* is turned off on them to match. Returns one note per bone."""
    out = []
    for pb in chain:
        axes = [a for a, locked in zip("XYZ", pb.lock_rotation, strict=True) if locked]
        settings = bone_settings_of(pb)
        if axes and pb.rotation_mode in EULER_ORDERS and settings.hold_lock_rotation:
            settings.hold_lock_rotation = False
            out.append(
                f"Lock Rotation {''.join(axes)} of '{pb.name}' no longer holds the solve, as "
                "in Blender's IK (bone setting Hold Lock Rotation turned off)"
            )
    return out


def _switch_curves(obj: bpy.types.Object, con: bpy.types.Constraint) -> list[bpy.types.FCurve]:
    """Unmuted drivers and action F-curves on ``con``'s mute / enabled switch."""
    paths = {con.path_from_id(name) for name in SWITCHES}
    animation = obj.animation_data
    if animation is None:
        return []
    curves = list(animation.drivers) + (fcurves(obj) if animation.action is not None else [])
    return [f for f in curves if f.data_path in paths and not f.mute]


def _mute(obj: bpy.types.Object, con: bpy.types.Constraint, log: _Log) -> None:
    """Mute ``con`` so that it stays muted: a driver or F-curve on its switch is muted too."""
    for curve in _switch_curves(obj, con):
        curve.mute = True
        kind = "driver" if curve.driver is not None else "F-curve"
        log.notes.append(f"muted the {kind} on {curve.data_path}")
    con.mute = True


def _empty(context: bpy.types.Context, obj: bpy.types.Object, name: str) -> bpy.types.Object:
    empty = context.blend_data.objects.new(name, None)
    empty.empty_display_type = "ARROWS"
    empty.empty_display_size = 0.1
    collection = obj.users_collection
    (collection[0] if collection else context.scene.collection).objects.link(empty)
    return empty


def _plane_empties(
    context: bpy.types.Context,
    obj: bpy.types.Object,
    ik: bpy.types.KinematicConstraint,
    root: str,
    phi: float,
    name: str,
) -> bpy.types.Object:
    """Two helper empties; returns the one whose X axis is the bend plane's normal and whose
    Z axis is the side the bend points to (see :func:`..blender_ik.pole.bend_plane`).

    The first sits on the root bone's head with Y towards the IK target and Z towards the
    pole (Copy Location, Damped Track, Locked Track): the goals' look-at frame, re-evaluated
    by Blender every frame. The second is its child, turned by ``phi`` about Y.
    """
    frame = _empty(context, obj, f"{name} pole frame")
    follow = cast("bpy.types.CopyLocationConstraint", frame.constraints.new("COPY_LOCATION"))
    follow.name, follow.target, follow.subtarget = FRAME_ROOT, obj, root
    aim = cast("bpy.types.DampedTrackConstraint", frame.constraints.new("DAMPED_TRACK"))
    aim.name, aim.target, aim.subtarget = FRAME_TARGET, ik.target, ik.subtarget
    aim.track_axis = "TRACK_Y"
    up = cast("bpy.types.LockedTrackConstraint", frame.constraints.new("LOCKED_TRACK"))
    up.name, up.target, up.subtarget = FRAME_POLE, ik.pole_target, ik.pole_subtarget
    up.lock_axis, up.track_axis = "LOCK_Y", "TRACK_Z"
    plane = _empty(context, obj, f"{name} pole plane")
    plane.empty_display_type = "SINGLE_ARROW"
    plane.parent = frame
    plane.rotation_euler = (0.0, phi, 0.0)
    return plane


def _bend_joint(
    obj: bpy.types.Object, chain: list[bpy.types.PoseBone], pole_angle: float
) -> tuple[str, float]:
    """The chain bone whose tail is the most bent joint at rest, and that joint's
    :func:`..blender_ik.pole.bend_angle` (radians) for ``pole_angle`` (radians).

    Blender's IK starts from the chain's own pose channels; an IK-driven chain has none, so
    its start is the rest pose, where the chain is rigid with its root.

    Raises:
        InvalidInputError: the chain has one bone, or it is straight at rest.
    """
    if len(chain) < 2:
        raise InvalidInputError("a one-bone chain has no bend plane")
    bones = armature_data(obj).bones
    root = np.array(bones[chain[-1].name].matrix_local, dtype=float)
    tip = np.array(bones[chain[0].name].tail_local, dtype=float)
    axis = tip - root[:3, 3]
    axis /= np.linalg.norm(axis)

    def offset(name: str) -> float:
        k = np.array(bones[name].tail_local, dtype=float) - root[:3, 3]
        return float(np.linalg.norm(k - (k @ axis) * axis))

    knee = max((pb.name for pb in chain[1:]), key=offset)
    joint = np.array(bones[knee].tail_local, dtype=float)
    return knee, pole.bend_angle(root, joint, tip, pole_angle)


def _asymmetric_hinges(
    obj: bpy.types.Object, chain: list[bpy.types.PoseBone], knee: str
) -> list[str]:
    """Hinges (one IK axis free) of the chain whose axis is not normal to the rest bend plane
    (through the root head, the tail of ``knee`` and the tip).

    Blender's iterations keep the bend plane only when the chain is symmetric about it; such
    a hinge turns the chain out of the plane, so Reach's plane goal is then approximate.
    """
    bones = armature_data(obj).bones
    origin = np.array(bones[chain[-1].name].head_local, dtype=float)
    joint = np.array(bones[knee].tail_local, dtype=float) - origin
    normal = np.cross(joint, np.array(bones[chain[0].name].tail_local, dtype=float) - origin)
    normal /= np.linalg.norm(normal)  # not zero: _bend_joint refuses a straight chain
    out = []
    for pb in chain:
        free = [k for k, a in enumerate("xyz") if not getattr(pb, f"lock_ik_{a}")]
        if len(free) != 1:
            continue
        axis = np.array(bones[pb.name].matrix_local, dtype=float)[:3, free[0]]
        cos = abs(float(axis @ normal)) / float(np.linalg.norm(axis))
        angle = math.degrees(math.acos(min(1.0, cos)))
        if angle > 1.0:
            out.append(
                f"pole plane approximate: hinge '{pb.name}' turns about an axis {angle:.0f} "
                "degrees off the bend plane's normal (Blender's IK leaves the plane)"
            )
    return out


def _convert_pole(
    context: bpy.types.Context,
    obj: bpy.types.Object,
    ik: bpy.types.KinematicConstraint,
    chain: list[bpy.types.PoseBone],
    label: str,
    log: _Log,
) -> None:
    """The pole as a plane goal and a half-space goal on the chain's most bent joint."""
    try:
        knee, phi = _bend_joint(obj, chain, ik.pole_angle)
    except InvalidInputError as exc:
        log.skipped.append(f"{label} pole target ({exc})")
        return
    log.skipped += [f"{label} {note}" for note in _asymmetric_hinges(obj, chain, knee)]
    settings = settings_of(obj)
    if np.linalg.det(np.array(obj.matrix_world, dtype=float)[:3, :3]) < 0.0:
        # Blender's look-at frames are built in armature space; a mirrored armature shows
        # them reflected, which turns the bend the other way about the root-target axis.
        phi = -phi
    plane = _plane_empties(context, obj, ik, chain[-1].name, phi, label)
    for goal, axis, suffix in (("PLANE", "X", "pole plane"), ("HALF_SPACE", "Z", "pole side")):
        item = append(settings, f"{label} {suffix}", knee, plane, goal)
        item.effector, item.target_axis = "TAIL", axis
        _set_chain(item, chain[-1].name, knee, obj)
        log.converted.append(item.name)


def _set_chain(item: ReachConstraint, root: str, bone: str, obj: bpy.types.Object) -> None:
    """Chain of ``item``: from ``bone`` up to ``root`` (a length, so renames keep it)."""
    n, b = 1, armature_data(obj).bones[bone]
    while b.name != root and b.parent is not None:
        n, b = n + 1, b.parent
    item.chain_mode, item.chain_length = "LENGTH", n


def _convert_one(
    context: bpy.types.Context,
    obj: bpy.types.Object,
    pb: bpy.types.PoseBone,
    ik: bpy.types.KinematicConstraint,
    log: _Log,
) -> None:
    label = f"{pb.name} {ik.name}"
    target = ik.target
    if target is None or (target.type == "ARMATURE" and not ik.subtarget):
        why = "no target" if target is None else "armature target without a bone"
        log.skipped.append(f"{label} ({why}: Blender ignores it)")
        return
    leftovers = _itasc_leftovers(obj, ik)
    if "iTaSC distance type" in leftovers:
        log.skipped.append(f"{label} (iTaSC distance type)")
        return
    position = ik.use_location and ik.weight > 0.0
    rotation = ik.use_rotation and ik.orient_weight > 0.0
    if not (position or rotation):
        log.skipped.append(f"{label} (neither location nor rotation is used)")
        return
    chain = ik_chain(pb, ik)
    goal = "POSITION" if position else "ORIENTATION"
    goal = "POSITION_ORIENTATION" if position and rotation else goal
    item = append(settings_of(obj), label, chain[0].name, target, goal)
    item.effector = "TAIL"
    item.target_bone = ik.subtarget if target.type == "ARMATURE" else ""
    item.target_head_tail = 0.0
    item.weight = ik.weight if position else ik.orient_weight
    if position and rotation:
        item.position_weight = ik.weight / (ik.weight + ik.orient_weight)
    if ik.chain_count > 0:
        item.chain_mode, item.chain_length = "LENGTH", len(chain)
    log.converted.append(item.name)
    if ik.influence < 1.0:
        leftovers.append(f"influence {ik.influence:g} (Reach solves at full influence)")
    log.notes += [f"{label} {note}" for note in _release_locks(chain)]
    stretchy = [pb.name for pb in chain if pb.ik_stretch > 0.0]
    if stretchy and not ik.use_stretch:
        leftovers.append(
            f"Stretch off while {', '.join(stretchy)} have IK Stretch (Blender keeps their "
            "length, Reach stretches them: set their IK Stretch to 0 to match)"
        )
    if ik.pole_target is not None and position:
        shared = shared_trees(obj).get((pb.name, ik.name))
        if cast("bpy.types.Pose", obj.pose).ik_solver == "ITASC":
            leftovers.append("pole target (iTaSC bends the chain differently from Standard IK)")
        elif shared:
            others = ", ".join(f"{bone} {name}" for bone, name in shared)
            leftovers.append(f"pole target (Blender ignores it: one IK tree with {others})")
        else:
            _convert_pole(context, obj, ik, chain, label, log)
    log.skipped += [f"{label} {what}" for what in leftovers]
    _mute(obj, ik, log)


def convert_builtin_ik(context: bpy.types.Context, obj: bpy.types.Object) -> Conversion:
    """Turn the armature's unmuted built-in IK constraints into Reach constraints, muting them.

    Raises:
        NothingToDoError: the armature has no unmuted built-in IK constraint with a target.
    """
    log = _Log()
    for pb in cast("bpy.types.Pose", obj.pose).bones:
        active = False  # Blender solves only the first active IK constraint of a bone
        for con in pb.constraints:
            if con.type != "IK":
                continue
            ik = cast("bpy.types.KinematicConstraint", con)
            if con.mute:
                if _switch_curves(obj, con):  # e.g. Rigify's pole switch: keep it off for good
                    _mute(obj, con, log)
            elif con.influence <= 0.0:
                log.skipped.append(f"{pb.name} {con.name} (influence 0: Blender ignores it)")
            elif active:
                log.skipped.append(f"{pb.name} {con.name} (Blender uses only the bone's first IK)")
            else:
                active = True
                _convert_one(context, obj, pb, ik, log)
    settings = settings_of(obj)
    settings.active_index = max(len(settings.constraints) - 1, 0)
    if log.converted and cast("bpy.types.Pose", obj.pose).ik_solver == "ITASC":
        log.skipped.append("iTaSC solver settings (mode, precision, iterations: Reach has its own)")
    if not log.converted:
        raise NothingToDoError(
            "\n".join(["no built-in IK constraint to convert", *not_converted_lines(log.skipped)])
        )
    return Conversion(tuple(log.converted), tuple(log.skipped), tuple(log.notes))
