"""Automatic (rig-relative) Tolerance and Degrees per Unit: old files, explicit values, panel.

Issue 18, section 2. A file saved before the Automatic switches existed stores only the values:
the old defaults (1e-5 units, 1 degree per unit) load as Automatic, any other value as the
fixed value someone chose. A switch once stored wins. The panel shows the values in use in
scene units.
"""

from __future__ import annotations

import math
from pathlib import Path
from types import ModuleType

import bpy
import pytest
from mathutils import Matrix

from tests.blender.conftest import run_op
from tests.blender.panel_draw import draw_panels
from tests.blender.reach_scenes import activate, add_constraint, add_empty, make_chain

BONE = 0.01  # scene units per bone: a chain 0.03 long, where 1e-5 units is 3e-4 of it


def _rig() -> bpy.types.Object:
    """A 3-bone chain and a reachable Position & Orientation target (from a known pose)."""
    obj = make_chain(n=3, length=BONE)
    for name, euler in (("b0", (0.4, 0.0, 0.3)), ("b1", (0.6, 0.2, 0.0)), ("b2", (0.3, 0.0, 0.5))):
        obj.pose.bones[name].rotation_mode = "XYZ"
        obj.pose.bones[name].rotation_euler = euler
    bpy.context.view_layer.update()
    target = add_empty("T", (0.0, 0.0, 0.0))
    target.matrix_world = (
        Matrix.Translation(obj.pose.bones["b2"].tail)
        @ obj.pose.bones["b2"].matrix.normalized().to_quaternion().to_matrix().to_4x4()
    )
    for pb in obj.pose.bones:
        pb.rotation_euler = (0.0, 0.0, 0.0)
    bpy.context.view_layer.update()
    add_constraint(obj, "b2", target, "POSITION_ORIENTATION")
    return obj


def _reload(tmp_path: Path) -> bpy.types.Object:
    path = str(tmp_path / "rig.blend")
    run_op(bpy.ops.wm.save_as_mainfile, filepath=path)
    run_op(bpy.ops.wm.open_mainfile, filepath=path)
    return bpy.data.objects["Chain"]


def test_old_defaults_load_as_automatic_and_chosen_values_as_fixed(
    clean_scene: bpy.types.Scene, tmp_path: Path
) -> None:
    obj = _rig()
    other = make_chain("Other", n=3, length=BONE)
    add_constraint(other, "b2", bpy.data.objects["T"], "AIM")
    # What files saved before the switches hold: values only (set as a script or the UI did).
    obj.reach_ik.tolerance = 1e-5
    obj.reach_ik.constraints[0].degrees = 1.0
    other.reach_ik.tolerance = 2e-4
    other.reach_ik.constraints[0].degrees = 5.0
    obj = _reload(tmp_path)
    other = bpy.data.objects["Other"]
    assert obj.reach_ik.auto_tolerance and obj.reach_ik.constraints[0].auto_degrees
    assert not other.reach_ik.auto_tolerance and not other.reach_ik.constraints[0].auto_degrees
    assert other.reach_ik.tolerance == pytest.approx(2e-4)
    assert other.reach_ik.constraints[0].degrees == pytest.approx(5.0)
    # A stored switch wins over the value, and survives saving.
    obj.reach_ik.auto_tolerance = False
    other.reach_ik.auto_tolerance = True
    other.reach_ik.constraints[0].auto_degrees = True
    obj = _reload(tmp_path)
    other = bpy.data.objects["Other"]
    assert not obj.reach_ik.auto_tolerance and obj.reach_ik.tolerance == pytest.approx(1e-5)
    assert other.reach_ik.auto_tolerance and other.reach_ik.constraints[0].auto_degrees


def test_a_small_rig_solves_at_its_own_scale_and_the_panel_shows_the_values(
    clean_scene: bpy.types.Scene, extension: ModuleType
) -> None:
    """Bones 0.01 long with a reachable Position & Orientation goal: reached in a few
    iterations (142 with the absolute defaults, measured on bpy 5.0.1)."""
    obj = _rig()
    activate(obj)
    run_op(bpy.ops.reach.solve)
    report = extension.bridge.session.last_report.last(obj)
    assert report.satisfied and report.iterations < 50, report.text()
    drawn = draw_panels(extension)
    length = 3 * BONE
    assert (
        "label",
        f"{1e-5 * length:.3g} units (1e-05 of the rig's size, {length:.3g} units)",
    ) in drawn
    degrees = math.degrees(1.0 / length)
    assert (
        "label",
        f"1 radian weighs like {length:.3g} units: {degrees:.3g} degrees per unit",
    ) in drawn
    assert ("prop", "tolerance") not in drawn and ("prop", "degrees") not in drawn
    obj.reach_ik.auto_tolerance = False
    obj.reach_ik.constraints[0].auto_degrees = False
    drawn = draw_panels(extension)
    assert ("prop", "tolerance") in drawn and ("prop", "degrees") in drawn
