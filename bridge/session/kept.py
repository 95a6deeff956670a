"""Built sessions kept between solves, so a solve at every frame does not rebuild the rig.

Building a :class:`.rig_session.RigSession` (bones -> segments and joints, items -> goals, the
solver's index tables) costs more than a warm solve of the demo metarig. :func:`session_for`
keeps one session per armature and hands it back while everything the build read is
unchanged; the pose, the armature's placement and the targets are re-read before every solve
anyway (:meth:`.rig_session.RigSession.refresh`).

What invalidates a session (the key, compared exactly except where a rounding is named):

* the armature object (its memory address and ``session_uid``: after undo or a file load the
  Python objects the session holds may be stale), its type and mode, its data block, the
  scale / shear / mirroring part of its world matrix (``M^T M`` and the sign of ``det M``;
  rotation and translation are re-read every solve);
* every Reach setting and constraint item (any RNA property, generically, so a new setting
  invalidates without being listed here; targets by address), and ``only_selected``; each
  target's parents, parent types, parent bones and every RNA property of their constraints,
  which decide whether a bone carries it (:mod:`..rig.carried_targets`: a full Child Of or a Copy
  Transforms onto a bone carries, another constraint does not);
* every bone's name; the parent of every figure bone and of every bone above one the build
  asked whether the solve moves it (a Target Bone of the armature, a bone a target hangs off:
  :attr:`..rig.goals.ConstraintPlan.asked`), the only parents a build reads (the parent of a
  bone can only change in Edit Mode, which every bone's rest data does not always show);
* every number, flag, enum and array of those same bones (:func:`watched_bones`) and their
  pose bones (rest matrices, lengths, connect / inherit flags, Inherit Scale, rotation mode,
  IK locks, limits, stiffness, stretch, rotation locks, pose scale to 1e-6 but not the scale
  a solve writes for an IK Stretch, which a build takes as 1 ...) except the
  pose channels a solve reads anyway, the evaluated matrices, selection / visibility and
  display-only settings (:data:`NOT_READ_BY_BUILD`, with the settings no build reads:
  :data:`BUILD_IGNORES`): a build reads no other bone's settings;
* every RNA property of every bone constraint of the figure bones, and their Reach bone
  settings;
* an axis the build pinned at the pose's current angle (an IK-locked or Euler-locked axis of an
  Euler-parametrised bone, see :func:`..rig.joints.add_solved_bone`) that has turned by more than
  :data:`PIN_SLACK` since (checked on the refreshed pose).

``bpy`` is used only through the objects passed in.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Container, Iterable
from operator import attrgetter
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from ...props.access import armature_data, bone_settings_of
from ..blender import channel_rotations
from .rig_session import RigSession

if TYPE_CHECKING:
    import bpy

    from ...props.groups import ReachSettings

#: Sessions kept at most (one per armature, least recently used dropped first).
CAPACITY = 8

#: Settings of bones and pose bones that no module of a build reads (checked by name in
#: ``bridge/``): the location, scale and 4D rotation locks (only Blender's transform tools
#: and the conversion of built-in IK read those; the build reads the three rotation locks),
#: Local Location, and the rest head and tail in armature space (the build reads
#: ``matrix_local`` and ``length``, which fix them; a Solve's pole start reads the tail
#: itself every time).
BUILD_IGNORES = frozenset(
    (
        "lock_location", "lock_scale", "lock_rotation_w", "lock_rotations_4d",
        "use_local_location", "head_local", "tail_local",
    )
)  # fmt: skip
#: Bone / pose bone properties no build reads: the pose channels (re-read every solve), the
#: evaluated matrices, selection and visibility, what only changes how a bone is drawn or
#: how it deforms a mesh (B-Bone segments, envelopes, custom shapes), and the settings only
#: Blender's iTaSC solver uses (its rotation / location control and their weights).
NOT_READ_BY_BUILD = frozenset(
    (
        "location", "rotation_quaternion", "rotation_euler", "rotation_axis_angle",
        "matrix", "matrix_channel", "matrix_basis", "head", "tail", "is_in_ik_chain",
        "select", "select_head", "select_tail", "hide", "hide_select", "show_wire",
        "use_deform", "use_envelope_multiply", "envelope_distance", "envelope_weight",
        "head_radius", "tail_radius", "use_cyclic_offset", "display_type",
        "use_ik_rotation_control", "use_ik_linear_control", "ik_rotation_weight",
        "ik_linear_weight",
    )
) | BUILD_IGNORES  # fmt: skip
_DISPLAY_PREFIXES = ("bbone_", "custom_shape", "use_custom_shape", "use_transform_a",
                     "use_endroll", "use_scale_easing")  # fmt: skip
#: Property types of the numbers, flags and enums a key reads.
_NUMERIC_TYPES = frozenset(("FLOAT", "INT", "BOOLEAN", "ENUM"))


#: RNA type -> the :class:`_RnaPlan` of its numeric properties a build may read.
_NUMERIC: dict[str, _RnaPlan] = {}
#: Decimals of pose scale in the key (see :func:`_numbers`).
SCALE_DIGITS = 6
#: Radians a pinned joint may have moved and the session still be used: the pose is stored in
#: single precision, so writing a solved pose and reading it back moves a pinned angle by
#: round-off (about 1e-8), which must not force a rebuild at every solve.
PIN_SLACK = 1e-6


class _RnaPlan(NamedTuple):
    """How :func:`_rna_values` (every property) or :func:`_numbers` (the numeric ones a build
    may read) reads one RNA type: its properties sorted by kind.

    Attributes:
        size: the type's property count when the plan was made (add-ons may add some).
        values: the single values (numbers, flags, enums, strings) in one call, or None.
        arrays: 1-D arrays and vectors.
        grids: arrays of two or more dimensions (matrices).
        pointers: pointer properties.
        collections: collection properties.
    """

    size: int
    values: Callable[[Any], Any] | None
    arrays: tuple[str, ...]
    grids: tuple[str, ...]
    pointers: tuple[str, ...]
    collections: tuple[str, ...]


class _Kept(NamedTuple):
    """A kept session and what it was built from.

    Attributes:
        key: :func:`_object_key` at the build.
        bones: :func:`_bone_key` at the build.
        session: the session.
        pins: :func:`pinned_joints` of the session.
        watched: the bones whose parent :func:`_bone_key` reads (:func:`watched_bones`).
    """

    key: tuple
    bones: tuple
    session: RigSession
    pins: list[tuple[int, float]]
    watched: tuple[str, ...]


_PLANS: dict[str, _RnaPlan] = {}
_SESSIONS: OrderedDict[int, _Kept] = OrderedDict()


def _make_plan(rna: Any, keep: Callable[[Any], bool]) -> _RnaPlan:
    """The :class:`_RnaPlan` of the properties of RNA type ``rna`` that ``keep`` accepts."""
    kinds: dict[str, list[str]] = {"values": [], "arrays": [], "grids": [], "pointers": [],
                                   "collections": []}  # fmt: skip
    for prop in rna.properties:
        if not keep(prop):
            continue
        ident = prop.identifier
        if prop.type == "POINTER":
            kinds["pointers"].append(ident)
        elif prop.type == "COLLECTION":
            kinds["collections"].append(ident)
        elif not getattr(prop, "is_array", False):
            kinds["values"].append(ident)
        elif sum(1 for d in prop.array_dimensions if d > 0) > 1:
            kinds["grids"].append(ident)
        else:
            kinds["arrays"].append(ident)
    values = kinds["values"]
    return _RnaPlan(
        len(rna.properties), attrgetter(*values) if values else None, tuple(kinds["arrays"]),
        tuple(kinds["grids"]), tuple(kinds["pointers"]), tuple(kinds["collections"]),
    )  # fmt: skip


def _kept_plan(cache: dict[str, _RnaPlan], rna: Any, keep: Callable[[Any], bool]) -> _RnaPlan:
    """``cache``'s plan of ``rna``, made again when the type's property count changed."""
    known = cache.get(rna.identifier)
    if known is None or known.size != len(rna.properties):
        known = cache[rna.identifier] = _make_plan(rna, keep)
    return known


def _numeric_plan(rna: Any) -> _RnaPlan:
    """The plan of the numeric properties of RNA type ``rna`` (a bone's or a pose bone's) a
    build may read (a pose bone's ``length`` is evaluated: the rest length is the bone's)."""

    def read_by_build(prop: Any) -> bool:
        ident = prop.identifier
        return not (
            prop.type not in _NUMERIC_TYPES
            or (prop.type == "ENUM" and prop.is_enum_flag)  # a set of items, not one number
            or ident in NOT_READ_BY_BUILD
            or (ident == "length" and rna.identifier == "PoseBone")
            or ident.startswith(_DISPLAY_PREFIXES)
        )

    return _kept_plan(_NUMERIC, rna, read_by_build)


def _numbers(structs: Iterable[Any], solved_scale: Container[str] = ()) -> tuple:
    """Every numeric property of each bone or pose bone in ``structs`` (all of one RNA type)
    that a build may read (:func:`_numeric_plan`), as Python values; the pose scale of the
    bones in ``solved_scale`` left out (a solve writes it, a build takes it as 1).

    Read bone by bone, for the bones a build reads only (:func:`watched_bones`), rather than
    with one ``foreach_get`` per property over every bone of the armature: the key's cost
    follows the figure, not the armature (on the demo metarig 21 of 159 bones). Pose scale is
    rounded to :data:`SCALE_DIGITS` decimals: setting a bone's matrix (snapping, Visual
    Transform, scripts) decomposes it into channels with single-precision round-off (a scale
    of 0.99999994), which must not count as an edit.
    """
    out: list[Any] = []
    plan = None
    for struct in structs:
        if plan is None:
            plan = _numeric_plan(struct.bl_rna)
        out.append(None if plan.values is None else plan.values(struct))
        for ident in plan.arrays:  # a slice of a 1-D RNA array (or vector): its values
            values = getattr(struct, ident)[:]
            if ident == "scale" and solved_scale and struct.name in solved_scale:
                values = None  # the stretch a solve wrote: re-read by every refresh
            elif ident == "scale":  # three values, rounded without a generator (~1 us a bone)
                x, y, z = values
                values = (round(x, SCALE_DIGITS), round(y, SCALE_DIGITS), round(z, SCALE_DIGITS))
            out.append(values)
        for ident in plan.grids:
            out.append(np.array(getattr(struct, ident), dtype=float).tobytes())
    return tuple(out)


def _is_property_group(value: Any) -> bool:
    """Whether an RNA struct is a property group (its contents belong to the owner)."""
    base = value.bl_rna.base
    return base is not None and base.identifier == "PropertyGroup"


def _plan(struct: Any) -> _RnaPlan:
    """The :class:`_RnaPlan` of every property of ``struct``'s RNA type (made once per type)."""
    return _kept_plan(_PLANS, struct.bl_rna, lambda prop: prop.identifier != "rna_type")


