"""Fixtures for tests that run inside real (headless) Blender through the ``bpy`` wheel.

Everything under ``tests/blender/`` runs three times by ``make test``: with ``bpy`` 5.0 in
``.venv``, with ``bpy`` 4.2 LTS in ``.venv-bpy42`` and with 4.5 LTS in ``.venv-bpy45``; the
smoke set (``test_versions_smoke.py``, ``test_compat.py``) runs on 4.3 and 4.4 too.
Importing this module sets ``HOME`` and ``XDG_CONFIG_HOME`` to a throw-away temporary
folder (and clears any ``BLENDER_USER_*`` overrides) *before* ``bpy`` is imported, so the
tests never read or write a real Blender configuration.

Fixtures
--------
``extension`` (session scope)
    Builds the extension zip from the repository root with the ``blender_ext.py`` tool that
    ships inside the installed ``bpy`` wheel (``build`` then ``validate``), installs it with
    ``bpy.ops.extensions.package_install_files(repo="user_default", enable_on_install=True)``
    and returns the imported module ``bl_ext.user_default.reach_ik`` (the repository's
    ``__init__.py``; its sub-packages are ``<module>.operators``, ``<module>.solver`` ...).
    The path of the built zip is ``extension_zip`` (session fixture, a ``pathlib.Path``).
    The installed copy is the one under test, not the checkout: use ``extension.solver``
    rather than the top-level ``solver`` package when passing solver objects to it.

``clean_scene`` (function scope, depends on ``extension``)
    Empties the file with ``bpy.ops.wm.read_homefile(use_empty=True)`` (no objects,
    meshes, armatures, actions, collections; every enabled add-on, the extension and
    Rigify included, stays enabled, which is checked) and yields ``bpy.context.scene``:
    frame 1, object mode, nothing selected or active. Tests create what they need through
    ``bpy.data`` / ``bpy.ops``. (``read_factory_settings`` would disable the extension.)

``empty_file`` (function scope)
    The same empty file as ``clean_scene`` without building or installing the extension,
    for tests of Blender itself (the benchmark peer) that must not depend on the extension.

``rigify_metarig`` (function scope, depends on ``clean_scene``)
    Enables the bundled Rigify add-on, adds its human metarig
    (``bpy.ops.object.armature_human_metarig_add()``) and returns the armature object
    (``bpy.types.Object`` of type ``'ARMATURE'``), active and selected, in object mode.

``python_errors`` (function scope, autouse: applies to every test here)
    A list that collects every exception Blender prints instead of raising: errors in
    handlers (``bpy.app.handlers``), timers, draw callbacks, property update callbacks and
    operators. A test whose list is not empty at teardown fails there, with the printed
    tracebacks. A test that makes Blender print an exception on purpose requests the
    fixture, checks the list and clears it.

``blender_helpers`` (session scope)
    This module, for the plain helper functions below.

Helpers
-------
Import them with ``from tests.blender.conftest import run_op, world_bone_tail`` (pytest's
importlib mode names this module ``tests.blender.conftest``; relative imports do not work)
or reach them through the ``blender_helpers`` fixture.

``run_op(op, *args, **kwargs)``
    Calls an operator (``run_op(bpy.ops.reach.solve, frame=3)``) and raises
    ``AssertionError`` unless it returns ``{'FINISHED'}``.
``enable_rigify()``
    Enables the bundled Rigify add-on (idempotent).
``world_bone_head(obj, name)`` / ``world_bone_tail(obj, name)``
    Evaluated world position (numpy ``(3,)``) of a pose bone's head / tail.
``world_bone_matrix(obj, name)``
    Evaluated world transform (numpy ``(4, 4)``) of a pose bone; columns 0-2 are the
    bone's local X, Y (along the bone) and Z axes in world coordinates.
``action_fcurves(obj)``
    The F-curves of ``obj``'s action on both Blender versions: 4.2 has
    ``action.fcurves``; 5.0 has only layered actions (``action.layers`` ->
    strip -> channelbag of ``obj.animation_data.action_slot`` -> ``fcurves``).
``select_pose_bones(obj, names, active=None)``
    Selects exactly those pose bones on both versions (4.2: ``Bone.select``; 5.0:
    ``PoseBone.select``, ``Bone.select`` is gone); ``bpy.context.selected_pose_bones``
    then lists them in pose mode.
``load_empty_file()``
    What ``empty_file`` does, callable mid-test.

Context: in ``bpy`` there is a window and a screen but no area or region
(``bpy.context.area is None``); operators whose poll needs a 3D viewport fail with
``RuntimeError``. Set ``bpy.context.view_layer.objects.active`` and use
``bpy.ops.object.mode_set(mode="POSE")``; ``bpy.context.temp_override(...)`` for more.

Reading poses: after ``bpy.context.view_layer.update()`` the original
``obj.pose.bones[name].matrix`` / ``.head`` / ``.tail`` (armature space) already hold the
evaluated pose, constraints and IK included; multiply by ``obj.matrix_world`` for world
space. Values are float32: compare with tolerances around 1e-6, not 1e-12.

Process exit
------------
bpy 4.2 segfaults at interpreter exit once Rigify has been enabled, bpy 4.5 can hang there
(after a Reload Scripts); under bpy < 5.0 this
module ends the pytest process with ``os._exit(<pytest's exit status>)`` after all
reporting is done (``pytest_unconfigure``), so failures still fail and passes still pass.

Operator failures
-----------------
Called from Python, an operator that raises or that reports ``{'ERROR'}`` raises
``RuntimeError`` (the test fails). An operator that returns ``{'CANCELLED'}`` without an
error report, or reports only a warning, returns normally: call it through ``run_op``.
Panels are never drawn in background mode, so ``draw()`` errors stay invisible unless a
test calls the draw code itself. Exceptions in handlers and timers are only printed:
``python_errors`` turns them into test failures.
"""

