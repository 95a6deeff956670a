"""The viewport overlay: a ``SpaceView3D`` draw handler that shows the active armature's goals.

The geometry comes from :mod:`..bridge.overlay` (what to draw, world space) and
:mod:`..bridge.overlay_scene` (read from the scene); this module only hands the arrays to the
``gpu`` module through :class:`GpuApi`, which a test can replace: background Blender (the
``bpy`` wheel) refuses every ``gpu`` drawing call with ``SystemError``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import bpy

from ..bridge.overlay import shapes, views
from ..bridge.session import last_report
from ..props.access import settings_of
from ..props.preferences import MISSED_COLOR, REACHED_COLOR, UNSOLVED_COLOR, preferences

LINE_SHADER = "POLYLINE_SMOOTH_COLOR"  # wide, anti-aliased lines with a colour per vertex
FILL_SHADER = "SMOOTH_COLOR"
LINE_WIDTH = 2.0  # pixels

_HANDLE: list[Any] = []  # the draw handler while registered (at most one)


class GpuApi:
    """The few ``gpu`` calls the overlay makes (Blender's own by default)."""

    def shader(self, name: str) -> Any:
        """A built-in shader."""
        import gpu

        return gpu.shader.from_builtin(name)

    def batch(self, shader: Any, kind: str, content: dict[str, Any]) -> Any:
        """A batch of ``kind`` ("LINES", "TRIS") primitives for ``shader``."""
        from gpu_extras.batch import batch_for_shader

        return batch_for_shader(shader, kind, content)

    def viewport_size(self) -> tuple[float, float]:
        """Width and height of the region being drawn, pixels."""
        import gpu

        _x, _y, width, height = gpu.state.viewport_get()
        return float(width), float(height)

    def blend(self, mode: str) -> None:
        """Set the blend mode ("ALPHA" while drawing, "NONE" after)."""
        import gpu

        gpu.state.blend_set(mode)


def colors() -> dict[str, shapes.Color]:
    """State -> RGBA from the preferences."""
    prefs = preferences()
    if prefs is None:
        return {"REACHED": REACHED_COLOR, "MISSED": MISSED_COLOR, "UNSOLVED": UNSOLVED_COLOR}
    return {
        "REACHED": tuple(prefs.reached_color),
        "MISSED": tuple(prefs.missed_color),
        "UNSOLVED": tuple(prefs.unsolved_color),
    }  # pyright: ignore[reportReturnType]  (size-4 colour properties)


def draw_geometry(geometry: shapes.Overlay, api: GpuApi) -> list[Any]:
    """Build the batches of ``geometry`` and draw them; return the batches drawn."""
    drawn = []
    api.blend("ALPHA")
    try:
        if len(geometry.triangles):
            shader = api.shader(FILL_SHADER)
            content = {
                "pos": geometry.triangles.tolist(),
                "color": geometry.triangle_colors.tolist(),
            }
            batch = api.batch(shader, "TRIS", content)
            batch.draw(shader)
            drawn.append(batch)
        if len(geometry.lines):
            shader = api.shader(LINE_SHADER)
            shader.uniform_float("viewportSize", api.viewport_size())
            shader.uniform_float("lineWidth", LINE_WIDTH)
            content = {"pos": geometry.lines.tolist(), "color": geometry.line_colors.tolist()}
            batch = api.batch(shader, "LINES", content)
            batch.draw(shader)
            drawn.append(batch)
    finally:
        api.blend("NONE")
    return drawn


def overlay_of(context: bpy.types.Context) -> shapes.Overlay | None:
    """The overlay of the active armature, or None when there is nothing to draw (no
    armature, *Show Goals* off, or the 3D View's own overlays switched off)."""
    space = getattr(context, "space_data", None)
    if space is not None and not getattr(space.overlay, "show_overlays", True):
        return None
    obj = context.active_object
    if obj is None or obj.type != "ARMATURE":
        return None
    settings = settings_of(obj)
    if not settings.show_overlay:
        return None
    goal_views = views.views_of(obj, settings, last_report.last(obj))
    return shapes.geometry(goal_views, colors()) if goal_views else None


def draw(api: GpuApi | None = None) -> list[Any]:
    """The draw handler: draw the active armature's goals; return the batches drawn."""
    geometry = overlay_of(bpy.context)
    return [] if geometry is None else draw_geometry(geometry, api or GpuApi())


def _draw_callback() -> None:
    draw()


def register() -> None:
    """Add the draw handler (once)."""
    unregister()
    handler_add: Callable[..., Any] = bpy.types.SpaceView3D.draw_handler_add
    _HANDLE.append(handler_add(_draw_callback, (), "WINDOW", "POST_VIEW"))


def unregister() -> None:
    """Remove the draw handler."""
    while _HANDLE:
        bpy.types.SpaceView3D.draw_handler_remove(_HANDLE.pop(), "WINDOW")
