"""Tolerance and orientation weight relative to the rig's size, and float32 resolution.

The *Automatic* settings (:mod:`props.automatic`) follow the rig's characteristic length
``L``: a rig whose *Tolerance* is *Automatic* is judged at ``RELATIVE_TOLERANCE * L`` (the solver
aims at half of it, see :data:`.build.SOLVE_MARGIN`), and a constraint whose *Degrees per Unit* is
*Automatic* passes ``degrees=None`` to its goal (one radian weighs like ``L``). The functions here
give the effective values in scene units.

Blender evaluates poses in single precision: a position ``p`` it computes is only known to about
``|p| * 2**-23`` per rounding, and a chain of bone matrices rounds several times. A distance below
:func:`float32_resolution` of the coordinates involved is round-off, not a miss and not a model
mismatch.

Pure Python: settings objects are passed in.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from ...props.automatic import RELATIVE_TOLERANCE

if TYPE_CHECKING:
    import bpy

    from ...props.groups import ReachConstraint, ReachSettings

#: Single-precision roundings a Blender world position may carry (bone matrices multiplied
#: down a chain, then the object's matrix), in units of ``2**-23`` of its magnitude. Measured:
#: 1.3-1.9 of them on a BVH rig in centimetres at coordinates ~250 units.
FLOAT32_ROUNDINGS = 8.0
FLOAT32_EPSILON = 2.0**-23

_LENGTH: dict[int, float] = {}  # the rig length per object, by session_uid (runtime only)


def distance_tolerance(settings: ReachSettings, length: float) -> float:
    """The distance tolerance in scene units: ``RELATIVE_TOLERANCE * length`` when *Automatic*,
    else the setting. ``length``: the rig's characteristic length, scene units (> 0)."""
    if settings.auto_tolerance:
        return RELATIVE_TOLERANCE * length
    return float(settings.tolerance)


def solver_degrees(item: ReachConstraint) -> float | None:
    """``degrees`` of the constraint's goal: None when *Automatic* (the solver weighs one
    radian like the characteristic length), else the setting."""
    return None if item.auto_degrees else float(item.degrees)


def degrees_per_unit(item: ReachConstraint, length: float) -> float:
    """The effective Degrees per Unit (degrees weighing like one scene unit) for display:
    ``180 / (pi length)`` when *Automatic*, else the setting."""
    return math.degrees(1.0 / length) if item.auto_degrees else float(item.degrees)


def float32_resolution(*points: np.ndarray) -> float:
    """Distance (scene units) below which Blender's single-precision evaluation cannot tell two
    positions apart: :data:`FLOAT32_ROUNDINGS` roundings of the largest coordinate magnitude
    among ``points`` (each (3,), world space)."""
    magnitude = max((float(np.abs(p).max()) for p in points), default=0.0)
    return FLOAT32_ROUNDINGS * FLOAT32_EPSILON * magnitude


def store_length(obj: bpy.types.ID, length: float) -> None:
    """Remember the characteristic length (scene units) of ``obj``'s rig at its last build."""
    _LENGTH[obj.session_uid] = length


def rig_length(obj: bpy.types.ID) -> float | None:
    """The characteristic length (scene units) of ``obj``'s rig at its last build, or None
    before any (what the panel's Automatic tolerance and weights are relative to)."""
    return _LENGTH.get(obj.session_uid)


def forget_lengths() -> None:
    """Forget every stored rig length (on unregister)."""
    _LENGTH.clear()
