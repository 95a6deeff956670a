"""Built sessions kept between solves, so a solve at every frame does not rebuild the rig.

Building a :class:`.session.RigSession` (bones -> segments and joints, items -> goals, the
solver's index tables) costs more than a warm solve of the demo metarig. :func:`session_for`
keeps one session per armature and hands it back while everything the build read is
unchanged; the pose, the armature's placement and the targets are re-read before every solve
anyway (:meth:`.session.RigSession.refresh`).

What invalidates a session (the key, compared exactly except where a rounding is named):

* the armature object (its memory address and ``session_uid``: after undo or a file load the
  Python objects the session holds may be stale), its type and mode, its data block, the
  scale / shear / mirroring part of its world matrix (``M^T M`` and the sign of ``det M``;
  rotation and translation are re-read every solve);
* every Reach setting and constraint item (any RNA property, generically, so a new setting
  invalidates without being listed here; targets by address), and ``only_selected``; each
  target's parents, parent types, parent bones and every RNA property of their constraints,
  which decide whether a bone carries it (:mod:`.carried`: a full Child Of or a Copy
  Transforms onto a bone carries, another constraint does not);
* every bone's name and parent, and every number, flag and array of every bone and pose bone
  (rest matrices, lengths, connect / inherit flags, IK locks, limits, stiffness, stretch,
  rotation locks, pose scale to 1e-6 ...) except the pose channels a solve reads anyway, the
  evaluated matrices, selection / visibility and display-only settings
  (:data:`NOT_READ_BY_BUILD`); the rotation mode and inherit-scale mode of every figure bone;
* every RNA property of every bone constraint of the figure bones, and their Reach bone
  settings;
* an axis the build pinned at the pose's current angle (an IK-locked or Euler-locked axis of an
  Euler-parametrised bone, see :func:`.rig_joints.add_solved_bone`) that has turned by more than
  :data:`PIN_SLACK` since (checked on the refreshed pose).

``bpy`` is used only through the objects passed in.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import numpy as np

from . import rotations
from .session import RigSession
from .settings import armature_data, bone_settings_of

if TYPE_CHECKING:
    import bpy

    from ..operators.properties import ReachSettings

#: Sessions kept at most (one per armature, least recently used dropped first).
CAPACITY = 8

#: Bone / pose bone properties no build reads: the pose channels (re-read every solve), the
#: evaluated matrices, selection and visibility, and what only changes how a bone is drawn or
#: how it deforms a mesh (B-Bone segments, envelopes, custom shapes).
NOT_READ_BY_BUILD = frozenset(
    (
        "location", "rotation_quaternion", "rotation_euler", "rotation_axis_angle",
        "matrix", "matrix_channel", "matrix_basis", "head", "tail", "is_in_ik_chain",
        "select", "select_head", "select_tail", "hide", "hide_select", "show_wire",
        "use_deform", "use_envelope_multiply", "envelope_distance", "envelope_weight",
        "head_radius", "tail_radius", "use_cyclic_offset",
    )
)  # fmt: skip
_DISPLAY_PREFIXES = ("bbone_", "custom_shape", "use_custom_shape", "use_transform_a",
                     "use_endroll", "use_scale_easing")  # fmt: skip
#: Buffers of Blender's own storage types, which ``foreach_get`` fills fastest.
_DTYPES = {"FLOAT": np.float32, "INT": np.int32, "BOOLEAN": np.bool_}

#: RNA type -> (its property count, its numeric properties): add-ons may add properties.
_NUMERIC: dict[str, tuple[int, tuple[tuple[str, int, Any], ...]]] = {}
#: Decimals of pose scale in the key (see :func:`_gather`).
SCALE_DIGITS = 6
#: Radians a pinned joint may have moved and the session still be used: the pose is stored in
#: single precision, so writing a solved pose and reading it back moves a pinned angle by
#: round-off (about 1e-8), which must not force a rebuild at every solve.
PIN_SLACK = 1e-6

#: RNA type -> (its property count, (identifier, type, array dimensions) of each property).
_DESCRIPTORS: dict[str, tuple[int, tuple[tuple[str, str, int], ...]]] = {}
_SESSIONS: OrderedDict[int, tuple[tuple, bytes, RigSession, list[tuple[int, float]]]] = (
    OrderedDict()
)


def _numeric_properties(rna: Any) -> tuple[tuple[str, int, Any], ...]:
    """(identifier, values per item, dtype) of the numeric RNA properties a build may read
    (a pose bone's ``length`` is evaluated: the rest length is the bone's)."""
    known = _NUMERIC.get(rna.identifier)
    if known is not None and known[0] == len(rna.properties):
        return known[1]
    out = []
    for prop in rna.properties:
        ident = prop.identifier
        if (
            prop.type not in _DTYPES
            or ident in NOT_READ_BY_BUILD
            or (ident == "length" and rna.identifier == "PoseBone")
            or ident.startswith(_DISPLAY_PREFIXES)
        ):
            continue
        size = 1
        for dim in prop.array_dimensions if prop.is_array else ():
            size *= max(int(dim), 1)
        out.append((ident, size, _DTYPES[prop.type]))
    _NUMERIC[rna.identifier] = (len(rna.properties), tuple(out))
    return _NUMERIC[rna.identifier][1]


def _gather(collection: Any, properties: Iterable[tuple[str, int, Any]]) -> bytes:
    """Every listed property of every item of ``collection``, as bytes (``foreach_get``).

    Pose scale is rounded to :data:`SCALE_DIGITS` decimals: setting a bone's matrix (snapping,
    Visual Transform, scripts) decomposes it into channels with single-precision round-off
    (a scale of 0.99999994), which must not count as an edit.
    """
    n = len(collection)
    parts = []
    for ident, size, dtype in properties:
        buffer = np.empty(n * size, dtype=dtype)
        collection.foreach_get(ident, buffer)
        if ident == "scale":
            buffer = buffer.round(SCALE_DIGITS)
        parts.append(buffer.tobytes())
    return b"".join(parts)


def _is_property_group(value: Any) -> bool:
    """Whether an RNA struct is a property group (its contents belong to the owner)."""
    base = value.bl_rna.base
    return base is not None and base.identifier == "PropertyGroup"


def _descriptors(struct: Any) -> tuple[tuple[str, str, int], ...]:
    """(identifier, RNA type, array dimensions: 0 for a single value) of every property of
    ``struct``'s RNA type."""
    rna = struct.bl_rna
    known = _DESCRIPTORS.get(rna.identifier)
    if known is not None and known[0] == len(rna.properties):
        return known[1]
    out = tuple(
        (prop.identifier, prop.type, _dimensions(prop))
        for prop in rna.properties
        if prop.identifier != "rna_type"
    )
    _DESCRIPTORS[rna.identifier] = (len(rna.properties), out)
    return out


