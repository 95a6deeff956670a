"""Support for the command-line tests (not a test file): a small keyed shot saved to disk, the
commands run in their own process as docs/farm.md documents them, and key comparisons.

Import with ``from tests.blender.farm_support import ...``.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import bpy
import numpy as np

from tests.blender.reach_scenes import fcurves, follow_path

#: Frames of the small shot.
SHOT = 24


def circle(radius: float = 1.2, z: float = 2.0, turns: float = 1.0) -> Any:
    """A target path ``frame -> (x, y, z)``: a circle of ``radius`` at height ``z``."""

    def path(frame: int) -> tuple[float, float, float]:
        a = 2.0 * math.pi * turns * (frame - 1) / SHOT
        return (radius * math.cos(a), radius * math.sin(a), z)

    return path


def save_shot(folder: Path, path: Any = None, name: str = "shot.blend") -> Path:
    """A 3-bone chain whose tip follows a keyed empty over frames 1..:data:`SHOT`, saved as
    ``folder/name``; returns the file's path."""
    follow_path(path or circle(), SHOT)
    blend = folder / name
    bpy.ops.wm.save_as_mainfile(filepath=str(blend))
    return blend


def sha256(path: Path) -> str:
    """The file's SHA-256 (hex)."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def run_command(extension: ModuleType, blend: Path | None, command: str, *args: str,
                ) -> subprocess.CompletedProcess[str]:  # fmt: skip
    """``python -m reach_ik.cli BLEND --command COMMAND ARGS`` in a new process, as
    docs/farm.md documents it: the installed extension's folder on ``PYTHONPATH`` (this
    process's HOME, where the ``extension`` fixture installed it)."""
    repository = Path(extension.__file__).resolve().parent.parent
    env = {**os.environ, "PYTHONPATH": str(repository)}
    cmd = [sys.executable, "-m", "reach_ik.cli"]
    cmd += [str(blend)] if blend is not None else []
    cmd += ["--command", command, *args]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, check=False,
                          cwd=str(repository.parent), timeout=600)  # fmt: skip


def report_of(path: Path) -> dict[str, Any]:
    """A JSON report the commands wrote."""
    return json.loads(path.read_text(encoding="utf-8"))


def open_file(blend: Path) -> None:
    """Open ``blend`` in this process."""
    bpy.ops.wm.open_mainfile(filepath=str(blend))


def key_values(obj: bpy.types.Object) -> dict[tuple[str, int], np.ndarray]:
    """Per channel of the object's action, its keys as an (n, 2) array of (frame, value)."""
    out = {}
    for f in fcurves(obj):
        co = np.empty(2 * len(f.keyframe_points), dtype=np.float32)
        f.keyframe_points.foreach_get("co", co)
        out[(f.data_path, f.array_index)] = co.reshape(-1, 2).astype(float)
    return out


def rotation_keys(obj: bpy.types.Object) -> dict[tuple[str, int], np.ndarray]:
    """:func:`key_values` of the rotation channels only."""
    return {k: v for k, v in key_values(obj).items() if ".rotation_" in k[0]}
