"""The demo's pictures (``examples.demo_render``): Workbench renders the figure and its targets
headless, and the render shows the pose Blender evaluates (low resolution: a quick check).

The render runs in a child process: rendering starts a GPU backend in the process, and the
other tests rely on background Blender having none (``tests/blender/test_overlay.py``).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np

REPO_ROOT = Path(__file__).resolve().parents[2]

CHILD = """
import os
import sys
import numpy as np
from examples.blender_demo import _isolate_blender_home
_isolate_blender_home()
import bpy
import addon_utils
from examples import demo_render

bpy.ops.wm.read_homefile(use_empty=True)
addon_utils.enable("rigify", default_set=True)
bpy.ops.object.armature_human_metarig_add()
rig = bpy.context.active_object
target = bpy.data.objects.new("target", None)
bpy.context.scene.collection.objects.link(target)
target.location = (0.5, -0.4, 1.3)
demo_render.add_figure_mesh(rig)
demo_render.add_target_spheres([target])
demo_render.setup_render(resolution=(60, 80))
out = sys.argv[1]
before = demo_render.render_frame(1, f"{out}/before.png")
rig.pose.bones["spine"].rotation_mode = "XYZ"
rig.pose.bones["spine"].rotation_euler = (0.0, 0.0, 0.8)  # the whole figure turns
after = demo_render.render_frame(1, f"{out}/after.png")
np.save(f"{out}/before.npy", before)
np.save(f"{out}/after.npy", after)
sys.stdout.flush()
os._exit(0)  # bpy 4.2 crashes while tearing down the render's EGL context at exit
"""


def test_render_shows_the_figure_its_target_and_the_pose(tmp_path: Path) -> None:
    subprocess.run([sys.executable, "-c", CHILD, str(tmp_path)], cwd=REPO_ROOT, check=True,
                   capture_output=True, timeout=300)  # fmt: skip
    before, after = np.load(tmp_path / "before.npy"), np.load(tmp_path / "after.npy")
    assert before.shape == (80, 60, 4)
    assert (tmp_path / "after.png").stat().st_size > 0
    drawn = before[..., 3] > 0.5
    assert 0.01 < drawn.mean() < 0.6, drawn.mean()  # something drawn on a clear background
    rgb = before[..., :3]
    orange = drawn & (rgb[..., 0] > rgb[..., 2] + 0.2)  # the target's colour
    grey_blue = drawn & (rgb[..., 2] >= rgb[..., 0] - 0.02)  # the figure's colour
    assert orange.sum() >= 2 and grey_blue.sum() >= 20, (orange.sum(), grey_blue.sum())
    moved = np.abs(after[..., 3] - before[..., 3]) > 0.5
    assert moved.mean() > 0.01, moved.mean()  # the render shows the pose Blender evaluates
