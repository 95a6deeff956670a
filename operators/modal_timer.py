"""The timer, progress cursor and status text of a modal Reach operator (Solve, Bake).

A modal job does its work in steps, one or a few per timer event, so Blender's event loop
sees ESC between them; meanwhile the cursor shows progress and the status bar says what runs.
"""

from __future__ import annotations

import bpy


def begin(operator: bpy.types.Operator, context: bpy.types.Context, total: int,
          text: str) -> object:  # fmt: skip
    """Start ``operator``'s modal run: progress over ``0..total`` steps, a timer event as
    often as Blender can send one, ``text`` in the status bar; return the timer."""
    wm = context.window_manager
    wm.progress_begin(0, total)
    timer = wm.event_timer_add(0.001, window=context.window)
    wm.modal_handler_add(operator)
    context.workspace.status_text_set(text)
    return timer


def end(context: bpy.types.Context, timer: object) -> None:
    """End a modal run :func:`begin` started: remove ``timer``, end the progress cursor and
    clear the status bar."""
    wm = context.window_manager
    wm.event_timer_remove(timer)  # pyright: ignore[reportArgumentType]  (the timer begin() made)
    wm.progress_end()
    context.workspace.status_text_set(None)


class ModalTimer:
    """Mixin of a modal operator that starts its run with :func:`begin` into ``_timer``."""

    _timer: object | None = None

    def _end_modal(self, context: bpy.types.Context) -> None:
        """:func:`end` the run, once (later calls do nothing)."""
        if self._timer is not None:
            end(context, self._timer)
            self._timer = None
