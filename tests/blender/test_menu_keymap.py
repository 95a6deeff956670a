"""The conventions of a Blender add-on: Pose › Reach menu, keymap, preferences, poll messages,
and one registration after Reload Scripts."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import types
from pathlib import Path
from types import ModuleType

import bpy
import pytest

from tests.blender.panel_draw import Recorder
from tests.blender.reach_scenes import activate, add_constraint, add_empty, make_chain

MODULE = "bl_ext.user_default.reach_ik"


class _MenuLayout:
    """A stand-in ``UILayout`` for menus: records operators and properties, checks they exist."""

    def __init__(self) -> None:
        self.operators: list[tuple[str, dict[str, object]]] = []
        self.props: list[str] = []

    def separator(self) -> None:
        pass

    def prop(self, data: bpy.types.bpy_struct, name: str, **_kw: object) -> None:
        assert name in data.bl_rna.properties, name
        self.props.append(name)

    def operator(self, idname: str, **_kw: object) -> object:
        module, name = idname.split(".")
        rna = getattr(getattr(bpy.ops, module), name).get_rna_type()
        props: dict[str, object] = {}
        self.operators.append((idname, props))

        class _Props:
            def __setattr__(self, key: str, value: object) -> None:
                assert key in rna.properties, f"{idname} has no property {key!r}"
                props[key] = value

        return _Props()

    def operator_menu_enum(self, idname: str, prop: str, **_kw: object) -> None:
        module, name = idname.split(".")
        assert prop in getattr(getattr(bpy.ops, module), name).get_rna_type().properties
        self.operators.append((idname, {prop: "*"}))


def _reach_operators() -> set[str]:
    return {f"reach.{name}" for name in dir(bpy.ops.reach)}


def test_pose_menu_has_every_operator_once(clean_scene: bpy.types.Scene) -> None:
    obj = make_chain()
    activate(obj)
    mine = [
        f for f in bpy.types.VIEW3D_MT_pose._dyn_ui_initialize() if f.__module__.startswith(MODULE)
    ]
    assert len(mine) == 1, mine  # appended to Pose once
    menu = bpy.types.REACH_MT_pose
    layout = _MenuLayout()
    menu.draw(type("FakeMenu", (), {"layout": layout})(), bpy.context)
    listed = {idname for idname, _props in layout.operators}
    assert listed == _reach_operators()
    assert ("reach.solve", {"insert_keys": True}) in layout.operators
    assert ("reach.bake", {"target": "*"}) in layout.operators
    assert "show_overlay" in layout.props


def _default_keys() -> dict[tuple[str, bool, bool, bool], list[str]]:
    """(key, shift, ctrl, alt) -> operators bound to it in Blender's default keymaps that are
    active in the 3D View in pose mode, from this Blender's own keymap data."""
    path = Path(bpy.utils.system_resource("SCRIPTS"), "presets", "keyconfig", "keymap_data",
                "blender_default.py")  # fmt: skip
    spec = importlib.util.spec_from_file_location("reach_test_blender_default", path)
    assert spec is not None and spec.loader is not None
    default = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(default)
    active = {"Window", "Screen", "Frames", "Animation", "Object Non-modal", "3D View Generic",
              "3D View", "Pose"}  # fmt: skip
    used: dict[tuple[str, bool, bool, bool], list[str]] = {}
    for name, _args, data in default.generate_keymaps(default.Params()):
        if name not in active:
            continue
        for idname, event, _props in data["items"]:
            if event.get("any"):
                combos = [(s, c, a) for s in (0, 1) for c in (0, 1) for a in (0, 1)]
            else:
                combos = [(event.get("shift", 0), event.get("ctrl", 0), event.get("alt", 0))]
            for s, c, a in combos:
                used.setdefault((event["type"], bool(s), bool(c), bool(a)), []).append(idname)
    return used


def test_shortcuts_are_free_in_blenders_pose_keymap(
    clean_scene: bpy.types.Scene, extension: ModuleType
) -> None:
    keymap = extension.operators.keymap
    used = _default_keys()
    assert "transform.rotate" in used[("R", False, False, False)]  # the data was read
    for shortcut in keymap.SHORTCUTS:
        combo = (shortcut.key, shortcut.shift, shortcut.ctrl, shortcut.alt)
        assert combo not in used, f"{shortcut.idname} would steal {combo}: {used.get(combo)}"
    items = [
        item
        for item in bpy.context.window_manager.keyconfigs.addon.keymaps["Pose"].keymap_items
        if item.idname == "reach.solve"
    ]
    assert len(items) == 1
    item = items[0]
    assert (item.type, item.shift, item.ctrl, item.alt) == ("R", True, True, False)
    assert item.properties.insert_keys is False


