"""Shared by the live-posing tests (not a test file): a live chain, the add-on's resume timer
run by hand, and a live budget large enough for any machine load.

Import the fixture into a test module (``from tests.blender.live_support import
room_to_solve``) to apply it there.
"""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import bpy
import numpy as np
import pytest

from tests.blender.conftest import run_op, select_pose_bones, world_bone_tail
from tests.blender.reach_scenes import activate, add_constraint, add_empty, make_chain

TOLERANCE = 1e-4  # scene units: the default tolerance is 1e-5, float32 evaluation on top
REPO_ROOT = Path(__file__).resolve().parents[2]


def live_module(extension: ModuleType) -> ModuleType:
    """The installed extension's ``bridge.live.posing``."""
    return importlib.import_module(f"{extension.__name__}.bridge.live.posing")


def finish(extension: ModuleType, obj: bpy.types.Object) -> None:
    """What the add-on's timer does while a live solve is unfinished (no timers run here)."""
    handlers = importlib.import_module(f"{extension.__name__}.operators.live_handlers")
    for _ in range(50):
        if handlers.resume() is None:
            return
    raise AssertionError(f"the live solve of {obj.name} did not finish in 50 resumes")


def miss(obj: bpy.types.Object, target: bpy.types.Object) -> float:
    """Distance (scene units) from the tail of bone b2 to the target, evaluated."""
    return float(np.linalg.norm(world_bone_tail(obj, "b2") - np.array(target.matrix_world)[:3, 3]))


def rotate_by_transform(name: str = "Reference") -> bpy.types.Object:
    """A new 3-bone chain ``name`` whose bone b1 is rotated by a real ``transform.rotate`` in
    pose mode (Blender's own auto keying applies; bpy 4.2 crashes there in background)."""
    reference = make_chain(name)
    activate(reference)
    run_op(bpy.ops.object.mode_set, mode="POSE")
    select_pose_bones(reference, ["b1"], active="b1")
    area = next(a for a in bpy.context.screen.areas if a.type == "VIEW_3D")
    region = next(r for r in area.regions if r.type == "WINDOW")
    with bpy.context.temp_override(area=area, region=region):
        run_op(bpy.ops.transform.rotate, value=0.3, orient_axis="X")
    return reference


def live_chain(extension: ModuleType) -> tuple[bpy.types.Object, bpy.types.Object, ModuleType]:
    """A 3-bone chain with a position goal on b2's tail, Live switched on and solved;
    returns the armature, the target and the installed ``bridge.live.posing``."""
    obj = make_chain()
    target = add_empty("T", (1.2, 0.3, 1.8))
    add_constraint(obj, "b2", target, "POSITION")
    obj.reach_ik.live = True
    bpy.context.view_layer.update()
    finish(extension, obj)
    return obj, target, live_module(extension)


@pytest.fixture(autouse=True)
def room_to_solve(extension: ModuleType) -> Iterator[None]:
    """A 1 s live budget (the preference): every live update finishes its solve, whatever
    the machine's load (stopping early is tested with the iteration limit, which does not
    depend on the clock, and with budgets passed to the bridge directly)."""
    prefs = importlib.import_module(f"{extension.__name__}.props.preferences").preferences()
    budget = prefs.time_budget
    prefs.time_budget = 1000.0
    yield
    prefs.time_budget = budget


def run_in_blender(script: str, extension_zip: Path, folder: Path, tag: str) -> str:
    """Run ``script`` in a separate Blender (this interpreter's bpy, a fresh HOME in
    ``folder``) after installing ``extension_zip`` there, for what must not touch this
    process (Reload Scripts replaces the modules the tests hold; a render starts a GPU
    backend). The script sees ``bpy``, the repository on ``sys.path``, and prints one line
    starting with ``tag``; that line is returned (all output when it is missing).

    The child leaves with ``os._exit`` once the script has run (status 1 after printing the
    traceback of an exception): bpy 4.5 hangs in its exit handlers after a Reload Scripts
    (a deadlock in its delayed-close thread), bpy 4.2 may crash there."""
    env = {**os.environ, "HOME": str(folder), "XDG_CONFIG_HOME": str(folder / ".config")}
    path = folder / "script.py"
    path.write_text(
        "import os, sys, traceback, bpy\n"
        f"sys.path.insert(0, {str(REPO_ROOT)!r})\n"
        f"bpy.ops.extensions.package_install_files(filepath={str(extension_zip)!r}, "
        "repo='user_default', enable_on_install=True)\n"
        "try:\n" + textwrap.indent(textwrap.dedent(script), "    ") + "\n"
        "except BaseException:\n    traceback.print_exc()\n    _status = 1\n"
        "else:\n    _status = 0\n"
        "sys.stdout.flush()\nsys.stderr.flush()\nos._exit(_status)\n"
    )
    proc = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, env=env,
                          timeout=600, check=False)  # fmt: skip
    lines = [x for x in proc.stdout.splitlines() if x.startswith(tag)]
    return lines[-1] if lines else proc.stdout + proc.stderr
