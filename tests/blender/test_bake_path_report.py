"""A bake's report says how the frames after the first were solved, and why (issue 21).

The batched bake (``bridge/bake/batched.py``) goes back to one frame after another for a
reason (a rig whose other inputs move, a smooth bake, a method other than dls, ...) and reads
its targets either from their F-curves or with the scene stepped to each frame, for another
(``bridge/measure/target_curves.py``). Before, the report kept the second in a field no text
showed and dropped the first: a mocap cleanup (a BVH import, whose hips walk) was baked one
frame after another with nothing saying so or why, and a target on an animated parent slowed
the bake with nothing saying which. The summary and the panel now carry one line each.
"""

from __future__ import annotations

import math
from pathlib import Path
from types import ModuleType

import bpy

from tests.blender.conftest import run_op
from tests.blender.panel_draw import draw_panels
from tests.blender.reach_scenes import (
    activate,
    add_constraint,
    add_empty,
    follow_path,
    last_report,
)
from tests.blender.test_imported_rigs import _mocap

STEPPED = "  targets: read by stepping the scene to each frame: "


def _circle(frame: int) -> tuple[float, float, float]:
    angle = 2.0 * math.pi * frame / 30.0
    return (0.8 * math.cos(angle), 0.8 * math.sin(angle), 2.0)


def test_a_mocap_import_says_it_is_baked_frame_by_frame_and_which_bone_moves(
    clean_scene: bpy.types.Scene, tmp_path: Path
) -> None:
    """The BVH importer keys the hips' location: the figure's root moves under the solved
    limbs, so the batch (one figure for every frame) does not apply."""
    obj, _targets = _mocap(tmp_path)
    run_op(bpy.ops.reach.bake)
    report = last_report(obj)
    assert not report.batched and report.satisfied, report.text()
    lines = report.text().splitlines()
    assert "  frames: solved one after another: bone 'Hips' moves at frame 2" in lines, lines


def test_an_armature_moved_late_in_the_shot_is_named_with_its_frame(
    clean_scene: bpy.types.Scene,
) -> None:
    """The batch reads frames 2 to 10, finds the armature moved at 11 and solves every frame
    one after another from the first."""
    obj, _target = follow_path(_circle, 30)
    obj.keyframe_insert("location", frame=10)
    obj.location = (0.0, 0.0, 0.2)
    obj.keyframe_insert("location", frame=11)
    clean_scene.frame_set(1)
    run_op(bpy.ops.reach.bake)
    report = last_report(obj)
    assert not report.batched, report.text()
    line = "  frames: solved one after another: the armature's transform moves at frame 11"
    assert line in report.text().splitlines(), report.text()


def test_targets_read_from_their_f_curves_or_why_the_scene_is_stepped(
    clean_scene: bpy.types.Scene, extension: ModuleType
) -> None:
    obj, target = follow_path(_circle, 30)
    run_op(bpy.ops.reach.bake)
    report = last_report(obj)
    assert report.batched, report.text()
    assert "  targets: read from their F-curves" in report.text().splitlines()
    assert ("label", "Targets: read from their F-curves") in draw_panels(extension)

    parent = add_empty("P", (0.0, 0.0, 0.0))  # animated: the target's world moves with it
    parent.keyframe_insert("location", frame=1)
    parent.location = (0.0, 0.0, 0.1)
    parent.keyframe_insert("location", frame=30)
    target.parent = parent
    activate(obj)
    run_op(bpy.ops.reach.bake)
    report = last_report(obj)
    assert report.batched, report.text()
    why = "constraint 'b2 Position': its target 'T' has parent 'P', which is animated"
    assert STEPPED + why in report.text().splitlines(), report.text()


def test_a_goal_the_batch_does_not_solve_is_named_without_api_advice(
    clean_scene: bpy.types.Scene,
) -> None:
    """The batch's refusal (``solver.batch.check_structure``) tells an API user to call
    ``solver.Solver``; the bake does solve the rig, one frame after another."""
    obj, _target = follow_path(_circle, 30)
    add_constraint(obj, "b1", add_empty("Floor", (0.0, 0.0, 0.0)), "PLANE")
    run_op(bpy.ops.reach.bake)
    report = last_report(obj)
    lines = [line for line in report.text().splitlines() if "one after another" in line]
    assert lines == [
        "  frames: solved one after another: constraint 'b1 Plane': a batch solves PositionGoal, "
        "OrientationGoal, PositionOrientationGoal, AimGoal goals only, got PlaneGoal"
    ], report.text()


def test_a_bake_asked_to_go_frame_by_frame_says_so(
    clean_scene: bpy.types.Scene, extension: ModuleType
) -> None:
    obj, _target = follow_path(_circle, 30)
    run_op(bpy.ops.reach.bake, batched=False)
    report = last_report(obj)
    line = "frames: solved one after another: batches turned off (batched=False)"
    assert "  " + line in report.text().splitlines(), report.text()
    assert "targets:" not in report.text()
    assert ("label", line[0].upper() + line[1:]) in draw_panels(extension)
