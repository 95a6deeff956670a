"""Part of the bridge (:mod:`.build`): Reach constraint items -> end-effectors, goals, chains.

A target object's location gives goal points; its local axes give orientations (X, Y),
line directions and plane normals (the item's ``target_axis``). A target bone of the same
armature becomes the goal's ``carrier`` segment (a closed loop): the goal then lives in that
bone's frame and moves with it. So does a target object hanging off a bone the solve moves
(see :mod:`.carried_targets`): its goal is carried by that bone at the offset Blender's parenting
gives. Lengths are scene units, the armature's uniform scale applied.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from itertools import chain
from typing import TYPE_CHECKING, cast

import numpy as np

from ... import solver
from ...props.access import armature_data
from ..blender.axes import AXIS_VECTORS, signed_axis
from ..blender.model_space import ModelSpace, model_space
from ..loops import attach, chains
from .carried_targets import Carry, carried_offset, find_carry
from .size import solver_degrees

if TYPE_CHECKING:
    import bpy

    from ...props.groups import ReachConstraint

POINT_GOALS = ("POSITION", "POSITION_ORIENTATION", "AIM", "LINE", "PLANE", "HALF_SPACE")
#: Goal types that read the target's point only, none of its axes.
AXIS_FREE_GOALS = ("POSITION", "AIM")


def effector_factor(item: ReachConstraint) -> float:
    """Position of the end-effector along its bone (0 head, 1 tail)."""
    return {"HEAD": 0.0, "TAIL": 1.0}.get(item.effector, float(item.offset))


@dataclass
class GoalBinding:
    """One goal and where its point/directions come from (re-read every frame)."""

    name: str
    item_kind: str
    goal: solver.Goal | None  # None until build_constraints has made it
    target: bpy.types.Object
    target_bone: str
    head_tail: float
    target_axis: str
    suppress: str
    carrier: str | None
    error: Callable[[str], Exception]
    carry: Carry | None = None  # a target object carried by ``carrier`` (else a bone of it)
    carrier_scale: np.ndarray | None = None  # (3,) the carrier bone's pose scale (.rig_scale)
    # (3,) world goal point as :meth:`frame` last read it from the target (None for a bone of
    # the armature or a carried target): the bake checks it without reading the target again.
    world_point: np.ndarray | None = None
    # (3, 3) the goal's axes in the target's frame (columns X, Y, Z), None for the target's
    # own: a weld's or a hinge's (:func:`..loops.attach.relative_axes`).
    relative: np.ndarray | None = None

    def solver_goal(self) -> solver.Goal:
        """The goal, once :func:`build_constraints` has made it; ValueError before."""
        if self.goal is None:
            raise ValueError(f"GoalBinding '{self.name}': its goal is not built yet")
        return self.goal

    def target_frame(
        self, depsgraph: bpy.types.Depsgraph | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """World goal point (3,) and unit axes (3, 3) (columns X, Y, Z) from the target.

        With ``depsgraph``, the target's depsgraph-evaluated copy is read (what Blender
        shows); a target bone is read the same way (this includes a carrier bone of the
        solved armature itself).
        """
        try:
            target = self.target if depsgraph is None else self.target.evaluated_get(depsgraph)
            m = np.array(target.matrix_world, dtype=float)
        except ReferenceError:
            raise self.error(f"Constraint '{self.name}': its target object was deleted") from None
        return self._point_axes(target, m)

    def _point_axes(self, target: bpy.types.Object, m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Point (3,) and unit axes (3, 3) of the target's matrix ``m`` (4, 4) (the target
        object's, in any frame), its Target Bone applied; errors for NaN or zero scale."""
        if self.target_bone:
            pb = cast("bpy.types.Pose", target.pose).bones[self.target_bone]
            m = m @ np.array(pb.matrix, dtype=float)
            m[:3, 3] = (m @ np.array([0.0, pb.bone.length * self.head_tail, 0.0, 1.0]))[:3]
        # The checks on Python floats: a few numpy calls fewer per target and solve (about
        # 3 us each); the column lengths add the rows in numpy's order, so the same numbers.
        rows = m.tolist()
        if not all(map(math.isfinite, chain.from_iterable(rows))):
            raise self.error(
                f"Constraint '{self.name}': target '{target.name}' has a non-finite (NaN) transform"
            )
        r0, r1, r2 = rows[0], rows[1], rows[2]
        norms = [math.sqrt(r0[k] * r0[k] + r1[k] * r1[k] + r2[k] * r2[k]) for k in range(3)]
        if min(norms) <= 1e-12:
            raise self.error(f"Constraint '{self.name}': target '{target.name}' has zero scale")
        return m[:3, 3], m[:3, :3] / np.array(norms)

    def frame(
        self, arm: bpy.types.Object, scale: float, space: ModelSpace | None = None
    ) -> tuple[np.ndarray, np.ndarray | None]:
        """Goal point (3,) and unit axes (3, 3) (columns X, Y, Z) in the model's world
        (see :mod:`..blender.model_space`; the axes map as plane normals for plane and half-space
        goals) or in the carrier bone's frame.

        Args:
            arm: the solved armature object.
            scale: its uniform scale in the model.
            space: the armature's model space when the caller has it (else read here).

        Returns:
            The point and the axes; for a target in the world (not carried) whose goal
            reads no axis (:data:`AXIS_FREE_GOALS`), None instead of axes (not mapped).
        """
        if self.carry is not None:
            try:
                offset = carried_offset(arm, self.carry, scale)
            except ReferenceError:
                raise self.error(
                    f"Constraint '{self.name}': its target object was deleted"
                ) from None
            return self._point_axes(self.target, offset)
        if self.carrier is not None:
            length = armature_data(arm).bones[self.carrier].length * scale
            point = np.array([0.0, length * self.head_tail, 0.0])
            if self.carrier_scale is not None:  # along the drawn (scaled) bone
                point = point * self.carrier_scale
            return point, np.eye(3)
        point, axes = self.target_frame()
        self.world_point = point
        if space is None:
            space = model_space(np.array(arm.matrix_world, dtype=float))
        return self._in_space(point, axes, space)

    def _in_space(
        self, point: np.ndarray, axes: np.ndarray, space: ModelSpace
    ) -> tuple[np.ndarray, np.ndarray | None]:
        """A world target frame (point (3,), unit axes (3, 3)) in the model's world, as
        :meth:`frame` returns it."""
        if self.item_kind in AXIS_FREE_GOALS:
            return space.point(point), None
        if self.item_kind in ("PLANE", "HALF_SPACE"):  # the target axis is a plane normal
            return space.point(point), space.normal(axes)
        return space.point(point), space.direction(axes)

    def values(
        self, arm: bpy.types.Object, scale: float, space: ModelSpace | None = None
    ) -> dict[str, np.ndarray | None]:
        """Goal attributes (point, x, y, direction, normal) for the current target frame
        (``space``: the armature's model space, see :meth:`frame`)."""
        return self.values_at(*self.frame(arm, scale, space))

    def world_values(self, depsgraph: bpy.types.Depsgraph) -> dict[str, np.ndarray | None]:
        """Goal attributes in world space from the depsgraph-evaluated target (carrier too)."""
        return self.values_at(*self.target_frame(depsgraph))

    def values_at(self, point: np.ndarray, axes: np.ndarray | None) -> dict[str, np.ndarray | None]:
        """Goal attributes (point, x, y, direction, normal) for a target frame (``axes`` may be
        None for a goal that reads none, :data:`AXIS_FREE_GOALS`)."""
        kind = self.item_kind
        out: dict[str, np.ndarray | None] = {}
        if kind in POINT_GOALS:
            out["point"] = point
        if axes is None:
            if kind not in AXIS_FREE_GOALS:
                raise ValueError(f"GoalBinding '{self.name}': a {kind} goal needs the axes")
            return out
        if self.relative is not None:
            axes = axes @ self.relative
        if kind in ("ORIENTATION", "POSITION_ORIENTATION"):
            out["x"] = None if self.suppress == "X" else axes[:, 0]
            out["y"] = None if self.suppress == "Y" else axes[:, 1]
        if kind == "LINE":
            out["direction"] = axes @ signed_axis(self.target_axis)
        if kind in ("PLANE", "HALF_SPACE"):
            out["normal"] = axes @ signed_axis(self.target_axis)
        return out

    def update_from(self, matrix: np.ndarray, space: ModelSpace) -> None:
        """Retarget the goal of a target in the world (no Target Bone, not carried) to the
        target's world matrix ``matrix`` (4, 4) (as :meth:`update` reads it from the target;
        ``space``: the armature's model space). Errors as :meth:`target_frame`'s."""
        self.update_at(*self._point_axes(self.target, matrix), space)

    def update_at(self, point: np.ndarray, axes: np.ndarray, space: ModelSpace) -> None:
        """:meth:`update_from` given the target's world point (3,) and unit axes (3, 3)
        (finite, as :meth:`target_frame` gives them)."""
        self.world_point = point
        for key, value in self.values_at(*self._in_space(point, axes, space)).items():
            if value is not None:
                setattr(self.goal, key, value)

    def update(self, arm: bpy.types.Object, scale: float, space: ModelSpace | None = None) -> None:
        """Retarget the goal to the target's current transform (``space``: the armature's
        model space, see :meth:`frame`)."""
        for key, value in self.values(arm, scale, space).items():
            if value is not None:
                setattr(self.goal, key, value)


