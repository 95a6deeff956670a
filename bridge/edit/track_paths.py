"""Preset target paths (circle, figure-eight, spiral, line back-and-forth) as pure numpy.

A path is drawn in a plane through ``center`` spanned by two orthonormal axes ``u`` and ``v``
(scene units, world space) and sampled at frames; ``size`` is one length in scene units:

``CIRCLE``        radius ``size``: ``size (cos 2πt, sin 2πt)``, starting on ``+u``.
``FIGURE_EIGHT``  the lemniscate of Gerono ``x⁴ = a²(x² − y²)`` with ``a = size``:
                  ``size (sin 2πt, sin 2πt cos 2πt)``, ``2 size`` wide along ``u`` and
                  ``size`` high along ``v``, starting at its crossing (the centre). Gerono's
                  rather than Bernoulli's: a plain trigonometric parameter with no slow-down
                  at the crossing, so equal frames give a steady speed round both loops.
``SPIRAL``        Archimedean: radius ``size · s`` growing linearly from 0 at the first
                  frame to ``size`` at the last (``s`` the fraction of the range), angle 2πt.
``LINE``          back and forth along ``u`` between ``center − size u`` and
                  ``center + size u``: ``−size cos 2πt`` (eased at both ends), starting at
                  the ``−u`` end.

``t = turns · s`` is the phase in turns (``turns``: loops of the circle, figure-eight or
spiral, or there-and-back cycles of the line, over the whole range), so with a whole
number of turns the circle, the figure-eight and the line end where they start.
"""

from __future__ import annotations

import numpy as np

from ..errors import RigError

#: The shapes, as the operator's enum items: (identifier, label, description).
SHAPES = (
    ("CIRCLE", "Circle", "A circle of radius Size"),
    ("FIGURE_EIGHT", "Figure-Eight", "A lemniscate of Gerono, 2 × Size wide and Size high"),
    ("SPIRAL", "Spiral", "A spiral whose radius grows from 0 to Size over the range"),
    ("LINE", "Line", "Back and forth on a line from Centre − Size to Centre + Size"),
)

#: The axis pairs of the fixed planes: (u, v), unit vectors of world space.
PLANE_AXES = {
    "XY": ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0)),
    "XZ": ((1.0, 0.0, 0.0), (0.0, 0.0, 1.0)),
    "YZ": ((0.0, 1.0, 0.0), (0.0, 0.0, 1.0)),
}


class TrackError(RigError):
    """A path cannot be drawn from these values; the message names the bad one."""


def plane_coordinates(shape: str, fraction: np.ndarray, size: float, turns: float) -> np.ndarray:
    """In-plane coordinates (float, (n, 2), scene units) of ``shape`` at ``fraction`` of the
    range (float, (n,), 0 at the first frame, 1 at the last)."""
    s = np.asarray(fraction, dtype=float)
    angle = 2.0 * np.pi * turns * s
    if shape == "CIRCLE":
        return size * np.column_stack((np.cos(angle), np.sin(angle)))
    if shape == "FIGURE_EIGHT":
        return size * np.column_stack((np.sin(angle), np.sin(angle) * np.cos(angle)))
    if shape == "SPIRAL":
        return size * s[:, None] * np.column_stack((np.cos(angle), np.sin(angle)))
    if shape == "LINE":
        return np.column_stack((-size * np.cos(angle), np.zeros_like(s)))
    raise TrackError(f"shape '{shape}' is none of {', '.join(k for k, _l, _d in SHAPES)}")


def check(size: float, frame_start: int, frame_end: int, turns: float) -> None:
    """Raise :class:`TrackError` naming the first bad value, if any."""
    if not np.isfinite(size) or size <= 0.0:
        raise TrackError(f"size must be more than 0 scene units (got {size:g})")
    if frame_end - frame_start < 1:
        raise TrackError(
            f"frame range {frame_start}..{frame_end} has fewer than 2 frames: "
            "the end must come after the start"
        )
    if not np.isfinite(turns) or turns == 0.0:
        raise TrackError(f"turns must be a non-zero number (got {turns:g})")


def track_points(
    shape: str,
    frames: np.ndarray,
    frame_range: tuple[int, int],
    size: float,
    turns: float,
    center: np.ndarray,
    axes: tuple[np.ndarray, np.ndarray],
) -> np.ndarray:
    """Points (float, (n, 3), scene units) of the path at ``frames`` (float, (n,)).

    Args:
        shape: one of :data:`SHAPES`.
        frames: where to sample; ``frame_range`` (first, last) maps to fractions 0 and 1.
        size: radius / half-width / half-length, scene units (> 0).
        turns: loops or cycles over the range (negative: the other way round).
        center: (3,) the path's centre.
        axes: (u, v), each (3,): the plane's in-plane directions (orthonormal).

    Raises:
        TrackError: a bad size, range, turns or shape.
    """
    start, end = frame_range
    check(size, start, end, turns)
    fraction = (np.asarray(frames, dtype=float) - start) / float(end - start)
    uv = plane_coordinates(shape, fraction, size, turns)
    u, v = (np.asarray(a, dtype=float) for a in axes)
    return np.asarray(center, dtype=float) + uv[:, :1] * u + uv[:, 1:] * v