def _dimensions(prop: Any) -> int:
    """How many dimensions an RNA property's array has (0: not an array)."""
    if not getattr(prop, "is_array", False):
        return 0
    return max(sum(1 for d in prop.array_dimensions if d > 0), 1)


def _rna_values(struct: Any) -> tuple:
    """Every RNA property of ``struct`` (a property group or a constraint): values, pointers
    by address (property groups by contents), collections item by item."""
    out: list[Any] = []
    for ident, kind, dimensions in _descriptors(struct):
        value = getattr(struct, ident)
        if kind == "POINTER":
            if value is None:
                out.append(None)
            elif _is_property_group(value):
                out.append(_rna_values(value))
            else:  # an ID or a struct owned elsewhere: which one, not its contents
                out.append(value.as_pointer())
        elif kind == "COLLECTION":
            out.append(tuple(_rna_values(item) for item in value))
        elif dimensions == 1:  # a slice of a 1-D RNA array (or vector) is a tuple of values
            out.append(tuple(value[:]))
        elif dimensions:
            out.append(tuple(np.array(value, dtype=float).ravel()))
        else:
            out.append(value)
    return tuple(out)


def _parentage(target: bpy.types.Object | None) -> tuple:
    """How a target hangs in the scene, up to its root: what decides whether a bone of the
    armature carries it (:func:`.carried.find_carry`)."""
    out = []
    while target is not None:
        out.append((
            target.as_pointer(), target.parent_type, target.parent_bone,
            tuple(_rna_values(c) for c in target.constraints),
        ))  # fmt: skip
        target = target.parent
    return tuple(out)