def _make_goal(
    binding: GoalBinding, item: ReachConstraint, v: Mapping[str, np.ndarray | None]
) -> solver.Goal:
    """The solver goal of ``item`` on its target's values ``v`` (:meth:`GoalBinding.values`)."""
    c = binding.carrier
    kind = binding.item_kind
    if kind == "POSITION":
        return solver.PositionGoal(v["point"], carrier=c)
    if kind == "ORIENTATION":
        return solver.OrientationGoal(v["x"], v["y"], degrees=solver_degrees(item), carrier=c)
    if kind == "POSITION_ORIENTATION":
        return solver.PositionOrientationGoal(
            v["point"], v["x"], v["y"], item.position_weight, solver_degrees(item), carrier=c
        )
    if kind == "AIM":
        return solver.AimGoal(v["point"], degrees=solver_degrees(item), carrier=c)
    if kind == "LINE":
        return solver.LineGoal(v["point"], v["direction"], carrier=c)
    if kind == "PLANE":
        return solver.PlaneGoal(v["point"], v["normal"], carrier=c)
    return solver.HalfSpaceGoal(v["point"], v["normal"], carrier=c)


@dataclass
class ConstraintSpec:
    """One solver constraint as the bridge builds it: an end-effector, its goal bindings.

    Attributes:
        name: the constraint item's name, or the disjunction group's name.
        bone: bone carrying the end-effector (a figure segment of the same name).
        point: (3,) end-effector point in the bone's frame, scene units (object scale applied).
        x, y: (3,) end-effector unit directions in the bone's frame, or None.
        weight: the constraint's weight (>= 0).
        root: segment where the joint chain starts, None for every ancestor.
        bindings: one per goal; more than one makes a disjunction (any member suffices).
        segment: the figure segment carrying the end-effector when it is not ``bone``'s own
            (an effector on a stretched bone, see :mod:`.stretch`); "" for ``bone``.
        target_chain: the bones of the goal's *Target Chain* (a loop's other side, see
            :mod:`..loops.attach`), target bone first; () for none.
    """

    name: str
    bone: str
    point: np.ndarray
    x: np.ndarray | None
    y: np.ndarray | None
    weight: float
    root: str | None
    bindings: list[GoalBinding]
    segment: str = ""
    target_chain: tuple[str, ...] = ()

    @property
    def effector_segment(self) -> str:
        """The figure segment carrying the end-effector (``segment`` or ``bone``)."""
        return self.segment or self.bone

    def goal(self) -> solver.Goal:
        """The solver goal: the single binding's, or a Disjunction of all of them."""
        goals = [b.solver_goal() for b in self.bindings]
        return goals[0] if len(goals) == 1 else solver.Disjunction(goals)


