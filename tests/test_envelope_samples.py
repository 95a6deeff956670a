"""Reach Envelope's sample grid (:mod:`bridge.envelope.samples`) and its effort colours
(:mod:`bridge.envelope.cloud`): the points asked for, no more, and bad values named."""

from __future__ import annotations

import numpy as np
import pytest

from tests.bridge_stubs import bridge_module

samples = bridge_module("envelope.samples")
cloud = bridge_module("envelope.cloud")

CENTRE = np.array([0.5, -2.0, 1.25])


@pytest.mark.parametrize("per_axis", [3, 5, 8, 21])
def test_grid_is_the_cube_grid_inside_the_ball(per_axis: int) -> None:
    points, spacing = samples.sphere_grid(CENTRE, 1.5, per_axis)
    assert spacing == pytest.approx(3.0 / (per_axis - 1))
    offsets = points - CENTRE
    assert (np.linalg.norm(offsets, axis=1) <= 1.5 * (1 + 1e-9)).all()
    # Every point lies on the grid, once.
    steps = (offsets + 1.5) / spacing
    assert np.allclose(steps, np.round(steps))
    assert len(np.unique(np.round(steps).astype(int), axis=0)) == len(points)
    # And every grid point inside the ball is there: count them independently.
    line = np.linspace(-1.5, 1.5, per_axis)
    inside = sum(
        1 for x in line for y in line for z in line if x * x + y * y + z * z <= 2.25 * (1 + 1e-12)
    )
    assert len(points) == inside
    if per_axis % 2:  # an odd count samples the centre itself
        assert np.isclose(np.linalg.norm(offsets, axis=1).min(), 0.0)


@pytest.mark.parametrize(("radius", "per_axis", "word"), [(0.0, 5, "radius"), (-1.0, 5, "radius"),
                                                          (1.0, 1, "per_axis")])  # fmt: skip
def test_bad_grids_are_named(radius: float, per_axis: int, word: str) -> None:
    with pytest.raises(ValueError, match=word):
        samples.sphere_grid(CENTRE, radius, per_axis)


def test_effort_colours_run_green_to_red() -> None:
    colours = cloud.effort_colors(np.array([0.2, 0.7, 1.2]))
    assert np.allclose(colours[0], (0.0, 1.0, 0.0, 1.0))
    assert np.allclose(colours[1], (1.0, 1.0, 0.0, 1.0))
    assert np.allclose(colours[2], (1.0, 0.0, 0.0, 1.0))
    assert np.allclose(cloud.effort_colors(np.array([0.4, 0.4])), [(0, 1, 0, 1)] * 2)
