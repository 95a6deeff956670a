"""The extension builds, validates, installs and unregisters cleanly; the fixtures work."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path
from types import ModuleType

import bpy
import numpy as np

EXCLUDED_TOP_LEVEL = ("tests", "bench", "examples", ".venv", ".venv-bpy42", ".git", ".ci")
EXCLUDED_FILES = ("Makefile", "pyproject.toml")


def _zip_names(path: Path) -> list[str]:
    with zipfile.ZipFile(path) as archive:
        return archive.namelist()


def test_zip_holds_the_package_and_nothing_else(extension_zip: Path) -> None:
    names = _zip_names(extension_zip)
    assert "blender_manifest.toml" in names
    assert "__init__.py" in names
    assert any(name.startswith("solver/") for name in names)
    for name in names:
        top = name.split("/", 1)[0]
        assert top not in EXCLUDED_TOP_LEVEL, f"{name} should not be packaged"
        assert name not in EXCLUDED_FILES, f"{name} should not be packaged"
        assert "__pycache__" not in name and not name.endswith(".pyc"), name
        assert not top.startswith("."), f"hidden path {name} packaged"


def test_installed_module_comes_from_the_zip(extension: ModuleType, extension_zip: Path) -> None:
    root = Path(extension.__file__).parent
    packaged_py = {name for name in _zip_names(extension_zip) if name.endswith(".py")}
    installed_py = {
        path.relative_to(root).as_posix()
        for path in root.rglob("*.py")
        if "__pycache__" not in path.parts
    }
    assert packaged_py == installed_py
    assert extension.__name__ == "bl_ext.user_default.reach_ik"
    assert extension.__name__ in bpy.context.preferences.addons


# Runs in a fresh interpreter, so the baseline is Blender before the extension ever
# registered anything (other tests enable Rigify, which registers much of its own).
_CYCLE_SCRIPT = r"""
import json, sys
import bpy
import addon_utils

MODULE = "bl_ext.user_default.reach_ik"


def state():
    props = {}
    for name in dir(bpy.types):
        rna = getattr(getattr(bpy.types, name, None), "bl_rna", None)
        if rna is not None:
            props[name] = sorted(p.identifier for p in rna.properties)
    handlers = sorted(
        f"{attr}: {h.__module__}.{getattr(h, '__qualname__', h)}"
        for attr in dir(bpy.app.handlers)
        if isinstance(getattr(bpy.app.handlers, attr), list)
        for h in getattr(bpy.app.handlers, attr)
    )
    return {"types": sorted(dir(bpy.types)), "props": props, "handlers": handlers}


def own_classes():
    found = set()
    for name, module in list(sys.modules.items()):
        if module is None or not (name == MODULE or name.startswith(MODULE + ".")):
            continue
        for value in vars(module).values():
            if isinstance(value, type) and issubclass(value, bpy.types.bpy_struct):
                if value.__module__.startswith(MODULE):
                    found.add(value)
    return found


pristine = state()
result = bpy.ops.extensions.package_install_files(
    filepath=sys.argv[1], repo="user_default", enable_on_install=True
)
cycles = []
for _ in range(3):
    enabled = addon_utils.check(MODULE)[1]
    registered = state()
    bpy.ops.preferences.addon_disable(module=MODULE)
    cycles.append({
        "enabled": enabled,
        "registered": registered,
        "disabled": not addon_utils.check(MODULE)[1],
        "after": state(),
        "classes_still_registered": sorted(
            c.__qualname__ for c in own_classes() if getattr(c, "is_registered", False)
        ),
    })
    bpy.ops.preferences.addon_enable(module=MODULE)
