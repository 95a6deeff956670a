"""Edit the constraint list: add from selection, remove, move, pin, convert built-in IK."""

from __future__ import annotations

import bpy
import numpy as np
from bpy.props import BoolProperty, EnumProperty, StringProperty
from mathutils import Matrix

from ..bridge import rig
from . import common
from .properties import GOAL_TYPES


def _active_bone_name(context: bpy.types.Context, obj: bpy.types.Object, name: str) -> str:
    if name:
        return name
    pb = getattr(context, "active_pose_bone", None)
    if pb is not None and pb.id_data == obj:
        return pb.name
    active = obj.data.bones.active
    return active.name if active is not None else ""


def _unique_name(settings: object, base: str) -> str:
    names = {c.name for c in settings.constraints}
    if base not in names:
        return base
    k = 1
    while f"{base}.{k:03d}" in names:
        k += 1
    return f"{base}.{k:03d}"


def _new_empty(context: bpy.types.Context, name: str, matrix: np.ndarray, size: float) -> object:
    """An empty with world matrix ``matrix`` (4, 4), linked next to the armature."""
    empty = bpy.data.objects.new(name, None)
    empty.empty_display_type = "PLAIN_AXES"
    empty.empty_display_size = size
    empty.matrix_world = Matrix(matrix.tolist())  # rows; a nested list would be columns
    collection = context.active_object.users_collection
    (collection[0] if collection else context.scene.collection).objects.link(empty)
    return empty


def _append(settings: object, name: str, bone: str, target: object, goal_type: str) -> object:
    """A new constraint item, made the active one; returns it for further settings."""
    item = settings.constraints.add()
    item.name = _unique_name(settings, name)
    item.bone = bone
    item.goal_type = goal_type
    item.target = target
    settings.active_index = len(settings.constraints) - 1
    return item


class _ArmatureOperator(bpy.types.Operator):
    @classmethod
    def poll(cls, context: bpy.types.Context) -> bool:
        return common.armature_of(context) is not None


class REACH_OT_constraint_add(_ArmatureOperator):
    """Add a constraint: active bone to the selected object (or to a new empty at its tail)"""

    bl_idname = "reach.constraint_add"
    bl_label = "Add Reach Constraint"
    bl_options = {"REGISTER", "UNDO"}

    goal_type: EnumProperty(name="Goal", items=GOAL_TYPES, default="POSITION")
    bone: StringProperty(name="Bone", description="Bone (default: the active bone)")
    target: StringProperty(name="Target", description="Target object (default: selected)")

    def execute(self, context: bpy.types.Context) -> set[str]:
        obj = common.armature_of(context)
        bone = _active_bone_name(context, obj, self.bone)
        if bone not in obj.data.bones:
            self.report({"ERROR"}, f"Reach: no active bone (or bone '{bone}' not found)")
            return {"CANCELLED"}
        if self.target:
            target = bpy.data.objects.get(self.target)
            if target is None:
                self.report({"ERROR"}, f"Reach: target object '{self.target}' not found")
                return {"CANCELLED"}
        else:
            others = [o for o in context.selected_objects if o != obj]
            target = others[0] if others else None
        created = target is None
        if created:
            size = 0.3 * obj.data.bones[bone].length
            context.view_layer.update()  # pose matrices of the current frame
            target = _new_empty(
                context, f"{bone}.target", rig.bone_world_matrix(obj, bone, at_tail=True), size
            )
        settings = obj.reach_ik
        label = dict((k, n) for k, n, _d in GOAL_TYPES)[self.goal_type]
        item = _append(settings, f"{bone} {label}", bone, target, self.goal_type)
        extra = " (new empty at the bone's tail)" if created else ""
        self.report({"INFO"}, f"Reach: added '{item.name}' -> '{target.name}'{extra}")
        return {"FINISHED"}


class REACH_OT_constraint_remove(_ArmatureOperator):
    """Remove the active Reach constraint"""

    bl_idname = "reach.constraint_remove"
    bl_label = "Remove Reach Constraint"
    bl_options = {"REGISTER", "UNDO"}

    def execute(self, context: bpy.types.Context) -> set[str]:
        settings = common.armature_of(context).reach_ik
        index = settings.active_index
        if not 0 <= index < len(settings.constraints):
            self.report({"ERROR"}, "Reach: no constraint selected")
            return {"CANCELLED"}
        name = settings.constraints[index].name
        settings.constraints.remove(index)
        settings.active_index = min(index, len(settings.constraints) - 1)
        self.report({"INFO"}, f"Reach: removed '{name}'")
        return {"FINISHED"}