@pytest.fixture
def prefs(extension: ModuleType) -> object:
    """Reach's preferences, put back to their defaults afterwards."""
    prefs = extension.props.preferences.preferences()
    assert prefs is not None
    yield prefs
    for name in ("method", "tolerance", "angle_tolerance", "time_budget"):
        prefs.property_unset(name)
    prefs.category = "Reach"  # through its update: the panels move back


def test_preferences_give_new_rigs_their_defaults(
    clean_scene: bpy.types.Scene, extension: ModuleType, prefs: object
) -> None:
    prefs.method, prefs.tolerance, prefs.angle_tolerance = "bfgs", 1e-3, 0.5
    target = add_empty("T", (1.0, 0.0, 2.0))
    fresh = make_chain("Fresh")
    add_constraint(fresh, "b2", target, "POSITION")
    settings = fresh.reach_ik
    assert (settings.method, settings.angle_tolerance) == ("bfgs", 0.5)
    assert settings.tolerance == pytest.approx(1e-3)
    edited = make_chain("Edited")
    edited.reach_ik.tolerance = 2e-6  # the user's own value is kept
    add_constraint(edited, "b2", target, "POSITION")
    assert edited.reach_ik.tolerance == pytest.approx(2e-6)
    assert edited.reach_ik.method == "bfgs"
    prefs.tolerance = 1e-2  # changing the preferences later leaves existing rigs alone
    add_constraint(fresh, "b1", target, "POSITION")
    assert settings.tolerance == pytest.approx(1e-3)


def test_preferences_tab_name_and_live_budget(
    clean_scene: bpy.types.Scene, extension: ModuleType, prefs: object
) -> None:
    panels = [
        cls for cls in extension.panels.reach_panel.classes if issubclass(cls, bpy.types.Panel)
    ]
    assert {cls.bl_category for cls in panels} == {"Reach"}
    prefs.category = "Animation"
    assert {cls.bl_category for cls in panels} == {"Animation"}
    assert all(cls.is_registered for cls in panels)
    assert bpy.types.REACH_PT_main.bl_category == "Animation"
    prefs.category = "Reach"
    assert bpy.types.REACH_PT_main.bl_category == "Reach"
    assert extension.props.preferences.live_time_budget() == pytest.approx(0.016)
    prefs.time_budget = 40.0
    assert extension.props.preferences.live_time_budget() == pytest.approx(0.040)


def test_preferences_draw_every_setting_and_the_keys(extension: ModuleType, prefs: object) -> None:
    bpy.context.window_manager.keyconfigs.update()  # add-on keys into the user's keymaps
    log: list = []
    fake = types.SimpleNamespace(layout=Recorder(log), bl_rna=prefs.bl_rna)
    type(prefs).draw(fake, bpy.context)
    drawn = {name for kind, name in log if kind == "prop"}
    settable = {p.identifier for p in prefs.bl_rna.properties if p.identifier != "rna_type"}
    assert settable - {"bl_idname"} <= drawn
    names = {bpy.types.REACH_OT_solve.bl_label, "Context Toggle"}
    assert names <= {text for kind, text in log if kind == "label"}  # Solve's and Live's keys
    assert [name for kind, name in log if kind == "prop"].count("type") == 2  # their events


NEEDS_CONSTRAINTS = {
    "solve": lambda: bpy.ops.reach.solve(),
    "bake": lambda: bpy.ops.reach.bake(),
    "clear keys": lambda: bpy.ops.reach.clear_keys(),
    "remove": lambda: bpy.ops.reach.constraint_remove(),
    "move": lambda: bpy.ops.reach.constraint_move(direction="DOWN"),
}
NEEDS_ARMATURE = {
    **NEEDS_CONSTRAINTS,
    "add": lambda: bpy.ops.reach.constraint_add(),
    "pin": lambda: bpy.ops.reach.pin(),
    "convert": lambda: bpy.ops.reach.convert_ik(),
}


@pytest.mark.parametrize("operator", NEEDS_ARMATURE, ids=list(NEEDS_ARMATURE))
def test_poll_message_without_an_armature(clean_scene: bpy.types.Scene, operator: str) -> None:
    add_empty("Not an armature", (0.0, 0.0, 0.0))
    bpy.context.view_layer.objects.active = bpy.data.objects["Not an armature"]
    with pytest.raises(RuntimeError, match=r"poll\(\) Select an armature \(active object\)"):
        NEEDS_ARMATURE[operator]()


