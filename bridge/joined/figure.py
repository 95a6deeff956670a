"""Several armatures as one figure: one solver problem over every armature's bones.

Each armature keeps its own :class:`..rig.build.Rig` (built once, its pose read and written as for a
Solve of that armature alone); a :class:`JoinedFigure` copies every rig's figure into one
``solver.Figure`` (segment, joint and group names prefixed with the armature's name and
:data:`SEPARATOR`, so two armatures may have bones of the same name) and every rig's constraints
into one constraint list, so the solver moves every armature's joints at once (one system, not
one solve per armature in turn).

Frames. A rig's figure lives in its armature's model world (:mod:`..blender.model_space`): the
world itself for an armature without a non-uniform scale or a mirror. The roots of every figure
already carry their object's transform, so the copies sit side by side as they are (several
roots). An armature whose model world is not the world itself cannot share it: the join refuses
it (:class:`..errors.RigError` naming the armature and why).

Goals between armatures. A Reach constraint of armature ``A`` whose target is armature ``B`` of
the join with a Target Bone, or an object hanging off a bone of ``B`` (parented to it, at any
depth, or fixed to it by one Child Of / Copy Transforms: :func:`..rig.carried_targets.find_carry`),
is, in ``A``'s rig alone, a target fixed where it is. In the join the goal is *carried* by ``B``'s
segment of that bone (or of the nearest bone above it in ``B``'s figure, the bones between moving
rigidly with it): the solver then moves ``B``'s chain as well as ``A``'s to close it. Its point and
axes in the carrier's frame are read before every solve from Blender's pose
(:meth:`JoinedFigure.sync`): the target's frame in the carrier bone's unit frame at its head,
which the solved channels do not change.

Everything else a rig's goals hold is its own: a goal on a world target is the rig's goal object
itself (retargeted by the rig); a goal carried by a bone of its own armature is a copy carried by
the prefixed segment, its geometry copied from the rig's goal before every solve.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import numpy as np

from ... import solver
from ...props.access import armature_data, settings_of
from ...solver.model.structure import REVOLUTE
from ..blender.model_space import model_space
from ..errors import RigError
from ..loops.attach import ORIENTATION_SUFFIX
from ..rig.build import Rig, bone_world_matrix
from ..rig.carried_targets import find_carry
from ..rig.goals import GoalBinding, carried_copy

if TYPE_CHECKING:
    import bpy

    from ...props.groups import ReachConstraint

#: Between an armature's name and a segment, joint, group or constraint name in the join.
SEPARATOR = "/"


def joined_name(obj: bpy.types.Object, name: str) -> str:
    """The name of ``obj``'s segment, joint, group or constraint ``name`` in the join."""
    return f"{obj.name}{SEPARATOR}{name}"


@dataclass(frozen=True)
class _CrossGoal:
    """A goal of one armature carried by a bone of another one in the join.

    Attributes:
        binding: the rig's binding (target armature, Target Bone, head/tail, goal kind).
        goal: the join's goal, carried by ``carrier`` (its geometry set by :meth:`update`).
        carrier_obj: the armature whose bone carries it.
        carrier_bone: the bone of ``carrier_obj`` whose segment carries it.
        owner: the armature whose constraint it is.
        shift: (3,) world offset added to the target's point (a correction pass's; zero
            otherwise, see :meth:`JoinedFigure.shift`).
    """

    binding: GoalBinding
    goal: solver.Goal
    carrier_obj: bpy.types.Object
    carrier_bone: str
    owner: bpy.types.Object
    shift: np.ndarray = field(default_factory=lambda: np.zeros(3))

    def update(self) -> None:
        """Set the goal's point and axes in the carrier bone's unit frame from Blender's pose."""
        frame = bone_world_matrix(self.carrier_obj, self.carrier_bone)
        point, axes = self.binding.target_frame()
        point = point + self.shift
        rotation = frame[:3, :3]
        local_point = rotation.T @ (point - frame[:3, 3])
        values = self.binding.values_at(local_point, rotation.T @ axes)
        for key, value in values.items():
            if value is not None:
                setattr(self.goal, key, value)


@dataclass(frozen=True)
class _CopiedGoal:
    """A goal carried by a bone of its own armature, copied onto the prefixed segment."""

    source: solver.Goal
    goal: solver.Goal

    def update(self) -> None:
        """Copy the rig goal's geometry (its carrier-local points and directions)."""
        for part, value in self.source.geometry().items():
            if value is not None:
                setattr(self.goal, part.attribute, value)


@dataclass(frozen=True)
class Member:
    """One armature of a join.

    Attributes:
        rig: its rig (figure, constraints, pose).
        coordinates: (n_rig_coords,) index of each of the rig's coordinates in the join's.
        constraints: the rig's constraints' range in the join's constraint list.
    """

    rig: Rig
    coordinates: np.ndarray
    constraints: range