from __future__ import annotations

import atexit
import importlib
import os
import shutil
import subprocess
import sys
import tempfile
import traceback
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

_HOME = Path(tempfile.mkdtemp(prefix="reach-ik-blender-home-"))
os.environ["HOME"] = str(_HOME)
os.environ["XDG_CONFIG_HOME"] = str(_HOME / ".config")
for _name in list(os.environ):
    if _name.startswith("BLENDER_USER_"):
        del os.environ[_name]
atexit.register(shutil.rmtree, _HOME, ignore_errors=True)

import bpy  # noqa: E402  (after HOME is set)

addon_utils = importlib.import_module("addon_utils")  # Blender's; importable once bpy is

REPO_ROOT = Path(__file__).resolve().parents[2]
EXTENSION_ID = "reach_ik"
EXTENSION_MODULE = f"bl_ext.user_default.{EXTENSION_ID}"


def blender_ext_tool() -> Path:
    """Path of the ``blender_ext.py`` command-line tool inside the installed bpy wheel."""
    scripts = Path(bpy.utils.system_resource("SCRIPTS"))
    tool = scripts / "addons_core" / "bl_pkg" / "cli" / "blender_ext.py"
    assert tool.is_file(), f"blender_ext.py not found at {tool}"
    return tool


def run_blender_ext(*args: str) -> str:
    """Run ``blender_ext.py`` with this interpreter; return its output, fail on error."""
    cmd = [sys.executable, str(blender_ext_tool()), *args]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, f"{' '.join(cmd)} failed ({proc.returncode}):\n{output}"
    return output


def run_op(op: Callable[..., set[str]], *args: Any, **kwargs: Any) -> set[str]:
    """Call operator ``op``; fail unless it returns ``{'FINISHED'}``."""
    result = op(*args, **kwargs)
    assert result == {"FINISHED"}, f"{op.idname_py()} returned {result}"
    return result


def enable_rigify() -> None:
    """Enable the Rigify add-on bundled with Blender (no-op when already enabled)."""
    if not addon_utils.check("rigify")[1]:
        addon_utils.enable("rigify", default_set=True)
    assert addon_utils.check("rigify")[1], "Rigify could not be enabled"


def world_bone_matrix(obj: bpy.types.Object, name: str) -> np.ndarray:
    """Evaluated world transform, (4, 4), of pose bone ``name`` of armature ``obj``."""
    depsgraph = bpy.context.evaluated_depsgraph_get()
    evaluated = obj.evaluated_get(depsgraph)
    return np.array(evaluated.matrix_world @ evaluated.pose.bones[name].matrix)


def world_bone_head(obj: bpy.types.Object, name: str) -> np.ndarray:
    """Evaluated world position, (3,) scene units, of the head of pose bone ``name``."""
    depsgraph = bpy.context.evaluated_depsgraph_get()
    evaluated = obj.evaluated_get(depsgraph)
    return np.array(evaluated.matrix_world @ evaluated.pose.bones[name].head)


def world_bone_tail(obj: bpy.types.Object, name: str) -> np.ndarray:
    """Evaluated world position, (3,) scene units, of the tail of pose bone ``name``."""
    depsgraph = bpy.context.evaluated_depsgraph_get()
    evaluated = obj.evaluated_get(depsgraph)
    return np.array(evaluated.matrix_world @ evaluated.pose.bones[name].tail)


def action_fcurves(obj: bpy.types.Object) -> list[bpy.types.FCurve]:
    """F-curves of ``obj``'s active action (legacy or layered); [] without an action."""
    animation = obj.animation_data
    if animation is None or animation.action is None:
        return []
    action = animation.action
    anim_utils = importlib.import_module("bpy_extras.anim_utils")
    if hasattr(anim_utils, "action_get_channelbag_for_slot"):  # layered actions (4.4+)
        channelbag = anim_utils.action_get_channelbag_for_slot(action, animation.action_slot)
        return [] if channelbag is None else list(channelbag.fcurves)
    return list(action.fcurves)


def select_pose_bones(
    obj: bpy.types.Object, names: Iterable[str], active: str | None = None
) -> None:
    """Select exactly the pose bones ``names`` of ``obj`` (and make ``active`` active).

    Bone selection lives on ``Bone.select`` in 4.2 and on ``PoseBone.select`` in 5.0.
    """
    wanted = set(names)
    unknown = wanted - set(obj.pose.bones.keys())
    assert not unknown, f"no such pose bones: {sorted(unknown)}"
    for pose_bone in obj.pose.bones:
        holder = pose_bone if hasattr(pose_bone, "select") else pose_bone.bone
        holder.select = pose_bone.name in wanted
    if active is not None:
        obj.data.bones.active = obj.data.bones[active]