@dataclass
class ConstraintPlan:
    """Everything :func:`.build.build_rig` needs from the constraint items."""

    figure_bones: set[str] = field(default_factory=set)
    chain_bones: dict[str, str] = field(default_factory=dict)  # bone -> first constraint
    bindings: list[GoalBinding] = field(default_factory=list)
    specs: list[ConstraintSpec] = field(default_factory=list)  # one per solver constraint
    # Bones asked whether the solve moves them (a Target Bone of the armature, a bone a target
    # hangs off): the answer depends on every bone above them.
    asked: set[str] = field(default_factory=set)

    def make_constraints(
        self, scales: Mapping[str, np.ndarray] | None = None
    ) -> list[solver.Constraint]:
        """The ``solver.Constraint`` list (goals already carry the current targets).

        Args:
            scales: bone -> (3,) pose scale along its axes (:mod:`.pose_scale`): an
                end-effector point on a scaled bone is that far along the drawn bone.
        """
        out = []
        for spec in self.specs:
            point = spec.point if scales is None else spec.point * scales.get(spec.bone, 1.0)
            effector = solver.EndEffector(spec.effector_segment, point, spec.x, spec.y)
            out.append(solver.Constraint(effector, spec.goal(), spec.weight, spec.root, spec.name))
        return out

    def check_aim(
        self,
        figure: solver.Figure,
        start: Callable[[], np.ndarray],
        error: Callable[[str], Exception],
    ) -> None:
        """Reject aim goals whose target sits on the end-effector (direction undefined).

        Positions come from the ``figure``'s forward kinematics at ``start()`` (its independent
        coordinates: the rig's start, :meth:`.build.Rig.initial`), called only when the plan
        has aim goals.
        """
        aims = [
            (spec, binding)
            for spec in self.specs
            for binding in spec.bindings
            if binding.item_kind == "AIM"
        ]
        if not aims:
            return
        # The kinematics' own pass (what Figure.forward runs), read at the few segments the
        # check needs instead of as a (4, 4) matrix per segment of the figure.
        frames = figure.kinematics.forward(figure.coupling @ start())
        rotations, origins = frames.rotations, frames.origins
        for spec, binding in aims:
            s = figure.segment_index(spec.effector_segment)
            p = rotations[s] @ spec.point + origins[s]
            g = cast(solver.AimGoal, binding.solver_goal()).point
            if binding.carrier is not None:
                c = figure.segment_index(binding.carrier)
                g = rotations[c] @ g + origins[c]
            if np.linalg.norm(g - p) <= 1e-6:
                raise error(
                    f"Constraint '{binding.name}': the aim target is at the end-effector, "
                    "so the aim direction is undefined; move the target away"
                )


