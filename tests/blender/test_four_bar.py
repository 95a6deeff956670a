"""The four-bar demo (:mod:`examples.four_bar`) in real Blender (4.2 and 5.0): a crank-rocker
whose Driven crank turns once round in 72 steps of 5 degrees, the loop closed by one Reach
constraint, baked through ``bpy.ops.reach.bake`` and checked on Blender's evaluated pose
against the closed form; and its determinacy, crank driven and not.
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
from tests.blender.reach_scenes import last_report

#: The linkage's size: its longest link (scene units).
SIZE = max(four_bar.CRANK_ROCKER)
#: Allowed closure on Blender's evaluated pose, as the issue asks: 1e-6 of the size.
CLOSURE = 1e-6 * SIZE
#: The crank's turn per frame (radians).
STEP = 2.0 * math.pi / (four_bar.FRAMES - 1)
#: Margin (radians) over the closed form's bound of a hinge's turn per frame. The bound
#: ``STEP * transmission`` holds exactly for the true mechanism (mean value theorem); the
#: measured angles differ from it by the loop's gap over a link (< CLOSURE / 1 unit = 3e-6
#: rad) and Blender's single precision (~1e-7 rad): 1e-4 rad is 30 times both. A flip to the
#: mirror assembly turns the coupler by twice the angle C-B-D, at least 0.5 rad here.
MARGIN = 1e-4


@pytest.mark.usefixtures("clean_scene")
def test_the_four_bar_closes_at_every_frame_and_never_changes_branch() -> None:
    rig = four_bar.build_four_bar()
    bpy.context.view_layer.objects.active = rig
    run_op(bpy.ops.reach.bake)
    scene = bpy.context.scene
    bound = STEP * four_bar.transmission() + MARGIN
    previous = None
    worst_change = 0.0
    for frame in range(1, four_bar.FRAMES + 1):
        scene.frame_set(frame)
        assert four_bar.closure(rig) <= CLOSURE, frame
        a, b, c, d, _tail = four_bar.evaluated_joints(rig)
        crank = math.atan2(b[1] - a[1], b[0] - a[0])
        expected = four_bar.REST_ANGLE + STEP * (frame - 1)
        assert abs(four_bar.wrapped(crank - expected)) < 1e-5, frame  # the input, as keyed
        assert four_bar.side(b, c, d) == four_bar.BRANCH, frame
        closed = four_bar.assembly(crank)
        assert closed is not None
        assert np.linalg.norm(c - closed[1]) < 10 * CLOSURE, frame  # the closed form's C
        angles = four_bar.joint_angles(a, b, c, d)
        if previous is not None:
            change = float(np.max(np.abs(four_bar.wrapped(angles - previous))))
            worst_change = max(worst_change, change)
            assert change <= bound, (frame, change, bound)
        previous = angles
    assert worst_change > 0.5 * bound  # the bound is a tight one, not a loose one


def _determinacy_line(extension: ModuleType) -> str:
    labels = [text for kind, text in draw_panels(extension) if kind == "label"]
    [line] = [text for text in labels if text.startswith("Determinacy")]
    return line


@pytest.mark.usefixtures("clean_scene")
def test_a_driven_crank_leaves_the_four_bar_exactly_constrained(extension: ModuleType) -> None:
    rig = four_bar.build_four_bar(driven=True)
    bpy.context.view_layer.objects.active = rig
    bpy.context.scene.frame_set(10)
    run_op(bpy.ops.reach.solve)
    assert last_report(rig).satisfied
    assert four_bar.closure(rig) <= CLOSURE
    line = _determinacy_line(extension)
    assert line == "Determinacy: exactly constrained, 2 DOF, 2 independent of 2 equations", line


@pytest.mark.usefixtures("clean_scene")
def test_a_free_crank_leaves_the_four_bar_one_free_motion(extension: ModuleType) -> None:
    rig = four_bar.build_four_bar(driven=False)
    bpy.context.view_layer.objects.active = rig
    run_op(bpy.ops.reach.solve)
    determinacy = last_report(rig).determinacy.determinacy
    [free] = determinacy.free_motions  # the mechanism's one motion: all three hinges turn
    moved = {
        name.split(":")[0]
        for name, value in zip(determinacy.coordinate_names, free.motion, strict=True)
        if abs(value) > 1e-3
    }
    assert moved == {"crank", "coupler", "rocker"}, free
    line = _determinacy_line(extension)
    assert line.startswith(
        "Determinacy: under-constrained, 3 DOF, 2 independent of 2 equations; free: "
    ), line
    assert set(line.split("; free: ")[1].split("+")) <= moved, line
