"""*Automatic* settings: tolerance and orientation weight that follow the rig's size.

The solver measures a figure's size by its characteristic length ``L``
(:func:`solver.assembly.scale.characteristic_length`: the longest chain the constraints move, in
scene units) and, unless told otherwise, reaches for ``1e-6 L`` and weighs one radian of
orientation error like ``L``. The Blender side follows it: a rig whose *Tolerance* is
*Automatic* is judged at :data:`RELATIVE_TOLERANCE` ``* L``, and a constraint whose *Degrees per
Unit* is *Automatic* passes ``degrees=None`` to its goal (one radian weighs like ``L``). A rig
in centimetres, one scaled by 0.01 and one in metres then solve alike. An explicit value is kept
in scene units.

Files saved before the *Automatic* switches existed have no stored switch: a stored value equal
to the old absolute default (:data:`LEGACY_TOLERANCE`, :data:`LEGACY_DEGREES`, which every new rig
got whether or not anyone chose it) loads as *Automatic*; any other stored value was someone's
choice and loads as a fixed value (:func:`automatic`).

Pure Python: settings objects are passed in. The effective values in scene units are the
bridge's (``bridge.rig.size``).
"""

from __future__ import annotations

import math
from typing import Protocol

#: Automatic distance tolerance as a fraction of the characteristic length ``L``.
RELATIVE_TOLERANCE = 1e-5
#: The absolute Tolerance default (scene units) of files saved before *Automatic* existed.
LEGACY_TOLERANCE = 1e-5
#: The absolute Degrees per Unit default of files saved before *Automatic* existed.
LEGACY_DEGREES = 1.0


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
