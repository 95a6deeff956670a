"""The axis names of Blender (and of the constraint items: "X", "-Y" ...) as vectors."""

from __future__ import annotations

import numpy as np

AXIS_VECTORS = {
    "X": np.array([1.0, 0.0, 0.0]),
    "Y": np.array([0.0, 1.0, 0.0]),
    "Z": np.array([0.0, 0.0, 1.0]),
}


def signed_axis(spec: str) -> np.ndarray:
    """Unit vector (3,) of an axis name "X", "-Y", ..."""
    sign = -1.0 if spec.startswith("-") else 1.0
    return sign * AXIS_VECTORS[spec[-1]]
