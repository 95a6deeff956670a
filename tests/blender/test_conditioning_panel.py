"""The Last Solve box's conditioning line after a Solve, in real Blender (4.2 and 5.0).

A two-bone arm (bones ``b0``, ``b1``, 10 units each, along +Z) reaches a target that needs an
elbow bend of ``bend`` radians: nearly straight, the pose is ill-conditioned and the line
names the forearm ``b1``; bent, it is well-conditioned and names no bone. A bake shows the
read-out of its last frame; live posing shows each update's.
"""

from __future__ import annotations

import math
from types import ModuleType

import bpy
import pytest

from tests.blender.conftest import run_op
from tests.blender.live_support import finish, room_to_solve  # noqa: F401  (a fixture)
from tests.blender.panel_draw import draw_panels
from tests.blender.reach_scenes import activate, add_constraint, add_empty, last_report, make_chain

LENGTH = 10.0  # scene units per bone: a fixed tolerance of 1e-5 units then asks for the bend


def _bent_target(bend: float) -> tuple[float, float, float]:
    """Where the arm's tip is with its elbow bent by ``bend`` radians towards +Y."""
    return (0.0, LENGTH * math.sin(bend), LENGTH * (1.0 + math.cos(bend)))


def _conditioning_lines(extension: ModuleType) -> list[str]:
    """The conditioning labels the panels draw for the active armature."""
    labels = [text for kind, text in draw_panels(extension) if kind == "label"]
    return [text for text in labels if text.startswith("Conditioning")]


def _solve_bent(
    extension: ModuleType, bend: float, operator: object = None
) -> tuple[object, list[str]]:
    """Solve (or run ``operator``) on the arm and a target whose reach needs an elbow bend
    of ``bend`` radians; return the report and the Last Solve box's conditioning labels."""
    obj = make_chain("Arm", n=2, length=LENGTH)
    target = add_empty("T", (0.0, LENGTH * math.sin(bend), LENGTH * (1.0 + math.cos(bend))))
    add_constraint(obj, "b1", target, "POSITION")
    activate(obj)
    run_op(operator or bpy.ops.reach.solve)
    report = last_report(obj)
    return report, _conditioning_lines(extension)


@pytest.mark.usefixtures("clean_scene")
def test_a_nearly_straight_arm_is_ill_conditioned_at_the_forearm(extension: ModuleType) -> None:
    report, lines = _solve_bent(extension, 3e-3)
    assert report.satisfied
    [line] = lines
    assert line.startswith("Conditioning: kappa ")
    assert line.endswith(" (ill-conditioned), weakest: b1"), line
    assert 1e3 < float(line.split()[2]) < 1e4  # about 2 sqrt(5) / bend
    assert report.conditioning.conditioning.weakest_joints[0].startswith("b1:")


@pytest.mark.usefixtures("clean_scene")
def test_a_bent_arm_is_well_conditioned(extension: ModuleType) -> None:
    report, lines = _solve_bent(extension, 1.0)
    assert report.satisfied
    [line] = lines
    assert line.startswith("Conditioning: kappa ") and line.endswith(" (well-conditioned)"), line
    assert float(line.split()[2]) < 20.0


@pytest.mark.usefixtures("clean_scene")
def test_a_bake_shows_its_last_frame(extension: ModuleType) -> None:
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, 3
    report, lines = _solve_bent(extension, 3e-3, bpy.ops.reach.bake)
    assert report.satisfied and report.frames == (1, 2, 3)
    [line] = lines
    assert line.startswith("Conditioning at frame 3: kappa "), line
    assert line.endswith(" (ill-conditioned), weakest: b1"), line


@pytest.mark.usefixtures("clean_scene")
def test_live_posing_follows_the_drag(extension: ModuleType) -> None:
    obj = make_chain("Arm", n=2, length=LENGTH)
    target = add_empty("T", _bent_target(1.0))
    add_constraint(obj, "b1", target, "POSITION")
    obj.reach_ik.auto_tolerance = False  # 1e-5 units (see LENGTH)
    obj.reach_ik.live = True
    bpy.context.view_layer.update()
    finish(extension, obj)
    activate(obj)
    assert _conditioning_lines(extension)[0].endswith("(well-conditioned)")
    target.location = _bent_target(3e-3)  # dragged almost out to the arm's full reach
    bpy.context.view_layer.update()
    finish(extension, obj)
    [line] = _conditioning_lines(extension)
    assert line.endswith(" (ill-conditioned), weakest: b1"), line


@pytest.mark.usefixtures("clean_scene")
def test_an_out_of_reach_target_leaves_the_arm_straight_and_singular(
    extension: ModuleType,
) -> None:
    obj = make_chain("Arm", n=2, length=LENGTH)
    target = add_empty("T", (3.0, 5.0, 25.0))  # 25.7 units from the shoulder: 20 reach
    add_constraint(obj, "b1", target, "POSITION")
    activate(obj)
    run_op(bpy.ops.reach.solve)
    assert not last_report(obj).satisfied
    # the straight arm has lost the direction towards the target: no unique weakest bone
    assert _conditioning_lines(extension) == ["Conditioning: kappa inf (singular: rank 2 of 3)"]
