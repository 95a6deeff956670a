"""The README's solver snippets run as written: saved as a file and run the way the README
says (the checkout on ``PYTHONPATH``, from another folder)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]


def _python_blocks() -> list[str]:
    """Every fenced ``python`` block of the README, in order."""
    return re.findall(r"```python\n(.*?)```", (REPO_ROOT / "README.md").read_text(), re.S)


def _run(script: str, folder: Path) -> str:
    path = folder / "example.py"
    path.write_text(script)
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    proc = subprocess.run(
        [sys.executable, str(path)], cwd=folder, env=env, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_the_solver_snippet_runs_from_a_file(tmp_path: Path) -> None:
    """The first solver snippet (the arm reaching a grip pose) and the conditioning snippet
    that continues it; the Blender one (``import bpy``) runs only inside Blender."""
    solver_blocks = [b for b in _python_blocks() if "import bpy" not in b]
    assert len(solver_blocks) == 2, solver_blocks
    first, conditioning = solver_blocks
    out = _run(first, tmp_path)
    assert "GOAL_REACHED" in out or "reached" in out.lower(), out
    _run(first + conditioning, tmp_path)