def extension_enabled() -> bool:
    """Whether the installed extension is enabled (registered) right now."""
    return addon_utils.check(EXTENSION_MODULE)[1]


# bpy 4.2 crashes (SIGSEGV in SpaceType's destructor, bpy_class_free after Python has
# finalised) when the process exits after Rigify was enabled, even once it is disabled
# again; bpy 5.0 exits cleanly. Under 4.2 the session therefore ends with os._exit and
# pytest's own exit status, after every other plugin has finished.
_EXIT_STATUS: list[int] = []


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Remember the session's exit status for :func:`pytest_unconfigure`."""
    _EXIT_STATUS.append(int(exitstatus))


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    """Under bpy < 5.0, leave with pytest's exit status before C-level exit handlers run."""
    if bpy.app.version >= (5, 0, 0) or not _EXIT_STATUS:
        return
    sys.stdout.flush()
    sys.stderr.flush()
    shutil.rmtree(_HOME, ignore_errors=True)
    os._exit(_EXIT_STATUS[-1])


@pytest.fixture(scope="session")
def blender_helpers() -> ModuleType:
    """This module, for its helper functions."""
    return sys.modules[__name__]


@pytest.fixture(scope="session")
def extension_zip(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Build and validate the extension zip from the checkout; return its path."""
    out = tmp_path_factory.mktemp("extension-build")
    run_blender_ext("build", "--source-dir", str(REPO_ROOT), "--output-dir", str(out))
    zips = sorted(out.glob("*.zip"))
    assert len(zips) == 1, f"expected one zip in {out}, found {zips}"
    run_blender_ext("validate", str(zips[0]))
    return zips[0]


@pytest.fixture(scope="session")
def extension(extension_zip: Path) -> ModuleType:
    """Install and enable the built extension; return ``bl_ext.user_default.reach_ik``."""
    user_extensions = Path(bpy.utils.user_resource("EXTENSIONS"))
    assert _HOME in user_extensions.parents, (
        f"bpy was imported before conftest set HOME: extensions go to {user_extensions}"
    )
    run_op(
        bpy.ops.extensions.package_install_files,
        filepath=str(extension_zip),
        repo="user_default",
        enable_on_install=True,
    )
    assert extension_enabled(), f"{EXTENSION_MODULE} is not enabled after installation"
    module = importlib.import_module(EXTENSION_MODULE)
    assert Path(module.__file__).resolve().is_relative_to(user_extensions.resolve())
    return module


def load_empty_file() -> bpy.types.Scene:
    """Replace the open file by an empty one (add-ons stay enabled); return its scene."""
    enabled_before = {addon.module for addon in bpy.context.preferences.addons}
    run_op(bpy.ops.wm.read_homefile, use_empty=True)
    enabled_after = {addon.module for addon in bpy.context.preferences.addons}
    assert enabled_after == enabled_before, f"add-ons changed: {enabled_before ^ enabled_after}"
    assert len(bpy.data.objects) == 0 and len(bpy.data.scenes) == 1
    scene = bpy.context.scene
    scene.frame_set(1)
    assert bpy.context.mode == "OBJECT"
    return scene


@pytest.fixture
def empty_file() -> Iterator[bpy.types.Scene]:
    """Empty file without requiring the extension; yields the scene."""
    yield load_empty_file()


@pytest.fixture
def clean_scene(extension: ModuleType) -> Iterator[bpy.types.Scene]:
    """Empty file with the extension still enabled; yields the scene."""
    scene = load_empty_file()
    assert extension_enabled(), "the extension was disabled by loading an empty file"
    yield scene


@pytest.fixture
def rigify_metarig(clean_scene: bpy.types.Scene) -> bpy.types.Object:
    """Rigify's human metarig in the clean scene: active, selected, object mode."""
    enable_rigify()
    run_op(bpy.ops.object.armature_human_metarig_add)
    obj = bpy.context.active_object
    assert obj is not None and obj.type == "ARMATURE", f"metarig not created: {obj}"
    assert obj.select_get() and bpy.context.mode == "OBJECT"
    return obj


@pytest.fixture(autouse=True)
def python_errors() -> Iterator[list[BaseException]]:
    """Exceptions Blender prints (handlers, timers, operators) while the test runs.

    Applied to every test: the test fails at teardown when the list is not empty. A test
    that raises on purpose inspects the list and clears it.
    """
    errors: list[BaseException] = []
    previous = sys.excepthook

    def record(kind: type[BaseException], value: BaseException, tb: Any) -> None:
        errors.append(value)
        previous(kind, value, tb)

    sys.excepthook = record
    try:
        yield errors
    finally:
        sys.excepthook = previous
    if errors:
        printed = "".join("".join(traceback.format_exception(error)) for error in errors)
        pytest.fail(f"Blender printed {len(errors)} Python exception(s):\n{printed}")