@pytest.mark.parametrize("operator", NEEDS_CONSTRAINTS, ids=list(NEEDS_CONSTRAINTS))
def test_poll_message_without_constraints(clean_scene: bpy.types.Scene, operator: str) -> None:
    activate(make_chain())
    with pytest.raises(RuntimeError, match=r"poll\(\) Add a Reach constraint first"):
        NEEDS_CONSTRAINTS[operator]()


# Runs in a fresh interpreter: Reload Scripts re-imports add-ons, which must not disturb the
# other tests' module objects.
_RELOAD_SCRIPT = r"""
import json, os, sys
import bpy

MODULE = "bl_ext.user_default.reach_ik"
draw_handlers = []
_add, _remove = bpy.types.SpaceView3D.draw_handler_add, bpy.types.SpaceView3D.draw_handler_remove


def add(*args, **kwargs):
    handle = _add(*args, **kwargs)
    draw_handlers.append(handle)
    return handle


def remove(handle, region):
    _remove(handle, region)
    draw_handlers.remove(handle)


bpy.types.SpaceView3D.draw_handler_add = add
bpy.types.SpaceView3D.draw_handler_remove = remove


def count():
    mine = lambda f: getattr(f, "__module__", "").startswith(MODULE)
    handlers = sorted(
        f"{attr}.{f.__name__}"
        for attr in dir(bpy.app.handlers)
        if isinstance(getattr(bpy.app.handlers, attr), list)
        for f in getattr(bpy.app.handlers, attr) if mine(f)
    )
    keymaps = bpy.context.window_manager.keyconfigs.addon.keymaps
    keys = sorted(
        i.idname for km in keymaps for i in km.keymap_items
        if "reach" in i.idname or "reach_ik" in str(getattr(i.properties, "data_path", ""))
    )
    menus = [f.__name__ for f in bpy.types.VIEW3D_MT_pose._dyn_ui_initialize() if mine(f)]
    return {"handlers": handlers, "keys": keys, "menus": menus, "draw_handlers": len(draw_handlers)}


bpy.ops.extensions.package_install_files(
    filepath=sys.argv[1], repo="user_default", enable_on_install=True
)
states = [count()]
for _ in range(2):
    assert bpy.ops.script.reload() == {"FINISHED"}
    states.append(count())
print("RESULT" + json.dumps(states), flush=True)
os._exit(0)  # bpy 4.2 may crash in its exit handlers after a reload; the result is out
"""


def test_reload_scripts_leaves_one_registration(extension_zip: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("BLENDER_USER_")}
    env |= {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")}
    proc = subprocess.run([sys.executable, "-c", _RELOAD_SCRIPT, str(extension_zip)],
                          capture_output=True, text=True, env=env, cwd=tmp_path, check=False,
                          timeout=600)  # fmt: skip
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0 and "Traceback" not in output, output
    lines = [line for line in proc.stdout.splitlines() if line.startswith("RESULT")]
    assert len(lines) == 1, output
    first, *reloaded = json.loads(lines[0].removeprefix("RESULT"))
    assert first["keys"] == ["reach.solve", "wm.context_toggle"]  # Solve, Live
    assert first["menus"] == ["draw_in_pose_menu"]
    assert first["draw_handlers"] == 1
    assert len(first["handlers"]) == len(set(first["handlers"])) >= 1
    for state in reloaded:
        assert state == first


def test_live_switch_in_the_menu_and_on_shift_alt_r(
    clean_scene: bpy.types.Scene, extension: ModuleType
) -> None:
    pose = bpy.context.window_manager.keyconfigs.addon.keymaps["Pose"]
    (item,) = [i for i in pose.keymap_items if i.idname == "wm.context_toggle"]
    assert (item.type, item.shift, item.ctrl, item.alt) == ("R", True, False, True)
    obj = make_chain()
    add_constraint(obj, "b2", add_empty("T", (1.0, 0.0, 2.0)), "POSITION")
    activate(obj)
    assert bpy.ops.wm.context_toggle(data_path=item.properties.data_path) == {"FINISHED"}
    assert obj.reach_ik.live
    assert bpy.ops.wm.context_toggle(data_path=item.properties.data_path) == {"FINISHED"}
    assert not obj.reach_ik.live
    layout = _MenuLayout()
    bpy.types.REACH_MT_pose.draw(type("FakeMenu", (), {"layout": layout})(), bpy.context)
    assert layout.props == ["live", "show_overlay"]
