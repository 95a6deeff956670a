"""What the viewport overlay draws for an armature's Reach constraints, in world coordinates.

Pure geometry (no ``bpy``, no ``gpu``): :class:`GoalView` says where one constraint's
end-effector and target are and how its last measured residual came out;
:func:`geometry` turns a list of them into coloured line segments and triangles:

* every goal: a line from the end-effector to the target point;
* *Line*: the goal's line through the target along its axis (``2 * LINE_REACH`` sizes long);
* *Plane*: a square patch of the plane (half-width one size) through the target;
* *Half-space*: the same patch, a slab shaded on the allowed side (``SLAB_DEPTH`` sizes
  deep) and the normal drawn from the target into that side;
* *Aim*: the aim ray from the end-effector along the bone's aim axis, as long as the
  distance to the target (at least one size).

The colour is the state's (reached / missed / not solved yet); filled shapes use it at
``FILL_ALPHA`` of its opacity. :mod:`.views` builds the views from Blender data and
``panels/overlay_draw.py`` hands the arrays to the ``gpu`` module.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

STATES = ("REACHED", "MISSED", "UNSOLVED")
LINE_REACH = 2.0  # a line goal is drawn this many sizes to either side of the target
SLAB_DEPTH = 0.5  # depth of a half-space's shaded slab, in sizes
FILL_ALPHA = 0.25  # opacity of filled shapes relative to their colour's

Color = tuple[float, float, float, float]


def _unit(vector: np.ndarray, name: str) -> np.ndarray:
    v = np.asarray(vector, dtype=float).reshape(3)
    norm = float(np.linalg.norm(v))
    if not np.isfinite(norm) or norm < 1e-12:
        raise ValueError(f"GoalView: {name} must be a finite non-zero vector, got {v.tolist()}")
    return v / norm


@dataclass(frozen=True)
class GoalView:
    """One constraint as the overlay shows it (world space, scene units).

    Attributes:
        name: the constraint's name.
        kind: its goal type (``POSITION``, ``LINE``, ``PLANE``, ``HALF_SPACE``, ``AIM``, ...).
        effector: (3,) the end-effector point.
        target: (3,) the target point (on the line / plane of a line, plane or half-space).
        axis: (3,) the target axis: a line's direction, a plane's normal, a half-space's
            normal pointing to the allowed side (normalised here).
        aim: (3,) the bone's aim axis in world space for an aim goal (normalised), else None.
        size: length scale of the drawn shapes, scene units (> 0; the bone's length).
        state: ``REACHED`` / ``MISSED`` at the last measured solve, ``UNSOLVED`` before one.
    """

    name: str
    kind: str
    effector: np.ndarray
    target: np.ndarray
    axis: np.ndarray
    aim: np.ndarray | None
    size: float
    state: str

    def __post_init__(self) -> None:
        for field in ("effector", "target"):
            point = np.asarray(getattr(self, field), dtype=float).reshape(3)
            if not np.all(np.isfinite(point)):
                raise ValueError(f"GoalView: {field} must be finite, got {point.tolist()}")
            object.__setattr__(self, field, point)
        object.__setattr__(self, "axis", _unit(self.axis, "axis"))
        if self.aim is not None:
            object.__setattr__(self, "aim", _unit(self.aim, "aim"))
        if not (np.isfinite(self.size) and self.size > 0.0):
            raise ValueError(f"GoalView: size must be a positive length, got {self.size!r}")
        if self.state not in STATES:
            raise ValueError(f"GoalView: state must be one of {STATES}, got {self.state!r}")


@dataclass(frozen=True)
class Overlay:
    """Everything to draw: ``lines`` (2k, 3) in pairs with ``line_colors`` (2k, 4), and
    ``triangles`` (3m, 3) in triples with ``triangle_colors`` (3m, 4); world space, RGBA."""

    lines: np.ndarray
    line_colors: np.ndarray
    triangles: np.ndarray
    triangle_colors: np.ndarray


def plane_basis(normal: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Two unit vectors (3,) spanning the plane with unit ``normal`` (3,); with it, a
    right-handed orthonormal frame ``(u, v, normal)``."""
    helper = np.array([1.0, 0.0, 0.0]) if abs(normal[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    u = np.cross(helper, normal)
    u /= np.linalg.norm(u)
    return u, np.cross(normal, u)


def plane_patch(center: np.ndarray, normal: np.ndarray, half: float) -> np.ndarray:
    """Corners (4, 3) of the square of half-width ``half`` centred on ``center`` in the plane
    with unit ``normal``, in order around the square."""
    u, v = plane_basis(normal)
    return np.array(
        [center + half * (a * u + b * v) for a, b in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
    )


def _quad(corners: np.ndarray) -> list[np.ndarray]:
    a, b, c, d = corners
    return [a, b, c, a, c, d]


def _outline(corners: np.ndarray) -> list[np.ndarray]:
    out = []
    for i in range(len(corners)):
        out += [corners[i], corners[(i + 1) % len(corners)]]
    return out


def shape(view: GoalView) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Line-segment endpoints (pairs) and triangle corners (triples) of one goal."""
    lines = [view.effector, view.target]
    triangles: list[np.ndarray] = []
    size = view.size
    if view.kind == "LINE":
        lines += [
            view.target - LINE_REACH * size * view.axis,
            view.target + LINE_REACH * size * view.axis,
        ]
    elif view.kind in ("PLANE", "HALF_SPACE"):
        patch = plane_patch(view.target, view.axis, size)
        lines += _outline(patch)
        triangles += _quad(patch)
        if view.kind == "HALF_SPACE":
            lines += [view.target, view.target + size * view.axis]
            top = patch + SLAB_DEPTH * size * view.axis
            triangles += _quad(top)
            for i in range(4):
                j = (i + 1) % 4
                triangles += _quad(np.array([patch[i], patch[j], top[j], top[i]]))
    elif view.kind == "AIM" and view.aim is not None:
        reach = max(float(np.linalg.norm(view.target - view.effector)), size)
        lines += [view.effector, view.effector + reach * view.aim]
    return lines, triangles


def geometry(views: Sequence[GoalView], colors: Mapping[str, Color]) -> Overlay:
    """The overlay of ``views``, coloured by state (``colors``: state -> RGBA in 0..1)."""
    missing = [s for s in STATES if s not in colors]
    if missing:
        raise ValueError(f"geometry: colors has no entry for {missing}")
    lines: list[np.ndarray] = []
    line_colors: list[np.ndarray] = []
    triangles: list[np.ndarray] = []
    triangle_colors: list[np.ndarray] = []
    for view in views:
        color = np.asarray(colors[view.state], dtype=float).reshape(4)
        fill = color * np.array([1.0, 1.0, 1.0, FILL_ALPHA])
        segment_points, triangle_points = shape(view)
        lines += segment_points
        line_colors += [color] * len(segment_points)
        triangles += triangle_points
        triangle_colors += [fill] * len(triangle_points)
    return Overlay(
        np.array(lines, dtype=float).reshape(-1, 3),
        np.array(line_colors, dtype=float).reshape(-1, 4),
        np.array(triangles, dtype=float).reshape(-1, 3),
        np.array(triangle_colors, dtype=float).reshape(-1, 4),
    )
