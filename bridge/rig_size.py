"""Tolerance and orientation weight relative to the rig's size, and float32 resolution.

The solver measures a figure's size by its characteristic length ``L``
(:func:`solver.scale.characteristic_length`: the longest chain the constraints move, in scene
units) and, unless told otherwise, reaches for ``1e-6 L`` and weighs one radian of orientation
error like ``L``. The Blender side follows it: a rig whose *Tolerance* is *Automatic* is judged
at :data:`RELATIVE_TOLERANCE` ``* L`` (the solver aims at half of it, see
:data:`.rig.SOLVE_MARGIN`), and a constraint whose *Degrees per Unit* is *Automatic* passes
``degrees=None`` to its goal (one radian weighs like ``L``). A rig in centimetres, one scaled by
0.01 and one in metres then solve alike. An explicit value is kept in scene units.

Files saved before the *Automatic* switches existed have no stored switch: a stored value equal
to the old absolute default (:data:`LEGACY_TOLERANCE`, :data:`LEGACY_DEGREES`, which every new rig
got whether or not anyone chose it) loads as *Automatic*; any other stored value was someone's
choice and loads as a fixed value (:func:`automatic`).

Blender evaluates poses in single precision: a position ``p`` it computes is only known to about
``|p| * 2**-23`` per rounding, and a chain of bone matrices rounds several times. A distance below
:func:`float32_resolution` of the coordinates involved is round-off, not a miss and not a model
mismatch.

Pure Python: settings objects are passed in.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Protocol

import numpy as np

if TYPE_CHECKING:
    from ..operators.properties import ReachConstraint, ReachSettings

#: Automatic distance tolerance as a fraction of the characteristic length ``L``.
RELATIVE_TOLERANCE = 1e-5
#: The absolute Tolerance default (scene units) of files saved before *Automatic* existed.
LEGACY_TOLERANCE = 1e-5
#: The absolute Degrees per Unit default of files saved before *Automatic* existed.
LEGACY_DEGREES = 1.0
#: Single-precision roundings a Blender world position may carry (bone matrices multiplied
#: down a chain, then the object's matrix), in units of ``2**-23`` of its magnitude. Measured:
#: 1.3-1.9 of them on a BVH rig in centimetres at coordinates ~250 units.
FLOAT32_ROUNDINGS = 8.0
FLOAT32_EPSILON = 2.0**-23


class _Settable(Protocol):
    """An RNA struct with ID-property storage (``ReachSettings``, ``ReachConstraint``)."""

    def get(self, key: str, default: object = None) -> object: ...


def automatic(data: _Settable, switch: str, value: float, legacy: float) -> bool:
    """Whether a value is *Automatic*: the stored switch, or, where none is stored (a new rig, a
    file saved before the switch existed), whether ``value`` is still ``legacy``, the old
    absolute default (within single-precision storage)."""
    stored = data.get(switch)
    if stored is not None:
        return bool(stored)
    return math.isclose(float(value), legacy, rel_tol=1e-6)


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
