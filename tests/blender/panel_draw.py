"""Drawing the sidebar panels without a window (not a test file): a stand-in ``UILayout``
that checks every property, operator and icon the panel names and records what is drawn.

Import with ``from tests.blender.panel_draw import Recorder, draw_panels``.
"""

from __future__ import annotations

from types import ModuleType

import bpy

ICONS = {
    item.identifier
    for item in bpy.types.UILayout.bl_rna.functions["label"].parameters["icon"].enum_items
}


class Recorder:
    """A stand-in ``UILayout`` that checks every property, operator and icon the panel names."""

    def __init__(self, log: list) -> None:
        self.log = log

    @staticmethod
    def _icon(kwargs: dict) -> None:
        assert kwargs.get("icon", "NONE") in ICONS, kwargs["icon"]

    def _child(self, *args: object, **kwargs: object) -> Recorder:
        return Recorder(self.log)

    row = column = box = split = _child

    def separator(self, *args: object, **kwargs: object) -> None:
        pass

    def label(self, *, text: str = "", icon: str = "NONE") -> None:
        self._icon({"icon": icon})
        self.log.append(("label", text))

    def prop(self, data: object, name: str, **kwargs: object) -> None:
        assert name in data.bl_rna.properties, f"{data!r} has no property {name!r}"
        self._icon(kwargs)
        self.log.append(("prop", name))

    def prop_search(
        self, data: object, name: str, search: object, collection: str, **kw: object
    ) -> None:
        assert name in data.bl_rna.properties, name
        assert collection in search.bl_rna.properties, collection
        self.log.append(("prop_search", name))

    def template_list(self, list_type: str, list_id: str, data: object, prop: str,
                      active_data: object, active_prop: str, **kw: object) -> None:  # fmt: skip
        assert hasattr(bpy.types, list_type), list_type
        assert prop in data.bl_rna.properties and active_prop in active_data.bl_rna.properties
        self.log.append(("list", prop))

    def operator(self, idname: str, **kwargs: object) -> object:
        module, name = idname.split(".")
        op = getattr(getattr(bpy.ops, module), name)
        props = op.get_rna_type().properties
        self._icon(kwargs)
        self.log.append(("operator", idname))

        class _Props:
            def __setattr__(self, key: str, value: object) -> None:
                assert key in props, f"{idname} has no property {key!r}"

        return _Props()

    def operator_menu_enum(self, idname: str, prop: str, **kwargs: object) -> None:
        module, name = idname.split(".")
        assert prop in getattr(getattr(bpy.ops, module), name).get_rna_type().properties, prop
        self._icon(kwargs)
        self.log.append(("operator", idname))


def draw_panels(extension: ModuleType) -> list[tuple[str, str]]:
    """Draw every Reach panel for the active object into a :class:`Recorder`; return its log
    of ``(kind, text or property name)`` entries in drawing order."""
    log: list = []
    panel_module = extension.panels.reach_panel
    for cls in panel_module.classes:
        if not issubclass(cls, bpy.types.Panel):
            continue
        assert cls.poll(bpy.context)
        fake = type("FakePanel", (), {"layout": Recorder(log)})()
        cls.draw(fake, bpy.context)
    return log
