"""The bake summary's playback lines name what Blender plays back, not a stale driven value.

Defect (seen on Rigify's generated rig): a script sets the IK/FK switch of an arm (a custom
property: ``pb["IK_FK"] = 1.0``, which tags nothing) and bakes the ORG bones. Blender runs the
drivers of the switched Copy Transforms' influences only once the bake's writes tag the
armature, so the first bake listed the IK side's Copy Transforms (influence 0 on playback) as
changing three arm bones on playback; an identical second bake did not.
"""

from __future__ import annotations

import bpy
import numpy as np

from tests.blender.conftest import run_op, world_bone_tail
from tests.blender.reach_scenes import add_empty, last_report
from tests.blender.test_bake_report import FRAMES, _circle, _shot


def _driven_copy_rotation(obj: bpy.types.Object) -> bpy.types.Constraint:
    """A Copy Rotation on b1 whose influence a driver reads from ``obj["switch"]`` (1.0)."""
    source = add_empty("source", (0.0, 0.0, 0.0), (0.9, 0.0, 0.0))
    con = obj.pose.bones["b1"].constraints.new("COPY_ROTATION")
    con.target = source
    obj["switch"] = 1.0
    driver = con.driver_add("influence").driver
    driver.type = "SUM"
    variable = driver.variables.new()
    variable.targets[0].id = obj
    variable.targets[0].data_path = '["switch"]'
    bpy.context.view_layer.update()
    assert con.influence == 1.0
    return con


def _playback_lines(obj: bpy.types.Object) -> list[str]:
    return [line for line in last_report(obj).overrides if "Copy Rotation" in line]


def test_a_switched_off_driven_constraint_is_not_listed(clean_scene: bpy.types.Scene) -> None:
    """The switch turned off by a script (no update): playback does not use the constraint,
    and neither the first bake's summary nor the next one's lists it."""
    obj, _target = _shot()
    con = _driven_copy_rotation(obj)
    obj["switch"] = 0.0  # as a script sets it: Blender's drivers have not run yet
    reports = []
    for _bake in range(2):
        run_op(bpy.ops.reach.bake)
        reports.append(_playback_lines(obj))
        depsgraph = bpy.context.evaluated_depsgraph_get()
        evaluated = obj.evaluated_get(depsgraph).pose.bones["b1"].constraints[con.name]
        assert evaluated.influence == 0.0  # what Blender plays back
        for frame in range(1, FRAMES + 1):  # the played-back pose is the solved one
            clean_scene.frame_set(frame)
            tail = world_bone_tail(obj, "b2")
            assert np.linalg.norm(tail - np.array(_circle(frame))) < 1e-4, frame
        assert last_report(obj).satisfied, last_report(obj).text()
    assert reports == [[], []]


def test_a_driven_constraint_that_acts_is_listed_by_every_bake(
    clean_scene: bpy.types.Scene,
) -> None:
    """The switch turned on by a script: the constraint overrides the baked channels on
    playback and every bake's summary says so."""
    obj, _target = _shot()
    con = _driven_copy_rotation(obj)
    obj["switch"] = 0.0
    obj.update_tag()  # an update: the driver runs
    bpy.context.view_layer.update()
    assert con.influence == 0.0
    obj["switch"] = 1.0  # as a script sets it: no update
    reports = []
    for _bake in range(2):
        run_op(bpy.ops.reach.bake)
        reports.append(_playback_lines(obj))
        assert not last_report(obj).satisfied
    line = "bone 'b1' has a Copy Rotation constraint 'Copy Rotation' that changes its pose"
    assert all(len(lines) == 1 and line in lines[0] for lines in reports), reports