print("RESULT" + json.dumps({"install": sorted(result), "pristine": pristine, "cycles": cycles}))
"""


def _difference(before: dict, after: dict) -> dict[str, list[str]]:
    """What ``after`` holds beyond ``before`` (types, per-type properties, handlers)."""
    extra: dict[str, list[str]] = {}
    new_types = sorted(set(after["types"]) - set(before["types"]))
    if new_types:
        extra["types"] = new_types
    for name, props in after["props"].items():
        new_props = sorted(set(props) - set(before["props"].get(name, [])))
        if new_props:
            extra[f"{name} properties"] = new_props
    new_handlers = sorted(set(after["handlers"]) - set(before["handlers"]))
    if new_handlers:
        extra["handlers"] = new_handlers
    return extra


def test_enable_disable_three_times_leaves_nothing(extension_zip: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("BLENDER_USER_")}
    env |= {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")}
    proc = subprocess.run(
        [sys.executable, "-c", _CYCLE_SCRIPT, str(extension_zip)],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        check=False,
        timeout=600,
    )
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output
    assert "Traceback" not in output, output
    lines = [line for line in proc.stdout.splitlines() if line.startswith("RESULT")]
    assert len(lines) == 1, output
    report = json.loads(lines[0].removeprefix("RESULT"))
    assert report["install"] == ["FINISHED"]
    pristine = report["pristine"]
    assert not [n for n in pristine["types"] if n.lower().startswith("reach")]
    for k, cycle in enumerate(report["cycles"]):
        assert cycle["enabled"], f"cycle {k}: extension not enabled"
        assert cycle["disabled"], f"cycle {k}: extension still enabled after addon_disable"
        assert _difference(cycle["registered"], pristine) == {}, f"cycle {k}: enable removed"
        leftovers = _difference(pristine, cycle["after"])
        assert leftovers == {}, f"cycle {k}: left registered after disabling: {leftovers}"
        reach_types = [n for n in cycle["after"]["types"] if n.lower().startswith("reach")]
        assert not reach_types, reach_types
        assert not cycle["classes_still_registered"], cycle["classes_still_registered"]


def test_loading_an_empty_file_keeps_the_extension_enabled(
    clean_scene: bpy.types.Scene, blender_helpers: ModuleType
) -> None:
    bpy.ops.mesh.primitive_cube_add()
    assert len(bpy.data.objects) == 1
    scene = blender_helpers.load_empty_file()
    assert len(bpy.data.objects) == 0 and len(bpy.data.meshes) == 0
    assert scene == bpy.context.scene
    assert blender_helpers.extension_enabled()


def test_rigify_metarig_can_be_keyed_and_read_back(
    rigify_metarig: bpy.types.Object, blender_helpers: ModuleType
) -> None:
    assert "upper_arm.L" in rigify_metarig.pose.bones
    bone = rigify_metarig.pose.bones["upper_arm.L"]
    bone.rotation_mode = "XYZ"
    bone.keyframe_insert("rotation_euler", frame=1)
    keyed = {(f.data_path, f.array_index) for f in blender_helpers.action_fcurves(rigify_metarig)}
    assert keyed == {('pose.bones["upper_arm.L"].rotation_euler', i) for i in range(3)}
    head = blender_helpers.world_bone_head(rigify_metarig, "upper_arm.L")
    tail = blender_helpers.world_bone_tail(rigify_metarig, "upper_arm.L")
    matrix = blender_helpers.world_bone_matrix(rigify_metarig, "upper_arm.L")
    length = rigify_metarig.data.bones["upper_arm.L"].length
    np.testing.assert_allclose(matrix[:3, 3], head, atol=1e-6)
    np.testing.assert_allclose(head + length * matrix[:3, 1], tail, atol=1e-5)


def test_pose_bone_selection_helper(
    rigify_metarig: bpy.types.Object, blender_helpers: ModuleType
) -> None:
    bpy.ops.object.mode_set(mode="POSE")
    blender_helpers.select_pose_bones(rigify_metarig, ["hand.L", "hand.R"], active="hand.L")
    assert sorted(b.name for b in bpy.context.selected_pose_bones) == ["hand.L", "hand.R"]
    assert bpy.context.active_pose_bone.name == "hand.L"
    blender_helpers.select_pose_bones(rigify_metarig, [])
    assert not bpy.context.selected_pose_bones


def test_python_errors_collects_exceptions_blender_only_prints(
    empty_file: bpy.types.Scene, python_errors: list[BaseException]
) -> None:
    def failing_handler(scene: bpy.types.Scene, depsgraph: bpy.types.Depsgraph) -> None:
        raise KeyError("raised inside a depsgraph handler")

    bpy.app.handlers.depsgraph_update_post.append(failing_handler)
    try:
        empty = bpy.data.objects.new("probe", None)
        empty_file.collection.objects.link(empty)
        bpy.context.view_layer.update()  # Blender prints the KeyError and carries on
    finally:
        bpy.app.handlers.depsgraph_update_post.remove(failing_handler)
    assert [type(error) for error in python_errors] == [KeyError]
    python_errors.clear()
