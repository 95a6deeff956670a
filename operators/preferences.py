"""Reach IK's add-on preferences (*Edit › Preferences › Add-ons › Reach IK*).

What they hold: the sidebar tab the panels live in, the defaults a new armature's Reach
settings start from (solve method, distance and angle tolerance), the time budget of one
live-posing update, and the overlay's colours. Everything else reads them through the
functions here, never through ``context.preferences`` directly.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

import bpy
from bpy.props import EnumProperty, FloatProperty, FloatVectorProperty, StringProperty

from ..bridge.rig_size import LEGACY_TOLERANCE
from .properties import METHODS, angle_tolerance_property, tolerance_property

if TYPE_CHECKING:
    from .properties import ReachSettings

#: The add-on's module name (``bl_ext.<repository>.reach_ik`` for an installed extension):
#: Blender keys add-on preferences by it.
ADDON_ID = (__package__ or "").rpartition(".")[0]

DEFAULT_CATEGORY = "Reach"
DEFAULT_TIME_BUDGET_MS = 16.0  # one frame at 60 fps
REACHED_COLOR = (0.25, 0.85, 0.3, 1.0)
MISSED_COLOR = (0.95, 0.25, 0.2, 1.0)
UNSOLVED_COLOR = (0.85, 0.85, 0.85, 1.0)

#: Settings a new armature takes from the preferences: ReachSettings name -> preference name.
SETTING_DEFAULTS = (
    ("method", "method"),
    ("tolerance", "tolerance"),
    ("angle_tolerance", "angle_tolerance"),
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


def preferences(context: bpy.types.Context | None = None) -> ReachPreferences | None:
    """Reach's preferences, or None while the add-on is not registered."""
    addon = (context or bpy.context).preferences.addons.get(ADDON_ID)
    return None if addon is None else cast("ReachPreferences", addon.preferences)


def live_time_budget() -> float:
    """Time budget of one live-posing update, **seconds** (the preference is in ms)."""
    prefs = preferences()
    budget_ms = DEFAULT_TIME_BUDGET_MS if prefs is None else prefs.time_budget
    return budget_ms / 1000.0


def apply_defaults(settings: ReachSettings) -> None:
    """Give ``settings`` the preferences' defaults for every setting the user has not set.

    Called before a constraint is added: an armature's first constraint fixes its solver
    settings to the preferences of the moment; a value the user edited is never touched.
    """
    prefs = preferences()
    if prefs is None:
        return
    for setting, preference in SETTING_DEFAULTS:
        if not settings.is_property_set(setting):
            setattr(settings, setting, getattr(prefs, preference))


classes = (ReachPreferences,)