def _rna_values(struct: Any, plan: _RnaPlan | None = None) -> tuple:
    """Every RNA property of ``struct`` (a property group or a constraint): values, pointers
    by address (property groups by contents), collections item by item.

    The single values are read in one ``attrgetter`` call (C, not a Python loop per
    property): a key reads a few hundred of them per solve. ``plan``: ``struct``'s plan when
    the caller has it (:func:`_each_rna_values`).
    """
    plan = _plan(struct) if plan is None else plan
    out: list[Any] = [None if plan.values is None else plan.values(struct)]
    for ident in plan.arrays:  # a slice of a 1-D RNA array (or vector) is a tuple of values
        out.append(tuple(getattr(struct, ident)[:]))
    for ident in plan.grids:
        out.append(tuple(np.array(getattr(struct, ident), dtype=float).ravel()))
    for ident in plan.pointers:
        value = getattr(struct, ident)
        if value is None:
            out.append(None)
        elif _is_property_group(value):
            out.append(_rna_values(value))
        else:  # an ID or a struct owned elsewhere: which one, not its contents
            out.append(value.as_pointer())
    for ident in plan.collections:
        out.append(_each_rna_values(getattr(struct, ident)))
    return tuple(out)


def _each_rna_values(structs: Iterable[Any]) -> tuple:
    """:func:`_rna_values` of each struct. Structs of one Python class share its plan (Blender
    gives every RNA type its own class), so a type's property count is checked once per call
    rather than once per struct: the items of a collection, the settings of every bone."""
    plans: dict[type, _RnaPlan] = {}
    out = []
    for struct in structs:
        plan = plans.get(type(struct))
        if plan is None:
            plan = plans[type(struct)] = _plan(struct)
        out.append(_rna_values(struct, plan))
    return tuple(out)


