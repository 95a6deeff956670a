"""Sample points of a reach envelope: a cubic grid inside the sphere the chain can span."""

from __future__ import annotations

import numpy as np


def sphere_grid(centre: np.ndarray, radius: float, per_axis: int) -> tuple[np.ndarray, float]:
    """The points of a cubic grid within ``radius`` of ``centre``, and the grid's spacing.

    The grid has ``per_axis`` points a side spanning ``[-radius, radius]`` on each world
    axis; an odd count puts a point on the centre and on each axis plane through it.

    Args:
        centre: (3,) world point, scene units.
        radius: > 0, scene units.
        per_axis: points on each side of the cube, >= 2.

    Returns:
        (N, 3) points inside the closed ball, X fastest, then Y, then Z; and the spacing
        (scene units).
    """
    if per_axis < 2:
        raise ValueError(f"per_axis must be at least 2, got {per_axis}")
    if not radius > 0.0:
        raise ValueError(f"radius must be positive, got {radius}")
    line = np.linspace(-radius, radius, per_axis)
    z, y, x = np.meshgrid(line, line, line, indexing="ij")
    offsets = np.stack([x.ravel(), y.ravel(), z.ravel()], axis=1)
    inside = np.einsum("ij,ij->i", offsets, offsets) <= radius * radius * (1.0 + 1e-12)
    return np.asarray(centre, dtype=float) + offsets[inside], float(line[1] - line[0])
