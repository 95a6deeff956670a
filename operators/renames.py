"""Handlers that keep Reach constraints on their bones when bones are renamed.

The logic is :mod:`..bridge.renames`; this module only connects it to Blender: after every
depsgraph update that touched an armature, renames since the last look are carried into the
constraint items; loading a file or undoing takes a fresh snapshot of every armature's bones.
"""

from __future__ import annotations

import bpy
from bpy.app.handlers import persistent

from ..bridge.edit.renames import BoneNames, follow

_NAMES = BoneNames()
_STARTED: list[bool] = []  # empty until the first snapshot of the open file


@persistent
def remember_all(*_args: object) -> None:
    """Snapshot the bone names of every armature in the file (load, undo, redo, start)."""
    _NAMES.forget()
    _NAMES.remember(bpy.data.armatures)
    _STARTED[:] = [True]


@persistent
def follow_renames(_scene: bpy.types.Scene, depsgraph: bpy.types.Depsgraph) -> None:
    """After an update that touched armatures, carry their bone renames into constraints."""
    if not _STARTED:  # bpy.data is not readable while the extension registers
        remember_all()
        return
    armatures = [
        update.id.original
        for update in depsgraph.updates
        if isinstance(update.id, bpy.types.Armature)
    ]
    if not armatures:
        return
    renames = _NAMES.changes(armatures)
    if renames:
        for line in follow(bpy.data.objects, renames):
            print(f"Reach: {line}")


_HANDLERS = (
    (bpy.app.handlers.depsgraph_update_post, follow_renames),
    (bpy.app.handlers.load_post, remember_all),
    (bpy.app.handlers.undo_post, remember_all),
    (bpy.app.handlers.redo_post, remember_all),
)


def register() -> None:
    """Install the handlers."""
    _STARTED.clear()
    for handlers, function in _HANDLERS:
        handlers.append(function)


def unregister() -> None:
    """Remove the handlers and forget every snapshot."""
    for handlers, function in _HANDLERS:
        if function in handlers:
            handlers.remove(function)
    _NAMES.forget()
    _STARTED.clear()