def _parentage(target: bpy.types.Object | None) -> tuple:
    """How a target hangs in the scene, up to its root: what decides whether a bone of the
    armature carries it (:func:`..rig.carried_targets.find_carry`)."""
    out = []
    while target is not None:
        out.append((
            target.as_pointer(), target.parent_type, target.parent_bone,
            _each_rna_values(target.constraints),
        ))  # fmt: skip
        target = target.parent
    return tuple(out)


def _object_key(obj: bpy.types.Object, settings: ReachSettings, only_selected: bool) -> tuple:
    """The armature object and its Reach settings (see the module docstring)."""
    m = np.array(obj.matrix_world, dtype=float)[:3, :3]
    (a, b, c), (d, e, f), (g, h, i) = m.tolist()
    det = a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g)  # its sign is enough
    data = armature_data(obj)
    return (
        obj.as_pointer(), obj.session_uid, obj.type, obj.mode, data.as_pointer(),
        tuple((m.T @ m).round(12).ravel()), det < 0.0, only_selected,
        _rna_values(settings), tuple(_parentage(item.target) for item in settings.constraints),
        tuple(data.bones.keys()),
    )  # fmt: skip


def watched_bones(obj: bpy.types.Object, session: RigSession) -> tuple[str, ...]:
    """The bones whose parent the build of ``session`` read: every figure bone (their
    ancestors are figure bones too) and every bone at or above one the build asked whether
    the solve moves it (:attr:`..rig.build.Rig.asked`).

    While each of these keeps its parent (and its name), every bone the build walked up from
    reaches the same bones: the figure, its chains and which bones the solve moves are the
    same.
    """
    bones = armature_data(obj).bones
    out = dict.fromkeys(session.rig.bones)
    for name in sorted(session.rig.asked):
        bone = bones.get(name)
        while bone is not None and bone.name not in out:
            out[bone.name] = None
            bone = bone.parent
    return tuple(out)


