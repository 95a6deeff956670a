"""Targets a solve cannot use: at infinity or not finite (the constraint and target named).

Blender clamps an infinite location to 3.4e38; float32 positions that far out are 64 units
apart, so a goal there is refused instead of chased.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..errors import RigError

if TYPE_CHECKING:
    from .build import Rig

FAR = 1e9  # scene units; a target beyond is "at infinity" (float32 positions 64 units apart)


def check_targets(rig: Rig) -> None:
    """RigError naming the constraint and target if a target is at infinity (farther than
    :data:`FAR` scene units from the origin: Blender clamps an infinite location to 3.4e38)
    or not finite.

    Call it right after :meth:`Rig.update_targets` (or :func:`.build.build_rig`): a target
    object's point is the one that read (``GoalBinding.world_point``; reading it raised for
    a non-finite transform); only a carried target's own transform is read here.
    """
    for binding in rig.bindings:
        if binding.carrier is not None and binding.carry is None:  # a bone of the armature
            continue
        point = binding.world_point
        if point is None:  # a carried target: its goal came from the carrier, not from this
            point, _axes = binding.target_frame()  # raises for a non-finite transform
        distance = float(np.abs(point).max())
        if distance > FAR:
            raise RigError(
                f"Constraint '{binding.name}': target '{binding.target.name}' is at infinity "
                f"({distance:.3g} units from the origin)"
            )
