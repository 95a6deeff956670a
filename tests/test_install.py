"""``pip install`` of the checkout into a fresh virtual environment: the solver alone, as
``reach_ik_solver``, with numpy as its only dependency, loads URDF robots and solves.

The checkout's ``pyproject.toml`` and ``solver/`` (what the build reads) are copied to a
temporary folder first, so the build's own ``build/`` and ``*.egg-info`` never land in the
checkout. Needs PyPI (or pip's cache) for numpy and the pinned setuptools.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]

SCRIPT = """
import sys
import numpy as np
import reach_ik_solver as reach
from reach_ik_solver.model.urdf import load_urdf

for path, tip in zip(sys.argv[1::2], sys.argv[2::2]):
    robot = load_urdf(path)
    lower, upper = robot.coordinate_bounds()
    aim = np.clip(np.random.default_rng(5).uniform(-1.0, 1.0, len(lower)), lower, upper)
    target = robot.forward(aim)[tip]
    result = reach.solve(robot, [reach.Constraint(reach.EndEffector.from_matrix(tip, np.eye(4)),
                                                  reach.PositionOrientationGoal.from_matrix(target))])
    frame = robot.forward(result.x)[tip]
    print(tip, result.status.name, float(np.linalg.norm(frame[:3, 3] - target[:3, 3])),
          float(np.abs(frame[:3, :3] - target[:3, :3]).max()))
try:
    import solver
except ImportError:
    print("no top-level solver")
try:
    import bpy
except ImportError:
    print("no bpy")
"""


def test_pip_install_gives_the_solver_alone(tmp_path: Path) -> None:
    import pybullet_data

    source = tmp_path / "checkout"
    source.mkdir()
    shutil.copy(REPO_ROOT / "pyproject.toml", source)
    shutil.copytree(REPO_ROOT / "solver", source / "solver",
                    ignore=shutil.ignore_patterns("__pycache__"))  # fmt: skip
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    install = subprocess.run([str(python), "-m", "pip", "install", "--quiet", str(source)],
                             capture_output=True, text=True, check=False)  # fmt: skip
    assert install.returncode == 0, install.stderr
    site = subprocess.run([str(python), "-m", "pip", "list", "--format=freeze"],
                          capture_output=True, text=True, check=True).stdout  # fmt: skip
    names = {line.split("==")[0].lower() for line in site.split()}
    assert names - {"pip", "setuptools"} == {"numpy", "reach-ik"}, names
    data = Path(pybullet_data.getDataPath())
    robots = [str(data / "franka_panda" / "panda.urdf"), "panda_hand",
              str(data / "kuka_iiwa" / "model.urdf"), "lbr_iiwa_link_7"]  # fmt: skip
    run = subprocess.run([str(python), "-c", SCRIPT, *robots], cwd=tmp_path,
                         capture_output=True, text=True, check=False)  # fmt: skip
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[-2:] == ["no top-level solver", "no bpy"], lines
    for line in lines[:2]:
        _, status, distance, rotation = line.split()
        assert status == "GOAL_REACHED", line
        assert float(distance) < 1e-6 and float(rotation) < 1e-6, line
    assert [line.split()[0] for line in lines[:2]] == ["panda_hand", "lbr_iiwa_link_7"]
    # The docs page's snippet, as written, beside a copy of the Panda's URDF.
    page = (REPO_ROOT / "docs" / "solver-scripts.md").read_text()
    snippet = re.findall(r"```python\n(.*?)```", page, re.S)[0]  # the Panda's, the first
    shutil.copy(data / "franka_panda" / "panda.urdf", tmp_path)
    (tmp_path / "example.py").write_text(snippet)
    docs = subprocess.run([str(python), "example.py"], cwd=tmp_path, capture_output=True,
                          text=True, check=False)  # fmt: skip
    assert docs.returncode == 0, docs.stderr
    assert "GOAL_REACHED True" in docs.stdout, docs.stdout
    assert float(docs.stdout.split()[-1]) < 1e-6, docs.stdout
