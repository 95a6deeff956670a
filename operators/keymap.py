"""Reach's keyboard shortcuts: add-on keymap items in the *Pose* keymap.

They sit in the add-on key configuration, so *Preferences › Keymap* lists them under
3D View › Pose, where they can be changed or switched off (Blender keeps the user's edits),
and they are removed when the add-on is disabled. Each key is free in Blender's default
keymap for pose mode (``tests/blender/test_menu_keymap.py`` checks Blender's own
``blender_default.py`` keymap data of the running version).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import bpy

if TYPE_CHECKING:
    from bpy._typing.rna_enums import EventTypeItems


@dataclass(frozen=True)
class Shortcut:
    """One key binding: operator, key, modifiers and operator properties."""

    idname: str
    key: EventTypeItems
    shift: bool = False
    ctrl: bool = False
    alt: bool = False
    properties: dict[str, object] = field(default_factory=dict)


#: Solve: Shift Ctrl R (R for Reach; Blender's pose mode leaves it unused).
SOLVE = Shortcut("reach.solve", "R", shift=True, ctrl=True, properties={"insert_keys": False})
#: Live posing's switch: Shift Alt R toggles the active armature's ``reach_ik.live``.
LIVE = Shortcut(
    "wm.context_toggle", "R", shift=True, alt=True,
    properties={"data_path": "active_object.reach_ik.live"},
)  # fmt: skip

SHORTCUTS = (SOLVE, LIVE)
KEYMAP = ("Pose", "EMPTY")  # name, space type of the keymap that holds the items

_ITEMS: list[tuple[bpy.types.KeyMap, bpy.types.KeyMapItem]] = []


def _matches(item: bpy.types.KeyMapItem, shortcut: Shortcut) -> bool:
    if item.idname != shortcut.idname:
        return False
    return all(getattr(item.properties, k, None) == v for k, v in shortcut.properties.items())


def draw_preferences(layout: bpy.types.UILayout, context: bpy.types.Context) -> None:
    """Draw Reach's keys, editable (on/off and the key with its modifiers), from the user's key
    configuration, where Blender keeps the user's edits of add-on keys."""
    keyconfig = context.window_manager.keyconfigs.user
    keymap = keyconfig.keymaps.get(KEYMAP[0]) if keyconfig is not None else None
    col = layout.column()
    found = False
    for shortcut in SHORTCUTS:
        for item in [] if keymap is None else keymap.keymap_items:
            if _matches(item, shortcut):
                row = col.row()
                row.prop(item, "active", text="")
                row.label(text=item.name)
                row.prop(item, "type", text="", full_event=True)
                found = True
                break
    if not found:
        col.label(text="Preferences › Keymap › 3D View › Pose (Reach)", icon="INFO")


def register() -> None:
    """Add the keymap items (none in background mode, which has no add-on keyconfig)."""
    unregister()  # never two copies, whatever an earlier registration left
    keyconfig = bpy.context.window_manager.keyconfigs.addon
    if keyconfig is None:
        return
    name, space = KEYMAP
    keymap = keyconfig.keymaps.new(name=name, space_type=space)
    for shortcut in SHORTCUTS:
        item = keymap.keymap_items.new(
            shortcut.idname, shortcut.key, "PRESS",
            shift=shortcut.shift, ctrl=shortcut.ctrl, alt=shortcut.alt,
        )  # fmt: skip
        for key, value in shortcut.properties.items():
            setattr(item.properties, key, value)
        _ITEMS.append((keymap, item))


def unregister() -> None:
    """Remove the keymap items :func:`register` added."""
    for keymap, item in _ITEMS:
        try:
            keymap.keymap_items.remove(item)
        except (ReferenceError, RuntimeError):  # already gone with the keyconfig
            pass
    _ITEMS.clear()
