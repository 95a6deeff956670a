"""Blender handlers of live posing; the logic is :mod:`..bridge.live`.

Why ``depsgraph_update_post`` rather than a modal timer: the handler runs only when Blender
evaluated a change, inside that same update, so the new pose is drawn with the moved target
(no extra latency) and nothing runs while the scene is idle; a timer would poll every
armature's inputs at its rate even when nothing moves, and show the pose one tick late.
``bench/live_update.py`` measures both costs (docs/live-posing.md).

Nothing runs during a render (``render_init`` .. ``render_complete`` / ``render_cancel``, or a
running render job) or an object bake job; a Reach bake holds its armature itself
(:mod:`..bridge.busy`). After an undo, a redo or a load the restored pose is accepted as it
is. A solve that stopped at its budget is continued by a timer until it finishes.

An update in which Blender rebuilt its dependency graph (an object or a bone constraint was
added, a parent changed ...; recognised by :func:`_rebuilt`) is not solved inside its handler:
the live solve waits for the resume timer, a frame-change solve for a one-shot timer, both
run right after the update. Writing the pose and evaluating it again inside such an update's
handler makes Blender 4.2 and 5.0 crash at a later update (reproduced without Reach; the
tests in ``tests/blender/test_live_rig_edits.py`` run both sequences in a separate Blender).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import bpy
from bpy.app.handlers import persistent

from ..bridge.blender import busy_armatures
from ..bridge.live import posing
from ..props.access import settings_of
from ..props.preferences import live_time_budget

_RENDERING: list[bool] = []  # not empty between render_init and render_complete / cancel


def _rendering() -> bool:
    return bool(_RENDERING) or any(
        bpy.app.is_job_running(job) for job in ("RENDER", "RENDER_PREVIEW", "OBJECT_BAKE")
    )


def _objects(view_layer: bpy.types.ViewLayer) -> list[bpy.types.Object]:
    return [obj for obj in view_layer.objects if obj is not None and obj.type == "ARMATURE"]


@persistent
def live_update(scene: bpy.types.Scene, depsgraph: bpy.types.Depsgraph) -> None:
    """Re-solve live armatures whose inputs this update changed.

    Returns at once when no armature of the view layer has Live on: every Reach Solve and
    every baked frame evaluates the view layer, and with Live off (the usual case) neither
    :func:`live.on_update` nor :func:`_resume_later` would act on any object.
    """
    if posing.solving() or _rendering():
        return
    view_layer = depsgraph.view_layer
    objects = _objects(view_layer)
    if not any(settings_of(obj).live for obj in objects):
        return
    updates = list(depsgraph.updates)
    updated = {update.id.original.session_uid for update in updates}
    edit = bpy.context.preferences.edit
    posing.on_update(objects, updated, scene, view_layer, edit, live_time_budget(),
                   defer=_rebuilt(updates, updated, view_layer))  # fmt: skip
    _resume_later(view_layer)


@persistent
def frame_change(scene: bpy.types.Scene, depsgraph: bpy.types.Depsgraph | None = None) -> None:
    """Solve the armatures evaluated on frame change at the new frame (after the update, from
    a timer, when Blender rebuilt its graph in it: see the module docstring)."""
    if posing.solving() or _rendering():
        return
    view_layer = depsgraph.view_layer if depsgraph is not None else bpy.context.view_layer
    objects = _objects(view_layer)
    if not posing.frame_change_wanted(objects):  # before listing the update: a bake's frames
        return
    if depsgraph is not None:
        updates = list(depsgraph.updates)
        updated = {update.id.original.session_uid for update in updates}
        if _rebuilt(updates, updated, view_layer):
            if not bpy.app.timers.is_registered(frame_change_later):
                bpy.app.timers.register(frame_change_later, first_interval=0.0)
            return
    posing.on_frame_change(objects, scene, view_layer)


def frame_change_later() -> None:
    """Timer, once: the frame-change solve of an update in which Blender rebuilt its graph."""
    scene = bpy.context.scene
    if scene is not None:
        frame_change(scene)


def resume() -> float | None:
    """Timer: continue unfinished live solves; run again at once while one is unfinished."""
    context = bpy.context
    view_layer, scene = context.view_layer, context.scene
    if view_layer is None or scene is None or _rendering():
        return None
    objects = _objects(view_layer)
    edit = context.preferences.edit
    again = posing.resume_unfinished(objects, scene, view_layer, edit, live_time_budget())
    return 0.0 if again else None


def _rebuilt(
    updates: list[bpy.types.DepsgraphUpdate], updated: set[int], view_layer: bpy.types.ViewLayer
) -> bool:
    """Whether Blender rebuilt its dependency graph in this update. After a rebuild it tags
    every data-block: the scene and every object of the view layer are listed, those nothing
    else touched with the shading flag alone. An edit of the scene (a tool setting, the
    frame), a transform or a property edit lists only what it touched. (A rebuild in which
    every object was also moved or edited is not recognised.)"""
    objects = view_layer.objects
    return (
        any(isinstance(update.id, bpy.types.Scene) for update in updates)
        and all(obj.session_uid in updated for obj in objects)
        and any(
            isinstance(update.id, bpy.types.Object)
            and update.is_updated_shading
            and not (update.is_updated_transform or update.is_updated_geometry)
            for update in updates
        )
    )


def _resume_later(view_layer: bpy.types.ViewLayer) -> None:
    objects = _objects(view_layer)
    if any(settings_of(obj).live and posing.state_of(obj).unfinished for obj in objects):
        if not bpy.app.timers.is_registered(resume):
            bpy.app.timers.register(resume, first_interval=0.0)


def _armatures() -> list[bpy.types.Object]:
    return [obj for obj in bpy.data.objects if obj.type == "ARMATURE"]


@persistent
def accept_restored(*_args: object) -> None:
    """After undo or redo: the restored state is taken as it is (no re-solve)."""
    posing.accept_restored(_armatures())


@persistent
def accept_loaded(*_args: object) -> None:
    """After a load: the opened state is taken as it is (no re-solve)."""
    posing.accept_current(_armatures())


@persistent
def forget_file(*_args: object) -> None:
    """A file is being loaded: forget every armature's live state and holds."""
    posing.forget()
    busy_armatures.clear()