def _chain(
    arm: bpy.types.Object, item: ReachConstraint, error: Callable[[str], Exception]
) -> tuple[list[str], str]:
    """Bones of an item's chain (effector first) and its topmost bone."""
    return chains.walk(
        armature_data(arm).bones, item.bone, item.chain_mode, item.chain_root,
        item.chain_length, error, f"Constraint '{item.name}'",
    )  # fmt: skip


def chain_top(arm: bpy.types.Object, item: ReachConstraint) -> str | None:
    """The topmost bone of an item's chain, or None when its bone or chain root is not a bone
    of ``arm`` (or the root is not above the bone)."""
    if item.bone not in armature_data(arm).bones:
        return None
    try:
        return _chain(arm, item, ValueError)[1]
    except ValueError:
        return None


def _validate(
    arm: bpy.types.Object, item: ReachConstraint, error: Callable[[str], Exception]
) -> None:
    bones = armature_data(arm).bones
    if not item.bone:
        raise error(f"Constraint '{item.name}': no bone set")
    if item.bone not in bones:
        raise error(f"Constraint '{item.name}': bone '{item.bone}' not found in '{arm.name}'")
    attach.check_item(arm, item, error)
    target = item.target
    if target is None:
        raise error(f"Constraint '{item.name}': no target object (deleted or never set)")
    if item.target_bone:
        if target.type != "ARMATURE" or item.target_bone not in armature_data(target).bones:
            raise error(
                f"Constraint '{item.name}': target bone '{item.target_bone}' not found "
                f"in '{target.name}'"
            )
    # Goals that move with the armature whatever the solve does: "reached" would say nothing.
    if target == arm and not item.target_bone:
        raise error(
            f"Constraint '{item.name}': its target is the armature '{arm.name}' itself with no "
            "Target Bone (Blender's own IK ignores such a target): set a Target Bone, or pick "
            "another object"
        )
    if target == arm and item.target_bone == item.bone:
        raise error(
            f"Constraint '{item.name}': its target is its own bone '{item.bone}', which moves "
            "with the end-effector whatever the solve does: pick another bone or object"
        )