def _object_key(obj: bpy.types.Object, settings: ReachSettings, only_selected: bool) -> tuple:
    """The armature object and its Reach settings (see the module docstring)."""
    m = np.array(obj.matrix_world, dtype=float)[:3, :3]
    data = armature_data(obj)
    bones = data.bones
    return (
        obj.as_pointer(), obj.session_uid, obj.type, obj.mode, data.as_pointer(),
        tuple((m.T @ m).round(12).ravel()), bool(np.linalg.det(m) < 0.0), only_selected,
        _rna_values(settings), tuple(_parentage(item.target) for item in settings.constraints),
        tuple(bones.keys()), tuple(p.name if (p := b.parent) is not None else "" for b in bones),
    )  # fmt: skip


def _bone_key(obj: bpy.types.Object, session: RigSession) -> bytes:
    """Bones, pose bones, bone constraints and pinned channels (see the module docstring)."""
    pose_bones = obj.pose.bones
    bones = armature_data(obj).bones
    parts = [
        _gather(bones, _numeric_properties(bones[0].bl_rna)),
        _gather(pose_bones, _numeric_properties(pose_bones[0].bl_rna)),
    ]
    extra: list[Any] = []
    rig = session.rig
    for name in rig.bones:
        pb = pose_bones[name]
        extra.append((pb.rotation_mode, pb.bone.inherit_scale, _rna_values(bone_settings_of(pb))))
        extra.append(tuple(_rna_values(c) for c in pb.constraints))
    return b"".join(parts) + repr(extra).encode()


def pinned_joints(session: RigSession) -> list[tuple[int, float]]:
    """(coordinate index, value) of every rotation joint of an Euler-parametrised bone that
    the build fixed (lower == upper): an IK-locked or Euler-locked axis of such a bone is
    pinned at the angle the pose had when the session was built (see
    :func:`.rig_joints.add_solved_bone`)."""
    figure = session.rig.figure
    joints = {j.name: j for j in figure.joints}
    names = figure.coordinate_names
    out = []
    for info in session.rig.solved.values():
        if info.param not in rotations.EULER_ORDERS:
            continue
        for _axis, joint in info.rotation_joints:
            j = joints[joint]
            if j.lower == j.upper:
                out.append((names.index(joint), j.lower))
    return out


def _pins_hold(session: RigSession, pins: list[tuple[int, float]]) -> bool:
    """Whether every pinned joint is still where the pose has it (within :data:`PIN_SLACK`)."""
    if not pins:
        return True
    start = session.rig.initial()
    return all(abs(start[i] - value) <= PIN_SLACK for i, value in pins)


def session_for(
    obj: bpy.types.Object,
    settings: ReachSettings,
    scene: bpy.types.Scene,
    view_layer: bpy.types.ViewLayer,
    only_selected: bool = False,
) -> RigSession:
    """A session for ``obj``: the kept one while nothing its build read has changed, else a
    new one (its :meth:`~.session.RigSession.solve_frame` re-reads pose and targets).

    Raises:
        RigError: the scene cannot be solved (from building a new session).
    """
    key = _object_key(obj, settings, only_selected)
    kept = _SESSIONS.pop(obj.session_uid, None)
    if kept is not None and kept[0] == key and kept[1] == _bone_key(obj, kept[2]):
        session = kept[2]
        session.scene, session.view_layer = scene, view_layer
        session.refresh()
        if _pins_hold(session, kept[3]):
            _SESSIONS[obj.session_uid] = kept
            return session
    session = RigSession(obj, settings, scene, view_layer, only_selected)
    _SESSIONS[obj.session_uid] = (key, _bone_key(obj, session), session, pinned_joints(session))
    while len(_SESSIONS) > CAPACITY:
        _SESSIONS.popitem(last=False)
    return session


def clear() -> None:
    """Forget every kept session (on unregister, and in tests)."""
    _SESSIONS.clear()