def _check_space(rig: Rig) -> None:
    """RigError unless the armature's model world is the world itself."""
    space = model_space(np.array(rig.obj.matrix_world, dtype=float))
    if space.sheared or not np.array_equal(space.linear, np.eye(3)):
        why = "a non-uniform scale or shear" if space.sheared else "a negative (mirroring) scale"
        raise RigError(
            f"Armature '{rig.obj.name}' has {why}: its bones cannot be solved in one system "
            "with other armatures (each armature's space would differ); apply the scale or "
            "solve it alone"
        )


def _carrier_bone(obj: bpy.types.Object, bone: str, figure_bones: Sequence[str]) -> str | None:
    """The bone of ``obj`` whose segment carries a goal on ``bone``: ``bone`` itself or the
    nearest bone above it in the figure; None when no figure bone is above it (the solve does
    not move it)."""
    b = armature_data(obj).bones.get(bone)
    while b is not None and b.name not in figure_bones:
        b = b.parent
    return None if b is None else b.name


def other_bone(
    obj: bpy.types.Object,
    target: bpy.types.Object | None,
    target_bone: str,
    other: bpy.types.Object,
) -> str | None:
    """The bone of armature ``other`` a goal of armature ``obj`` on ``target`` (and its Target
    Bone) hangs off: the Target Bone when ``target`` is ``other`` itself, else the bone
    ``target`` is parented or rigidly constrained to at the end of its parents
    (:func:`..rig.carried_targets.find_carry`); None when neither."""
    if target is None or other == obj:
        return None
    if target == other:
        return target_bone or None
    carry = find_carry(other, target, lambda _bone: True)
    return None if carry is None else carry.bone


def _other_bone(
    rig: Rig, binding: GoalBinding, by_obj: Mapping[int, Rig]
) -> tuple[Rig, str] | None:
    """The other rig of the join and its figure bone that carries ``binding``'s goal, or None
    (a target no bone of another armature moves: it stays in the world)."""
    if binding.carry is not None:  # already carried by a bone of its own armature
        return None
    for other in by_obj.values():
        bone = other_bone(rig.obj, binding.target, binding.target_bone, other.obj)
        if bone is not None:
            carrier = _carrier_bone(other.obj, bone, other.bones)
            return None if carrier is None else (other, carrier)
    return None


