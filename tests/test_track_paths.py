"""Target Track's preset paths (:mod:`bridge.edit.track_paths`): every point on the requested
curve, closed paths closed, the speed as asked, bad values named."""

from __future__ import annotations

import numpy as np
import pytest

from tests.bridge_stubs import bridge_module

paths = bridge_module("edit.track_paths")

CENTER = np.array([0.5, -2.0, 1.25])
#: A tilted orthonormal plane, so no test leans on world axes.
_Q, _ = np.linalg.qr(np.array([[1.0, 0.3, -0.2], [0.1, 1.0, 0.4], [0.2, -0.5, 1.0]]))
AXES = (_Q[:, 0], _Q[:, 1])
NORMAL = np.cross(*AXES)


def _points(shape: str, size: float = 1.5, turns: float = 1.0, n: int = 97) -> np.ndarray:
    frames = np.linspace(10.0, 58.0, n)
    return paths.track_points(shape, frames, (10, 58), size, turns, CENTER, AXES)


def _uv(points: np.ndarray) -> np.ndarray:
    rel = points - CENTER
    return np.column_stack((rel @ AXES[0], rel @ AXES[1]))


@pytest.mark.parametrize("shape", [key for key, _l, _d in paths.SHAPES])
def test_every_point_lies_in_the_plane_through_the_centre(shape: str) -> None:
    assert np.abs((_points(shape) - CENTER) @ NORMAL).max() < 1e-12


def test_circle_points_are_at_the_radius_and_go_round_once_per_turn() -> None:
    uv = _uv(_points("CIRCLE", size=1.5, turns=2.0))
    np.testing.assert_allclose(np.hypot(uv[:, 0], uv[:, 1]), 1.5, atol=1e-12)
    angle = np.unwrap(np.arctan2(uv[:, 1], uv[:, 0]))
    assert angle[-1] - angle[0] == pytest.approx(2 * 2 * np.pi)  # two turns, counter-clockwise
    np.testing.assert_allclose(np.diff(angle), np.diff(angle)[0], atol=1e-12)  # steady speed
    np.testing.assert_allclose(uv[0], [1.5, 0.0], atol=1e-12)  # starts on +u


def test_negative_turns_go_round_the_other_way() -> None:
    uv = _uv(_points("CIRCLE", turns=-1.0))
    angle = np.unwrap(np.arctan2(uv[:, 1], uv[:, 0]))
    assert angle[-1] - angle[0] == pytest.approx(-2 * np.pi)


def test_figure_eight_is_a_lemniscate_of_gerono() -> None:
    """x⁴ = a²(x² − y²) with a = size; 2·size wide, size high; it passes its crossing (the
    centre) twice per turn and covers both lobes."""
    a = 1.5
    uv = _uv(_points("FIGURE_EIGHT", size=a, n=193))
    x, y = uv[:, 0], uv[:, 1]
    np.testing.assert_allclose(x**4, a**2 * (x**2 - y**2), atol=1e-12)
    assert x.max() == pytest.approx(a) and x.min() == pytest.approx(-a)
    assert y.max() == pytest.approx(a / 2, rel=1e-3) and y.min() == pytest.approx(-a / 2, rel=1e-3)
    at_crossing = np.flatnonzero(np.hypot(x, y) < 1e-9)
    np.testing.assert_array_equal(at_crossing, [0, 96, 192])  # start, half a turn, end


def test_spiral_radius_grows_linearly_from_zero_to_size() -> None:
    uv = _uv(_points("SPIRAL", size=2.0, turns=3.0))
    radius = np.hypot(uv[:, 0], uv[:, 1])
    np.testing.assert_allclose(radius, np.linspace(0.0, 2.0, len(radius)), atol=1e-12)
    angle = np.unwrap(np.arctan2(uv[1:, 1], uv[1:, 0]))  # the first point is the centre
    assert angle[-1] - angle[0] == pytest.approx(3 * 2 * np.pi * (1 - 1 / 96))


def test_line_goes_between_its_endpoints_once_per_cycle() -> None:
    uv = _uv(_points("LINE", size=0.75, turns=2.0))
    np.testing.assert_allclose(uv[:, 1], 0.0, atol=1e-12)
    x = uv[:, 0]
    assert x.min() == pytest.approx(-0.75) and x.max() == pytest.approx(0.75)
    np.testing.assert_allclose(x[[0, 24, 48, 72, 96]], [-0.75, 0.75, -0.75, 0.75, -0.75])
    assert np.abs(x).max() <= 0.75 + 1e-12


@pytest.mark.parametrize("shape", ["CIRCLE", "FIGURE_EIGHT", "LINE"])
def test_closed_paths_end_where_they_start_with_whole_turns(shape: str) -> None:
    points = _points(shape, turns=3.0)
    np.testing.assert_allclose(points[-1], points[0], atol=1e-12)
    assert not np.allclose(_points(shape, turns=2.25)[-1], points[0], atol=1e-3)


@pytest.mark.parametrize(
    ("size", "frames", "turns", "fragment"),
    [
        (0.0, (1, 10), 1.0, "size must be more than 0"),
        (-1.0, (1, 10), 1.0, "size must be more than 0"),
        (float("nan"), (1, 10), 1.0, "size must be more than 0"),
        (1.0, (5, 5), 1.0, "frame range 5..5 has fewer than 2 frames"),
        (1.0, (9, 3), 1.0, "frame range 9..3 has fewer than 2 frames"),
        (1.0, (1, 10), 0.0, "turns must be a non-zero number"),
    ],
)
def test_bad_values_are_named(
    size: float, frames: tuple[int, int], turns: float, fragment: str
) -> None:
    with pytest.raises(paths.TrackError, match=fragment):
        paths.track_points("CIRCLE", np.arange(3.0), frames, size, turns, CENTER, AXES)


def test_an_unknown_shape_is_named() -> None:
    with pytest.raises(paths.TrackError, match="shape 'SQUARE'"):
        paths.track_points("SQUARE", np.arange(3.0), (0, 2), 1.0, 1.0, CENTER, AXES)