def _bone_key(obj: bpy.types.Object, session: RigSession, watched: tuple[str, ...]) -> tuple:
    """The ``watched`` bones (their numbers and parents) and the bone constraints and Reach
    bone settings of the figure bones (see the module docstring)."""
    pose_bones = obj.pose.bones
    bones = armature_data(obj).bones
    watched_bones = [bones[name] for name in watched]
    written = {name for name, info in session.rig.solved.items() if info.writes_scale}
    numbers = _numbers(watched_bones), _numbers((pose_bones[name] for name in watched), written)
    parents = tuple(p.name if (p := bone.parent) is not None else "" for bone in watched_bones)
    figure = [pose_bones[name] for name in session.rig.bones]
    settings = _each_rna_values(map(bone_settings_of, figure))
    constraints = tuple(_each_rna_values(pb.constraints) for pb in figure)
    return numbers, parents, settings, constraints


def pinned_joints(session: RigSession) -> list[tuple[int, float]]:
    """(coordinate index, value) of every rotation joint of an Euler-parametrised bone that
    the build fixed (lower == upper): an IK-locked or Euler-locked axis of such a bone is
    pinned at the angle the pose had when the session was built (see
    :func:`..rig.joints.add_solved_bone`)."""
    figure = session.rig.figure
    joints = {j.name: j for j in figure.joints}
    names = figure.coordinate_names
    out = []
    for info in session.rig.solved.values():
        if info.param not in channel_rotations.EULER_ORDERS:
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
    new one (its :meth:`~.rig_session.RigSession.solve_frame` re-reads pose and targets).

    Raises:
        RigError: the scene cannot be solved (from building a new session).
    """
    key = _object_key(obj, settings, only_selected)
    kept = _SESSIONS.pop(obj.session_uid, None)
    # The object key first: it holds every bone's name, so the watched bones still exist.
    if (
        kept is not None
        and kept.key == key
        and kept.bones == _bone_key(obj, kept.session, kept.watched)
    ):
        session = kept.session
        session.scene, session.view_layer = scene, view_layer
        session.refresh()
        if _pins_hold(session, kept.pins):
            _SESSIONS[obj.session_uid] = kept
            return session
    session = RigSession(obj, settings, scene, view_layer, only_selected)
    watched = watched_bones(obj, session)
    _SESSIONS[obj.session_uid] = _Kept(
        key, _bone_key(obj, session, watched), session, pinned_joints(session), watched
    )
    while len(_SESSIONS) > CAPACITY:
        _SESSIONS.popitem(last=False)
    return session


def clear() -> None:
    """Forget every kept session (on unregister, and in tests)."""
    _SESSIONS.clear()