def _moved_bones(arm: bpy.types.Object, solved: set[str]) -> set[str]:
    """The solved bones and every bone below one of them: the bones the solve moves."""
    moved: set[str] = set()
    for bone in armature_data(arm).bones:  # parents come before their children
        if bone.name in solved or (bone.parent is not None and bone.parent.name in moved):
            moved.add(bone.name)
    return moved


def _carrying_bones(arm: bpy.types.Object, solved: set[str]) -> set[str]:
    """Bones that can carry a goal: the solved ones and every bone below one of them (the
    solve moves them), except a solved bone with *IK Stretch* and every bone below it (its
    stretch scales what hangs off it, which a carried goal does not follow: such a target
    is left to the correction passes)."""
    stretched: set[str] = set()
    for bone in armature_data(arm).bones:  # parents come before their children
        parent = bone.parent.name if bone.parent is not None else None
        if (bone.name in solved and arm.pose.bones[bone.name].ik_stretch > 0.0) or (
            parent in stretched
        ):
            stretched.add(bone.name)
    return _moved_bones(arm, solved) - stretched


def _orientation_spec(
    arm: bpy.types.Object,
    item: ReachConstraint,
    slider: ConstraintSpec,
    scale: float,
    plan: ConstraintPlan,
) -> ConstraintSpec:
    """The second constraint of a slider that keeps its orientation: the bone's X and Y axes
    on the axes they have in the other bone's frame at rest (as a weld), named
    ``"<item> (orientation)"``; its binding joins ``plan``."""
    binding = replace(
        slider.bindings[0], name=item.name + attach.ORIENTATION_SUFFIX, item_kind="ORIENTATION",
        goal=None, suppress="NONE", relative=attach.rest_axes(arm, item), world_point=None,
    )  # fmt: skip
    values = binding.values(arm, scale)
    binding.goal = solver.OrientationGoal(
        values["x"], values["y"], degrees=solver_degrees(item), carrier=binding.carrier
    )
    plan.bindings.append(binding)
    x, y = AXIS_VECTORS["X"], AXIS_VECTORS["Y"]
    return ConstraintSpec(
        binding.name, item.bone, slider.point, x, y, item.weight, slider.root, [binding],
        target_chain=slider.target_chain,
    )  # fmt: skip