class JoinedFigure:
    """Several rigs as one ``solver.Figure`` with one constraint list (see the module doc).

    Args:
        rigs: the armatures' rigs, each built alone (:func:`..rig.build.build_rig`); at least two,
            of different armature objects.

    Raises:
        RigError: an armature whose model world is not the world (named), or names the
            prefixes cannot keep apart.
    """

    def __init__(self, rigs: Sequence[Rig]) -> None:
        for rig in rigs:
            _check_space(rig)
        self.figure = solver.Figure()
        by_obj = {rig.obj.as_pointer(): rig for rig in rigs}
        try:
            for rig in rigs:
                self._copy_figure(rig)
            names = self.figure.coordinate_names
            index = {name: i for i, name in enumerate(names)}
            self._updates: list[_CrossGoal | _CopiedGoal] = []
            constraints: list[solver.Constraint] = []
            members = []
            for rig in rigs:
                first = len(constraints)
                constraints += self._copy_constraints(rig, by_obj)
                coords = np.array(
                    [index[joined_name(rig.obj, n)] for n in rig.figure.coordinate_names],
                    dtype=int,
                )
                members.append(Member(rig, coords, range(first, len(constraints))))
        except solver.ReachError as exc:
            raise RigError(f"Armatures {_names(rigs)} cannot be joined: {exc}") from None
        self.members: tuple[Member, ...] = tuple(members)
        self.constraints: tuple[solver.Constraint, ...] = tuple(constraints)

    @property
    def crossing(self) -> tuple[str, ...]:
        """The constraints (item names) whose goal a bone of another armature carries."""
        return tuple(u.binding.name for u in self._updates if isinstance(u, _CrossGoal))

    # ------------------------------------------------------------------ building
    def _copy_figure(self, rig: Rig) -> None:
        """Add ``rig``'s segments, joints, groups and linear constraints, names prefixed."""
        src, obj, fig = rig.figure, rig.obj, self.figure
        segments = src.segments
        for seg in segments:
            parent = None if seg.parent < 0 else joined_name(obj, segments[seg.parent].name)
            fig.add_segment(
                joined_name(obj, seg.name), parent, seg.translation.tolist(),
                rotation=seg.rotation, inherit_rotation=seg.inherit_rotation,
            )  # fmt: skip
        joints = src.joints
        for joint in joints:
            add = fig.add_revolute if joint.kind == REVOLUTE else fig.add_prismatic
            add(joined_name(obj, segments[joint.segment].name), joint.axis, joint.lower,
                joint.upper, joint.rigidity, joined_name(obj, joint.name))  # fmt: skip
        for group in src.groups:
            fig.add_group(joined_name(obj, group.name),
                          [joined_name(obj, joints[j].name) for j in group.joints],
                          group.matrix, group.lower.tolist(), group.upper.tolist(),
                          group.rigidity.tolist())  # fmt: skip
        for row in src.linear_constraints:
            coefficients = {
                joined_name(obj, joints[j].name): c for j, c in row.coefficients.items()
            }
            fig.add_linear_constraint(coefficients, row.lower, row.upper,
                                      joined_name(obj, row.label))  # fmt: skip

    def _copy_constraints(self, rig: Rig, by_obj: Mapping[int, Rig]) -> list[solver.Constraint]:
        """``rig``'s constraints on the join's segments, goals carried across armatures."""
        obj = rig.obj
        items = {item.name: item for item in settings_of(obj).constraints}
        out = []
        for spec, constraint in zip(rig.specs, rig.constraints, strict=True):
            goals = [self._goal(rig, binding, items, by_obj) for binding in spec.bindings]
            effector, root = constraint.effector, constraint.chain_root
            out.append(
                solver.Constraint(
                    solver.EndEffector(
                        joined_name(obj, effector.segment), effector.point, effector.x, effector.y
                    ),
                    goals[0] if len(goals) == 1 else solver.Disjunction(goals),
                    constraint.weight,
                    None if root is None else joined_name(obj, root),
                    joined_name(obj, constraint.name),
                    constraint.enabled,
                )
            )
        return out

    def _goal(
        self, rig: Rig, binding: GoalBinding, items: Mapping, by_obj: Mapping[int, Rig]
    ) -> solver.Goal:
        """The join's goal of ``binding``: the rig's own, a copy on the prefixed carrier, or a
        goal carried by another armature's bone."""
        own = binding.solver_goal()

        def item() -> ReachConstraint:  # read only for a copy; a slider's orientation constraint is
            # made from the slider's item
            return items.get(binding.name) or items[binding.name.removesuffix(ORIENTATION_SUFFIX)]

        found = None if binding.carrier is not None else _other_bone(rig, binding, by_obj)
        if found is not None:
            other, bone = found
            goal = carried_copy(binding, item(), joined_name(other.obj, bone))
            self._updates.append(_CrossGoal(binding, goal, other.obj, bone, rig.obj))
            return goal
        if binding.carrier is None:
            return own  # a target in the world: the rig retargets it
        goal = carried_copy(binding, item(), joined_name(rig.obj, binding.carrier))
        self._updates.append(_CopiedGoal(own, goal))
        return goal

    def carried_across(self, obj: bpy.types.Object, name: str) -> bool:
        """Whether a bone of another armature carries the goal of ``obj``'s constraint item
        ``name``."""
        return any(self._cross(obj, name))

    def shift(self, obj: bpy.types.Object, name: str, by: np.ndarray) -> None:
        """Offset (3,) (world, scene units) the target point of ``obj``'s constraint item
        ``name`` by ``by`` when a bone of another armature carries it (a correction pass:
        the world goals a Solve corrects are the rigs' own); the next :meth:`sync` applies
        it."""
        for update in self._cross(obj, name):
            update.shift[:] = by

    def _cross(self, obj: bpy.types.Object, name: str) -> list[_CrossGoal]:
        return [
            u
            for u in self._updates
            if isinstance(u, _CrossGoal) and u.owner == obj and u.binding.name == name
        ]

    def unshift(self) -> None:
        """Put every :meth:`shift` back to zero (the goals back on the true targets at the
        next :meth:`sync`)."""
        for update in self._updates:
            if isinstance(update, _CrossGoal):
                update.shift[:] = 0.0

    # ------------------------------------------------------------------ each solve
    def sync(self) -> None:
        """Before a solve, after each rig has read its pose and targets: push every rig's rest
        transforms into the join's segments and update the goals the join made."""
        fig = self.figure
        for member in self.members:
            obj = member.rig.obj
            for seg in member.rig.figure.segments:
                fig.set_rest(joined_name(obj, seg.name), seg.translation, seg.rotation)
        for update in self._updates:
            update.update()

    def start(self) -> np.ndarray:
        """The join's start coordinates: each rig's :meth:`..rig.build.Rig.initial` in its slots."""
        x = np.zeros(len(self.figure.coordinate_names))
        for member in self.members:
            x[member.coordinates] = member.rig.initial()
        return x

    def split(self, result: solver.IKResult) -> list[solver.IKResult]:
        """One result per member, in its rig's coordinates and constraints (for
        :meth:`..rig.build.Rig.apply` and its report); the solve's status, counts and time are the
        join's."""
        out = []
        for member in self.members:
            figure = member.rig.figure
            x = result.x[member.coordinates]
            residuals = result.residuals[member.constraints.start : member.constraints.stop]
            prefix = joined_name(member.rig.obj, "")
            out.append(
                replace(
                    result,
                    x=x,
                    joint_values=figure.joint_values(x),
                    joint_names=figure.joint_names,
                    residuals=tuple(
                        replace(r, name=r.name.removeprefix(prefix)) for r in residuals
                    ),
                    success=all(r.satisfied for r in residuals),
                    active_set=tuple(a for a in result.active_set if a.startswith(prefix)),
                    pose_jacobians=None,
                )
            )
        return out


def _names(rigs: Sequence[Rig]) -> str:
    return ", ".join(f"'{rig.obj.name}'" for rig in rigs)
