"""Pose › Reach: a submenu of Blender's Pose menu (``VIEW3D_MT_pose``) with every operator."""

from __future__ import annotations

from typing import TYPE_CHECKING

import bpy

from . import common

if TYPE_CHECKING:
    from bpy._typing.rna_enums import IconItems

#: Every Reach operator, in menu order: (operator id, label, icon, operator properties).
#: A group of entries ends with ``None`` (a separator).
ENTRIES: tuple[tuple[str, str, IconItems, dict[str, object]] | None, ...] = (
    ("reach.solve", "Solve", "PLAY", {"insert_keys": False}),
    ("reach.solve", "Solve & Key", "KEY_HLT", {"insert_keys": True}),
    ("reach.bake", "Bake Reach…", "RENDER_ANIMATION", {}),
    ("reach.clear_keys", "Clear Reach Keys", "X", {}),
    None,
    ("reach.pin", "Pin Bone", "PINNED", {}),
    ("reach.attach_to_bone", "Attach to Bone", "CONSTRAINT_BONE", {}),
    ("reach.constraint_remove", "Remove Active Constraint", "REMOVE", {}),
    ("reach.constraint_move", "Move Constraint Up", "TRIA_UP", {"direction": "UP"}),
    ("reach.constraint_move", "Move Constraint Down", "TRIA_DOWN", {"direction": "DOWN"}),
    ("reach.convert_ik", "Convert Built-in IK", "CON_KINEMATIC", {}),
    None,
    ("reach.target_track", "Target Track…", "CURVE_BEZCIRCLE", {}),
    ("reach.envelope", "Reach Envelope", "POINTCLOUD_DATA", {}),
)

#: Switches of the active armature's Reach settings drawn at the top: setting, label.
TOGGLES = (("live", "Live"), ("show_overlay", "Show Goals"))


class REACH_MT_pose(bpy.types.Menu):
    """Reach IK: solve, bake and edit the constraints of the active armature"""

    bl_idname = "REACH_MT_pose"
    bl_label = "Reach"

    def draw(self, context: bpy.types.Context) -> None:
        layout = self.layout
        obj = common.armature_of(context)
        if obj is not None:
            settings = common.settings_of(obj)
            for name, label in TOGGLES:
                layout.prop(settings, name, text=label)
            layout.separator()
        for entry in ENTRIES:
            if entry is None:
                layout.separator()
                continue
            idname, label, icon, props = entry
            op = layout.operator(idname, text=label, icon=icon)
            for key, value in props.items():
                setattr(op, key, value)
        layout.operator_menu_enum("reach.bake", "target", text="Bake To")
        layout.operator_menu_enum("reach.bake", "method", text="Bake With")
        layout.operator_menu_enum("reach.constraint_add", "goal_type", text="Add Constraint")


def draw_in_pose_menu(menu: bpy.types.Menu, _context: bpy.types.Context) -> None:
    """Appended to ``VIEW3D_MT_pose``: the Reach submenu at the bottom."""
    menu.layout.separator()
    menu.layout.menu(REACH_MT_pose.bl_idname, icon="CON_KINEMATIC")


def register() -> None:
    """Register the menu and append it to the Pose menu (once, even after a reload)."""
    bpy.utils.register_class(REACH_MT_pose)
    bpy.types.VIEW3D_MT_pose.append(draw_in_pose_menu)


def unregister() -> None:
    """Remove the Pose-menu entry and the menu."""
    bpy.types.VIEW3D_MT_pose.remove(draw_in_pose_menu)
    bpy.utils.unregister_class(REACH_MT_pose)
