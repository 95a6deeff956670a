"""Edit the constraint list: add from selection, remove, move, pin, convert built-in IK.

The list logic is in :mod:`..bridge.items`; these operators only gather the context.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

import bpy
from bpy.props import BoolProperty, EnumProperty, StringProperty

from ..bridge.edit import attach_bone, constraint_list
from ..bridge.errors import RigError
from ..bridge.session.rig_session import RigSession
from ..props import preferences
from ..props.access import armature_data
from ..props.groups import ATTACH_HOLDS, GOAL_TYPES
from . import common

GOAL_LABELS = {key: label for key, label, _description in GOAL_TYPES}

if TYPE_CHECKING:
    from bpy._typing.rna_enums import OperatorReturnItems

    from ..props.groups import ReachConstraint


def _bone(context: bpy.types.Context, obj: bpy.types.Object, name: str) -> str:
    """The requested bone, else the active pose bone of ``obj``; RigError if there is none."""
    if not name:
        pb = getattr(context, "active_pose_bone", None)
        active = common.armature_data(obj).bones.active
        if pb is not None and pb.id_data == obj:
            name = pb.name
        elif active is not None:
            name = active.name
    return constraint_list.check_bone(obj, name)


def _target(
    context: bpy.types.Context, obj: bpy.types.Object, name: str
) -> bpy.types.Object | None:
    """The named object, else the first other selected object, else None (make an empty)."""
    if name:
        target = bpy.data.objects.get(name)
        if target is None:
            raise RigError(f"target object '{name}' not found")
        return target
    others = [o for o in context.selected_objects if o != obj]
    return others[0] if others else None


def _add(context: bpy.types.Context, bone_name: str, target_name: str, goal_type: str) -> str:
    if goal_type == "ATTACH":  # the other bone is the active one, not a target object
        return _attach(context, bone_name, "", "POINT")
    obj = common.active_armature(context)
    bone = _bone(context, obj, bone_name)
    target = _target(context, obj, target_name)
    extra = ""
    if target is None:
        target, extra = (
            constraint_list.empty_at_tail(context, obj, bone, "target"),
            " (new empty at the bone's tail)",
        )
    name = f"{bone} {GOAL_LABELS[goal_type]}"
    settings = common.settings_of(obj)
    item = cast("ReachConstraint", constraint_list.append(settings, name, bone, target, goal_type))
    preferences.apply_defaults(settings)
    return f"added '{item.name}' -> '{target.name}'{extra}{_chain_note(obj, item)}"


def _attach(context: bpy.types.Context, bone: str, other: str, hold: str) -> str:
    obj = common.active_armature(context)
    selected = [pb.name for pb in getattr(context, "selected_pose_bones", None) or ()
                if pb.id_data == obj]  # fmt: skip
    active = getattr(context, "active_pose_bone", None)
    active_name = active.name if active is not None and active.id_data == obj else None
    bone, other = attach_bone.pair(selected, active_name, bone, other)
    settings = common.settings_of(obj)
    text = attach_bone.attach(obj, settings, bone, other, hold)
    preferences.apply_defaults(settings)
    return text


def _chain_note(obj: bpy.types.Object, item: ReachConstraint) -> str:
    """What the new constraint's chain moves, said when it is the default All Ancestors: on
    an imported character a hand's chain then reaches the hips and the spine."""
    if item.chain_mode != "ALL":
        return ""
    above = armature_data(obj).bones[item.bone].parent_recursive
    if not above:
        return ""
    return (
        f"; it moves all {len(above)} bone(s) above '{item.bone}', up to '{above[-1].name}' "
        "(Chain: Root Bone or Length limits that)"
    )


def _pin(context: bpy.types.Context, bone_name: str, orientation: bool) -> str:
    obj = common.active_armature(context)
    bone = _bone(context, obj, bone_name)
    empty = constraint_list.empty_at_tail(context, obj, bone, "pin")
    goal_type = "POSITION_ORIENTATION" if orientation else "POSITION"
    settings = common.settings_of(obj)
    constraint_list.append(settings, f"{bone} Pin", bone, empty, goal_type)
    preferences.apply_defaults(settings)
    return f"pinned '{bone}' at its current pose ('{empty.name}')"


