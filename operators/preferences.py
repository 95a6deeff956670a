"""Reach IK's add-on preferences (*Edit › Preferences › Add-ons › Reach IK*): the class
Blender registers and draws.

What they hold, and the functions everything else reads them through, are in
:mod:`props.preferences` (below the bridge and the panels); this class adds what only the
top layer may do: moving the panels to another sidebar tab, drawing the key map.
"""

from __future__ import annotations

import bpy
from bpy.props import EnumProperty, FloatProperty, FloatVectorProperty, StringProperty

from ..props.automatic import LEGACY_TOLERANCE
from ..props.groups import METHODS, angle_tolerance_property, tolerance_property
from ..props.preferences import (
    ADDON_ID,
    DEFAULT_CATEGORY,
    DEFAULT_TIME_BUDGET_MS,
    MISSED_COLOR,
    REACHED_COLOR,
    UNSOLVED_COLOR,
)


def _category_changed(prefs: ReachPreferences, _context: bpy.types.Context) -> None:
    from ..panels import set_category

    set_category(prefs.category)


def _color(name: str, description: str, default: tuple[float, ...]) -> object:
    return FloatVectorProperty(
        name=name, description=description, subtype="COLOR_GAMMA", size=4, min=0.0, max=1.0,
        default=default,
    )  # fmt: skip


class ReachPreferences(bpy.types.AddonPreferences):
    """Preferences of the Reach IK extension."""

    bl_idname = ADDON_ID

    category: StringProperty(
        name="Sidebar Tab",
        description="Tab of the 3D View sidebar (N) that shows the Reach panels",
        default=DEFAULT_CATEGORY,
        update=_category_changed,
    )
    method: EnumProperty(
        name="Default Method",
        description="Solve method of armatures that get their first Reach constraint",
        items=METHODS,
        default="gauss-newton-hybrid",
    )
    tolerance: tolerance_property(
        "Default Tolerance",
        f"Distance tolerance (scene units) of armatures that get their first Reach constraint: "
        f"at {LEGACY_TOLERANCE:g} they use Automatic (relative to the rig's size), any other "
        "value is their fixed tolerance",
    )
    angle_tolerance: angle_tolerance_property("Default Angle Tolerance")
    time_budget: FloatProperty(
        name="Live Time Budget (ms)",
        description="Longest solve of one live-posing update, milliseconds (16 ms: 60 fps)",
        default=DEFAULT_TIME_BUDGET_MS,
        min=1.0,
        soft_max=200.0,
    )
    reached_color: _color("Reached", "Overlay colour of a goal reached", REACHED_COLOR)
    missed_color: _color("Missed", "Overlay colour of a goal missed", MISSED_COLOR)
    unsolved_color: _color("Not Solved", "Overlay colour before any solve", UNSOLVED_COLOR)

    def draw(self, context: bpy.types.Context) -> None:
        layout = self.layout
        layout.prop(self, "category")
        col = layout.column(heading="New Rigs")
        col.prop(self, "method")
        col.prop(self, "tolerance")
        col.prop(self, "angle_tolerance")
        layout.prop(self, "time_budget")
        row = layout.row(heading="Overlay")
        row.prop(self, "reached_color")
        row.prop(self, "missed_color")
        row.prop(self, "unsolved_color")
        from .keymap import draw_preferences

        layout.label(text="Keys", icon="KEYINGSET")
        draw_preferences(layout, context)


classes = (ReachPreferences,)