@persistent
def render_started(*_args: object) -> None:
    """A render begins: live posing pauses."""
    _RENDERING[:] = [True]


@persistent
def render_ended(*_args: object) -> None:
    """A render completed or was cancelled: live posing resumes."""
    _RENDERING.clear()


_HANDLERS: tuple[tuple[list[Any], Callable[..., None]], ...] = (
    (bpy.app.handlers.depsgraph_update_post, live_update),
    (bpy.app.handlers.frame_change_post, frame_change),
    (bpy.app.handlers.undo_post, accept_restored),
    (bpy.app.handlers.redo_post, accept_restored),
    (bpy.app.handlers.load_pre, forget_file),
    (bpy.app.handlers.load_post, accept_loaded),
    (bpy.app.handlers.render_init, render_started),
    (bpy.app.handlers.render_complete, render_ended),
    (bpy.app.handlers.render_cancel, render_ended),
)


def same_handler(a: object, b: object) -> bool:
    """Same handler, also across Reload Scripts (a new function object of the same name)."""
    return getattr(a, "__module__", None) == getattr(b, "__module__", None) and getattr(
        a, "__qualname__", None
    ) == getattr(b, "__qualname__", None)


def register() -> None:
    """Install the handlers (each once, whatever an earlier registration left behind)."""
    unregister()
    for handlers, function in _HANDLERS:
        handlers.append(function)


def unregister() -> None:
    """Remove the handlers and the resume timer; forget every live state."""
    for handlers, function in _HANDLERS:
        for installed in [h for h in handlers if same_handler(h, function)]:
            handlers.remove(installed)
    for timer in (resume, frame_change_later):
        if bpy.app.timers.is_registered(timer):
            bpy.app.timers.unregister(timer)
    _RENDERING.clear()
    posing.forget()
