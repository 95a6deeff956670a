"""Build the extension zip with Blender's own builder, from the ``bpy`` wheel.

Run as ``.venv/bin/python -m examples.extension_zip [output folder]`` (``make zip`` writes
``dist/reach_ik-<version>.zip``). It runs ``blender_ext.py build`` — the tool behind
``blender --command extension build`` — that ships inside the installed ``bpy`` wheel, so no
Blender install is needed; :mod:`examples.blender_demo` builds its zip the same way.
"""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]


def build(output_dir: Path) -> Path:
    """Build the zip from the repository root into ``output_dir`` (created if missing) and
    return its path; raises ``subprocess.CalledProcessError`` with the builder's output."""
    import bpy

    tool = (
        Path(bpy.utils.system_resource("SCRIPTS")) / "addons_core" / "bl_pkg" / "cli"
        / "blender_ext.py"
    )  # fmt: skip
    manifest = tomllib.loads((REPO_ROOT / "blender_manifest.toml").read_text())
    output_dir.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [sys.executable, str(tool), "build", "--source-dir", str(REPO_ROOT), "--output-dir",
         str(output_dir)],
        check=True, capture_output=True, text=True,
    )  # fmt: skip
    zip_path = output_dir / f"{manifest['id']}-{manifest['version']}.zip"
    assert zip_path.is_file(), f"the builder wrote no {zip_path}"
    return zip_path


if __name__ == "__main__":
    print(build(Path(sys.argv[1] if len(sys.argv) > 1 else REPO_ROOT / "dist")))
