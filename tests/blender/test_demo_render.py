"""The demo's pictures (``examples.demo_render``): Workbench renders the figure and its targets
headless, and the render shows the pose Blender evaluates (low resolution: a quick check)."""

from __future__ import annotations

from pathlib import Path

import bpy
import numpy as np

from tests.blender.conftest import run_op


def _render(frame: int, path: Path) -> np.ndarray:
    from examples import demo_render

    return demo_render.render_frame(frame, path)


def test_render_shows_the_figure_and_its_targets(
    clean_scene: bpy.types.Scene, tmp_path: Path
) -> None:
    from examples import demo_render
    from examples.blender_demo import build_scene

    rig = build_scene(frames=10)
    demo_render.add_figure_mesh(rig)
    demo_render.add_target_spheres([item.target for item in rig.reach_ik.constraints])
    demo_render.setup_render(resolution=(60, 80))
    before = _render(5, tmp_path / "before.png")
    assert before.shape == (80, 60, 4)
    drawn = before[..., 3] > 0.5
    assert 0.01 < drawn.mean() < 0.6, drawn.mean()  # something drawn on a clear background
    rgb = before[..., :3]
    orange = drawn & (rgb[..., 0] > rgb[..., 2] + 0.2)  # the targets' colour
    grey_blue = drawn & (rgb[..., 2] >= rgb[..., 0] - 0.02)  # the figure's colour
    assert orange.sum() >= 3 and grey_blue.sum() >= 20, (orange.sum(), grey_blue.sum())
    bpy.context.view_layer.objects.active = rig
    run_op(bpy.ops.reach.solve)  # the figure reaches for the targets of frame 5
    after = _render(5, tmp_path / "after.png")
    assert (tmp_path / "after.png").stat().st_size > 0
    moved = np.abs(after[..., 3] - before[..., 3]) > 0.5
    assert moved.mean() > 0.005, moved.mean()  # the render shows the solved pose
