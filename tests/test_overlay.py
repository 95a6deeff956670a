"""The overlay's geometry (``bridge/overlay.py``) without Blender: closed-form checks of
every shape, the colours by state, and bad input."""

from __future__ import annotations

import numpy as np
import pytest

from tests.bridge_stubs import bridge_module

overlay = bridge_module("overlay.shapes")

COLORS = {"REACHED": (0.0, 1.0, 0.0, 1.0), "MISSED": (1.0, 0.0, 0.0, 1.0),
          "UNSOLVED": (0.5, 0.5, 0.5, 0.8)}  # fmt: skip


def view(kind: str, axis: tuple = (0.0, 0.0, 2.0), state: str = "REACHED", **kw: object) -> object:
    values = {"name": "c", "kind": kind, "effector": np.array([1.0, 2.0, 3.0]),
              "target": np.array([0.5, -1.0, 0.25]), "axis": np.array(axis), "aim": None,
              "size": 0.4, "state": state} | kw  # fmt: skip
    return overlay.GoalView(**values)


def test_every_goal_has_a_line_from_effector_to_target() -> None:
    for kind in ("POSITION", "ORIENTATION", "POSITION_ORIENTATION", "LINE", "PLANE", "HALF_SPACE"):
        lines, _triangles = overlay.shape(view(kind))
        np.testing.assert_array_equal(lines[0], [1.0, 2.0, 3.0])
        np.testing.assert_array_equal(lines[1], [0.5, -1.0, 0.25])
    lines, triangles = overlay.shape(view("POSITION"))
    assert len(lines) == 2 and triangles == []


@pytest.mark.parametrize("seed", range(5))
def test_plane_patch_lies_in_the_plane_and_is_a_square(seed: int) -> None:
    rng = np.random.default_rng(seed)
    normal = rng.normal(size=3)
    normal /= np.linalg.norm(normal)
    center = rng.normal(size=3)
    corners = overlay.plane_patch(center, normal, 0.3)
    np.testing.assert_allclose((corners - center) @ normal, 0.0, atol=1e-12)
    np.testing.assert_allclose(corners.mean(axis=0), center, atol=1e-12)
    sides = np.linalg.norm(np.roll(corners, -1, axis=0) - corners, axis=1)
    np.testing.assert_allclose(sides, 0.6, rtol=1e-12)  # side = 2 * half-width
    np.testing.assert_allclose(np.linalg.norm(corners - center, axis=1), 0.3 * np.sqrt(2.0))
    u, v = overlay.plane_basis(normal)
    np.testing.assert_allclose(np.linalg.det(np.column_stack([u, v, normal])), 1.0)


def test_line_goal_is_drawn_along_its_axis_through_the_target() -> None:
    g = view("LINE", axis=(1.0, 1.0, 0.0))
    lines, _ = overlay.shape(g)
    a, b = lines[2], lines[3]
    direction = np.array([1.0, 1.0, 0.0]) / np.sqrt(2.0)
    for point in (a, b):  # on the line: no component across the direction
        offset = point - g.target
        np.testing.assert_allclose(offset - (offset @ direction) * direction, 0.0, atol=1e-12)
    np.testing.assert_allclose(np.linalg.norm(b - a), 2.0 * overlay.LINE_REACH * 0.4)


def test_half_space_shades_the_allowed_side_only() -> None:
    g = view("HALF_SPACE", axis=(0.0, 3.0, 0.0))
    lines, triangles = overlay.shape(g)
    heights = (np.array(triangles) - g.target) @ np.array([0.0, 1.0, 0.0])
    assert heights.min() == pytest.approx(0.0, abs=1e-12)  # the patch itself
    assert heights.max() == pytest.approx(overlay.SLAB_DEPTH * 0.4)  # the slab's far face
    assert len(triangles) == 3 * 2 * 6  # patch, far face and four sides: two triangles each
    normal_tip = lines[-1]
    np.testing.assert_allclose(normal_tip - g.target, [0.0, 0.4, 0.0])
    _lines, plane_triangles = overlay.shape(view("PLANE", axis=(0.0, 3.0, 0.0)))
    assert len(plane_triangles) == 6
    np.testing.assert_allclose((np.array(plane_triangles) - g.target)[:, 1], 0.0, atol=1e-12)


def test_aim_ray_follows_the_aim_axis_to_the_targets_distance() -> None:
    g = view("AIM", aim=np.array([0.0, 0.0, -2.0]))
    lines, _ = overlay.shape(g)
    start, end = lines[2], lines[3]
    np.testing.assert_array_equal(start, g.effector)
    distance = np.linalg.norm(g.target - g.effector)
    np.testing.assert_allclose(end - start, [0.0, 0.0, -distance])
    near = view("AIM", aim=np.array([1.0, 0.0, 0.0]), target=np.array([1.0, 2.0, 3.1]))
    lines, _ = overlay.shape(near)
    assert np.linalg.norm(lines[3] - lines[2]) == pytest.approx(0.4)  # at least one size


def test_colours_follow_the_state_and_fills_are_translucent() -> None:
    views = [view("PLANE", state="REACHED"), view("POSITION", state="MISSED"),
             view("LINE", state="UNSOLVED")]  # fmt: skip
    geometry = overlay.geometry(views, COLORS)
    assert geometry.lines.shape == (2 * (1 + 4) + 2 + 2 * 2, 3)
    assert geometry.line_colors.shape == (len(geometry.lines), 4)
    assert geometry.triangles.shape == (6, 3) and geometry.triangle_colors.shape == (6, 4)
    np.testing.assert_array_equal(geometry.line_colors[:10], [COLORS["REACHED"]] * 10)
    np.testing.assert_array_equal(geometry.line_colors[10:12], [COLORS["MISSED"]] * 2)
    np.testing.assert_array_equal(geometry.line_colors[12:], [COLORS["UNSOLVED"]] * 4)
    np.testing.assert_allclose(geometry.triangle_colors, [(0.0, 1.0, 0.0, overlay.FILL_ALPHA)] * 6)
    empty = overlay.geometry([], COLORS)
    assert empty.lines.shape == (0, 3) and empty.triangles.shape == (0, 3)


def test_bad_input_names_the_argument() -> None:
    with pytest.raises(ValueError, match="axis"):
        view("PLANE", axis=(0.0, 0.0, 0.0))
    with pytest.raises(ValueError, match="aim"):
        view("AIM", aim=np.array([np.nan, 0.0, 1.0]))
    with pytest.raises(ValueError, match="effector"):
        view("POSITION", effector=np.array([np.inf, 0.0, 0.0]))
    with pytest.raises(ValueError, match="size"):
        view("POSITION", size=0.0)
    with pytest.raises(ValueError, match="state"):
        view("POSITION", state="GREEN")
    with pytest.raises(ValueError, match="MISSED"):
        overlay.geometry([view("POSITION")], {"REACHED": (0, 1, 0, 1), "UNSOLVED": (1, 1, 1, 1)})