def _convert(context: bpy.types.Context, obj: bpy.types.Object) -> str:
    text = RigSession.convert_builtin_ik(context, obj).text()
    preferences.apply_defaults(common.settings_of(obj))
    return text


class _ArmatureOperator(bpy.types.Operator):
    bl_options = {"REGISTER", "UNDO"}

    @classmethod
    def poll(cls, context: bpy.types.Context) -> bool:
        return common.poll_editable(cls, context)


class REACH_OT_constraint_add(_ArmatureOperator):
    """Add a constraint: active bone to the selected object (or to a new empty at its tail)"""

    bl_idname = "reach.constraint_add"
    bl_label = "Add Reach Constraint"

    goal_type: EnumProperty(name="Goal", items=GOAL_TYPES, default="POSITION")
    bone: StringProperty(name="Bone", description="Bone (default: the active bone)")
    target: StringProperty(name="Target", description="Target object (default: selected)")

    def execute(self, context: bpy.types.Context) -> set[OperatorReturnItems]:
        return common.run(self, lambda: _add(context, self.bone, self.target, self.goal_type))


class _ConstraintListOperator(_ArmatureOperator):
    @classmethod
    def poll(cls, context: bpy.types.Context) -> bool:
        return common.poll_constraints(cls, context)


class REACH_OT_constraint_remove(_ConstraintListOperator):
    """Remove the active Reach constraint"""

    bl_idname = "reach.constraint_remove"
    bl_label = "Remove Reach Constraint"

    def execute(self, context: bpy.types.Context) -> set[OperatorReturnItems]:
        settings = common.settings_of(common.active_armature(context))
        return common.run(self, lambda: constraint_list.remove_active(settings))


class REACH_OT_constraint_move(_ConstraintListOperator):
    """Move the active Reach constraint up or down the list"""

    bl_idname = "reach.constraint_move"
    bl_label = "Move Reach Constraint"

    direction: EnumProperty(items=(("UP", "Up", ""), ("DOWN", "Down", "")), default="UP")

    def execute(self, context: bpy.types.Context) -> set[OperatorReturnItems]:
        settings = common.settings_of(common.active_armature(context))
        return common.run(self, lambda: constraint_list.move_active(settings, self.direction))


class REACH_OT_pin(_ArmatureOperator):
    """Hold a bone where it is now: a new empty at its tail and a position/orientation goal"""

    bl_idname = "reach.pin"
    bl_label = "Pin Bone"

    bone: StringProperty(name="Bone", description="Bone (default: the active bone)")
    orientation: BoolProperty(name="Orientation", description="Hold orientation too", default=True)

    def execute(self, context: bpy.types.Context) -> set[OperatorReturnItems]:
        return common.run(self, lambda: _pin(context, self.bone, self.orientation))


class REACH_OT_attach_to_bone(_ArmatureOperator):
    """Hold a point of the selected bone on the active bone (same armature): a closed loop, both
    bones' chains solved together"""

    bl_idname = "reach.attach_to_bone"
    bl_label = "Attach to Bone"

    bone: StringProperty(name="Bone", description="Bone to attach (default: the selected one)")
    other: StringProperty(name="Other Bone", description="Bone held on (default: the active one)")
    hold: EnumProperty(name="Hold", items=ATTACH_HOLDS, default="POINT")

    def execute(self, context: bpy.types.Context) -> set[OperatorReturnItems]:
        return common.run(self, lambda: _attach(context, self.bone, self.other, self.hold))


class REACH_OT_convert_ik(_ArmatureOperator):
    """Turn the armature's built-in IK constraints into Reach constraints (and mute them)"""

    bl_idname = "reach.convert_ik"
    bl_label = "Convert Built-in IK"

    def execute(self, context: bpy.types.Context) -> set[OperatorReturnItems]:
        obj = common.active_armature(context)
        return common.run(self, lambda: _convert(context, obj))


classes = (
    REACH_OT_constraint_add,
    REACH_OT_constraint_remove,
    REACH_OT_constraint_move,
    REACH_OT_pin,
    REACH_OT_attach_to_bone,
    REACH_OT_convert_ik,
)