def build_constraints(
    arm: bpy.types.Object,
    items: list[ReachConstraint],
    scale: float,
    error: Callable[[str], Exception],
) -> ConstraintPlan:
    """Validate the items and turn them into a :class:`ConstraintPlan`."""
    plan = ConstraintPlan()
    groups: dict[str, ConstraintSpec] = {}
    tops = []
    for item in items:  # every chain first: a target is carried by any bone a chain moves
        _validate(arm, item, error)
        chain, top = _chain(arm, item, error)
        target_chain, target_top = attach.target_chain(arm, item, error)
        if item.goal_type == "ATTACH":
            attach.check_loop(arm, item, chain + target_chain, error)
        for name in chain + target_chain:
            plan.chain_bones.setdefault(name, item.name)
        tops.append((top, target_top, tuple(target_chain)))
    carrying = _carrying_bones(arm, set(plan.chain_bones))
    moved = _moved_bones(arm, set(plan.chain_bones))

    def carries(bone: str) -> bool:
        plan.asked.add(bone)
        return bone in carrying

    for item, (top, target_top, target_chain) in zip(items, tops, strict=True):
        plan.figure_bones.add(item.bone)
        target = item.target
        assert target is not None, "_validate checked the target"
        carrier, carry = None, None
        if target == arm:
            # A Target Bone the solve moves rides on its segment; any other one is read where
            # Blender evaluates it (its constraints and drivers included), like an object.
            plan.asked.add(item.target_bone)
            carrier = item.target_bone if item.target_bone in moved else None
        else:
            carry = find_carry(arm, target, carries)
            carrier = None if carry is None else carry.bone
        if carrier is not None:
            plan.figure_bones.add(carrier)
        binding = GoalBinding(
            item.name, attach.solver_kind(item), None, target, item.target_bone,
            item.target_head_tail, item.target_axis, attach.suppress(item), carrier, error, carry,
            relative=attach.relative_axes(arm, item),
        )  # fmt: skip
        values = binding.values(arm, scale)  # its errors name the constraint already
        try:
            binding.goal = _make_goal(binding, item, values)
        except solver.ReachError as exc:
            raise error(f"Constraint '{item.name}': {exc}") from None
        plan.bindings.append(binding)
        x = y = None
        if item.goal_type == "ATTACH":
            x, y = attach.effector_axes(item)
        elif item.goal_type == "AIM":
            x = signed_axis(item.aim_axis)
        elif item.goal_type in ("ORIENTATION", "POSITION_ORIENTATION"):
            x, y = AXIS_VECTORS["X"], AXIS_VECTORS["Y"]
        point = np.array(
            [0.0, armature_data(arm).bones[item.bone].length * scale * effector_factor(item), 0.0]
        )
        root = None if item.chain_mode == "ALL" else top
        if target_top is not None:  # both sides of the loop move (see :mod:`..loops.attach`)
            both = root is not None and item.target_chain_mode != "ALL"
            root = attach.loop_root(arm, top, target_top) if both else None
        key = item.group.strip()
        if key and key in groups:
            spec = groups[key]
            if spec.bone != item.bone or not np.allclose(spec.point, point):
                raise error(
                    f"Constraint '{item.name}': disjunction group '{key}' mixes end-effectors; "
                    "all members must use the same bone and point"
                )
            if x is not None and spec.x is not None and not np.allclose(spec.x, x):
                raise error(f"Constraint '{item.name}': group '{key}' mixes aim and orientation")
            spec.x = spec.x if spec.x is not None else x
            spec.y = spec.y if spec.y is not None else y
            spec.bindings.append(binding)
            continue
        spec = ConstraintSpec(
            key or item.name, item.bone, point, x, y, item.weight, root, [binding],
            target_chain=target_chain,
        )  # fmt: skip
        if key:
            groups[key] = spec
        plan.specs.append(spec)
        if attach.keeps_orientation(item):
            plan.specs.append(_orientation_spec(arm, item, spec, scale, plan))
    return plan


def carried_copy(binding: GoalBinding, item: ReachConstraint, carrier: str) -> solver.Goal:
    """A new goal of ``item``'s kind carried by segment ``carrier`` (a figure that is not
    the rig's own: :mod:`..joined.figure`), at the geometry ``binding``'s goal holds now (the
    caller updates it before every solve)."""
    goal = binding.solver_goal()
    values: dict[str, np.ndarray | None] = {"x": None, "y": None}  # a direction left free
    values.update((part.attribute, value) for part, value in goal.geometry().items())
    return _make_goal(replace(binding, carrier=carrier), item, values)
