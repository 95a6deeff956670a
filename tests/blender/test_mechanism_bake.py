"""Branch-safe bakes of a mechanism (:mod:`bridge.bake.mechanism`) in real Blender (4.2 and
5.0), through ``bpy.ops.reach.bake`` on four-bars built by :mod:`examples.four_bar`: a crank
that jumps 90 degrees between two keys is reached in sub-steps and keeps its branch; a crank
driven past the dead point of a non-Grashof linkage holds the last closed pose, and the report
names the frames with their residuals.
"""

from __future__ import annotations

import math
from types import ModuleType

import bpy
import numpy as np
import pytest

from examples import four_bar
from tests.blender.conftest import run_op
from tests.blender.panel_draw import draw_panels
from tests.blender.reach_scenes import fcurves, last_report

#: A non-Grashof linkage (crank, coupler, rocker, base): 1.5 + 3 > 2 + 2, so the crank turns
#: only while ``|BD| <= coupler + rocker``: ``13 - 12 cos(theta) <= 3.5**2``, |theta| <= 86.42 deg.
TRIPLE_ROCKER = (2.0, 1.5, 2.0, 3.0)
DEAD_POINT = math.degrees(math.acos((13.0 - 3.5**2) / 12.0))


def _bake(rig: bpy.types.Object) -> object:
    bpy.context.view_layer.objects.active = rig
    run_op(bpy.ops.reach.bake)
    return last_report(rig)


def _keys(rig: bpy.types.Object) -> dict[str, np.ndarray]:
    """Frames and values (2, n) of every keyed channel but the crank's."""
    out = {}
    for curve in fcurves(rig):
        if "crank" in curve.data_path:
            continue
        co = np.empty(2 * len(curve.keyframe_points))
        curve.keyframe_points.foreach_get("co", co)
        out[f"{curve.data_path}[{curve.array_index}]"] = co.reshape(-1, 2).T
    return out


@pytest.mark.usefixtures("clean_scene")
def test_a_crank_jumping_90_degrees_keeps_its_branch_through_sub_steps() -> None:
    # From 60 degrees, a jump to -30 makes Newton's method, started at the last pose, land on
    # the crossed assembly (C right of B -> D) when the frame is solved in one step.
    rig = four_bar.build_four_bar(crank_keys=((1, 0.0), (2, math.radians(-90.0))))
    report = _bake(rig)
    assert report.mechanism is not None
    assert report.mechanism.substeps == {2: 8}  # 90 degrees in steps of 10: 8 extra solves
    assert not report.mechanism.held
    assert "sub-steps: 8 extra solve(s) on 1 frame(s)" in report.text()
    for channel, (frames, _values) in _keys(rig).items():
        assert frames.tolist() == [1.0, 2.0], channel  # keys on whole frames only
    scene = bpy.context.scene
    for frame in (1, 2):
        scene.frame_set(frame)
        _a, b, c, d, _tail = four_bar.evaluated_joints(rig)
        assert four_bar.side(b, c, d) == four_bar.BRANCH, frame
        assert four_bar.closure(rig) <= 1e-6 * max(four_bar.CRANK_ROCKER), frame


@pytest.mark.usefixtures("clean_scene")
def test_a_crank_past_its_dead_point_holds_the_last_closed_pose(extension: ModuleType) -> None:
    # The crank turns 3 degrees a frame from 30 degrees: frame 19 is at 84 (closed), frame 20
    # at 87, past the dead point at 86.42, and so on to 120 at frame 31.
    rig = four_bar.build_four_bar(
        links=TRIPLE_ROCKER,
        crank_keys=((1, 0.0), (31, math.radians(90.0))),
        rest_angle=math.radians(30.0),
    )
    rig.reach_ik.tolerance = 1e-5
    report = _bake(rig)
    assert report.mechanism is not None
    held = report.mechanism.held
    assert [h.frame for h in held] == list(range(20, 32))
    assert {h.held_from for h in held} == {19}
    for h in held:  # the residual: how far the stretched-out coupler and rocker stay from D
        theta = math.radians(30.0 + 3.0 * (h.frame - 1))
        gap = math.sqrt(13.0 - 12.0 * math.cos(theta)) - 3.5
        [(name, distance, _angle)] = h.residuals
        assert name == "Close the loop at D"
        assert distance == pytest.approx(gap, rel=1e-3), h
        assert f"frame {h.frame}: the loop cannot close" in report.text() or h.frame > 29
    assert "the pose of frame 19 is held" in report.text()
    labels = [text for kind, text in draw_panels(extension) if kind == "label"]
    assert any(text.startswith("frame 20: the loop cannot close") for text in labels), labels
    for channel, (frames, values) in _keys(rig).items():
        assert frames.tolist() == list(range(1, 32)), channel
        assert np.all(values[19:] == values[18]), channel  # frames 20..31 keep frame 19's key
    scene = bpy.context.scene
    for frame in range(1, 20):
        scene.frame_set(frame)
        assert four_bar.closure(rig) <= 1e-5, frame
        _a, b, c, d, _tail = four_bar.evaluated_joints(rig)
        assert four_bar.side(b, c, d) == four_bar.BRANCH, frame
    assert DEAD_POINT == pytest.approx(86.42, abs=0.01)
