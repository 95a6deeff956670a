"""Reach IK's add-on preferences as the rest of the extension reads them.

What they hold: the sidebar tab the panels live in, the defaults a new armature's Reach
settings start from (solve method, distance and angle tolerance), the time budget of one
live-posing update, and the overlay's colours. The class Blender registers and draws is
``operators.preferences.ReachPreferences``; everything else reads the values through the
functions here, never through ``context.preferences`` directly.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol, cast

import bpy

if TYPE_CHECKING:
    from .groups import ReachSettings

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


class Preferences(Protocol):
    """The values of Reach's preferences (``operators.preferences.ReachPreferences``)."""

    category: str
    method: str
    tolerance: float
    angle_tolerance: float  # radians
    time_budget: float  # milliseconds
    reached_color: Sequence[float]  # RGBA
    missed_color: Sequence[float]
    unsolved_color: Sequence[float]


def preferences(context: bpy.types.Context | None = None) -> Preferences | None:
    """Reach's preferences, or None while the add-on is not registered."""
    addon = (context or bpy.context).preferences.addons.get(ADDON_ID)
    return None if addon is None else cast("Preferences", addon.preferences)


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
