"""Files saved before the solver setting was named *Method*: ``hessian`` becomes ``method``.

Until the solve methods were generalised the armature's setting was the enum ``hessian``
(items ``gauss-newton-hybrid`` = 0 and ``bfgs`` = 1, stored as those numbers). A file saved
then still holds that key in each armature's Reach settings, and nothing reads it: opened as
it is, every armature would silently solve with the default method. A ``load_post`` handler
(installed once, also across Reload Scripts) moves the value into ``method`` and removes the
stale key; a value already set in ``method`` wins. Running it again changes nothing. Linked
objects are left alone (their library file is the one to open and save).
"""

from __future__ import annotations

from collections.abc import Iterable

import bpy
from bpy.app.handlers import persistent

from .live_handlers import same_handler

#: The key files saved before the rename hold, and its enum items by stored number.
OLD_KEY = "hessian"
OLD_ITEMS = ("gauss-newton-hybrid", "bfgs")


def _old_method(value: object) -> str | None:
    """The method an old ``hessian`` value means (a stored number or a name), or None."""
    if isinstance(value, int) and 0 <= value < len(OLD_ITEMS):
        return OLD_ITEMS[value]
    if isinstance(value, str) and value in OLD_ITEMS:
        return value
    return None


def migrate(objects: Iterable[bpy.types.Object]) -> list[str]:
    """Move each object's old ``hessian`` value into ``method`` and drop the key.

    Returns:
        The names of the objects changed.
    """
    changed = []
    for obj in objects:
        if obj.library is not None:
            continue
        settings = getattr(obj, "reach_ik", None)
        if settings is None or OLD_KEY not in settings:
            continue
        method = _old_method(settings[OLD_KEY])
        if method is not None and not settings.is_property_set("method"):
            settings.method = method
        del settings[OLD_KEY]
        changed.append(obj.name)
    return changed


@persistent
def migrate_loaded(*_args: object) -> None:
    """After a file is loaded: migrate every object of it."""
    names = migrate(bpy.data.objects)
    if names:
        print(f"Reach: the old 'hessian' setting moved into 'method' on {', '.join(names)}")


def _migrate_open_file() -> None:
    """Timer, once after registration: the file already open when the add-on is enabled."""
    migrate_loaded()


def register() -> None:
    """Install the ``load_post`` handler (once) and migrate the open file soon after."""
    unregister()
    bpy.app.handlers.load_post.append(migrate_loaded)
    bpy.app.timers.register(_migrate_open_file, first_interval=0.0)


def unregister() -> None:
    """Remove the handler (every copy an earlier registration left) and the pending timer."""
    handlers = bpy.app.handlers.load_post
    for installed in [h for h in handlers if same_handler(h, migrate_loaded)]:
        handlers.remove(installed)
    if bpy.app.timers.is_registered(_migrate_open_file):
        bpy.app.timers.unregister(_migrate_open_file)