class REACH_OT_constraint_move(_ArmatureOperator):
    """Move the active Reach constraint up or down the list"""

    bl_idname = "reach.constraint_move"
    bl_label = "Move Reach Constraint"
    bl_options = {"REGISTER", "UNDO"}

    direction: EnumProperty(items=(("UP", "Up", ""), ("DOWN", "Down", "")), default="UP")

    def execute(self, context: bpy.types.Context) -> set[str]:
        settings = common.armature_of(context).reach_ik
        index = settings.active_index
        new = index - 1 if self.direction == "UP" else index + 1
        if not (0 <= index < len(settings.constraints) and 0 <= new < len(settings.constraints)):
            self.report({"WARNING"}, "Reach: cannot move further")
            return {"CANCELLED"}
        settings.constraints.move(index, new)
        settings.active_index = new
        self.report({"INFO"}, f"Reach: moved '{settings.constraints[new].name}' to {new + 1}")
        return {"FINISHED"}


class REACH_OT_pin(_ArmatureOperator):
    """Hold a bone where it is now: a new empty at its tail and a position/orientation goal"""

    bl_idname = "reach.pin"
    bl_label = "Pin Bone"
    bl_options = {"REGISTER", "UNDO"}

    bone: StringProperty(name="Bone", description="Bone (default: the active bone)")
    orientation: BoolProperty(name="Orientation", description="Hold orientation too", default=True)

    def execute(self, context: bpy.types.Context) -> set[str]:
        obj = common.armature_of(context)
        bone = _active_bone_name(context, obj, self.bone)
        if bone not in obj.data.bones:
            self.report({"ERROR"}, f"Reach: no active bone (or bone '{bone}' not found)")
            return {"CANCELLED"}
        size = 0.3 * obj.data.bones[bone].length
        context.view_layer.update()  # pose matrices of the current frame
        empty = _new_empty(
            context, f"{bone}.pin", rig.bone_world_matrix(obj, bone, at_tail=True), size
        )
        settings = obj.reach_ik
        goal_type = "POSITION_ORIENTATION" if self.orientation else "POSITION"
        _append(settings, f"{bone} Pin", bone, empty, goal_type)
        self.report({"INFO"}, f"Reach: pinned '{bone}' at its current pose ('{empty.name}')")
        return {"FINISHED"}


class REACH_OT_convert_ik(_ArmatureOperator):
    """Turn the armature's built-in IK constraints into Reach constraints (and mute them)"""

    bl_idname = "reach.convert_ik"
    bl_label = "Convert Built-in IK"
    bl_options = {"REGISTER", "UNDO"}

    def execute(self, context: bpy.types.Context) -> set[str]:
        obj = common.armature_of(context)
        settings = obj.reach_ik
        converted, skipped = [], []
        for pb in obj.pose.bones:
            for con in pb.constraints:
                if con.type != "IK" or con.mute:
                    continue
                if con.target is None:
                    skipped.append(f"{pb.name}/{con.name} (no target)")
                    continue
                goal_type = "POSITION_ORIENTATION" if con.use_rotation else "POSITION"
                item = _append(settings, f"{pb.name} {con.name}", pb.name, con.target, goal_type)
                item.effector = "TAIL" if con.use_tail else "HEAD"
                item.target_bone = con.subtarget if con.target.type == "ARMATURE" else ""
                item.target_head_tail = 0.0 if item.target_bone else 1.0
                item.weight = con.weight
                if con.use_rotation:
                    total = con.weight + con.orient_weight
                    item.position_weight = con.weight / total if total > 0.0 else 0.5
                if con.chain_count > 0:
                    item.chain_mode = "LENGTH"
                    item.chain_length = con.chain_count
                con.mute = True
                converted.append(item.name)
                if con.pole_target is not None:
                    skipped.append(f"{pb.name}/{con.name} pole target (not converted)")
        settings.active_index = max(len(settings.constraints) - 1, 0)
        if not converted:
            self.report({"WARNING"}, "Reach: no built-in IK constraint to convert")
            return {"CANCELLED"}
        note = f"; skipped: {', '.join(skipped)}" if skipped else ""
        self.report(
            {"INFO"},
            f"Reach: converted {len(converted)} IK constraint(s) (now muted): "
            f"{', '.join(converted)}{note}",
        )
        return {"FINISHED"}


classes = (
    REACH_OT_constraint_add,
    REACH_OT_constraint_remove,
    REACH_OT_constraint_move,
    REACH_OT_pin,
    REACH_OT_convert_ik,
)
