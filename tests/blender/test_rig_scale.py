"""A rig solves alike at any size: Rigify's metarig scaled by its object or by its armature data.

The Automatic tolerance and orientation weight follow the rig's characteristic length, so the
same goals, scaled with the rig, give the same statuses and iteration counts from 1e-4 to 1e4
(issue 18, section 2). Targets come from a known pose of the unscaled rig (reachable), plus one
Position goal 1 % of the rig's height beyond the arm's reach (never reachable).
"""

from __future__ import annotations

import bpy
import pytest

from tests.blender.conftest import run_op
from tests.blender.reach_scenes import activate
from tests.blender.scale_support import GOALS, REACHABLE, goal_targets, reached, solve_each

SCALES = (1e-4, 1e-2, 1.0, 1e2, 1e4)


def _solve_scaled(obj: bpy.types.Object, scale: float, how: str) -> list[tuple[str, int, int]]:
    """Scale the metarig (``how``: "object" or "data"), then solve each goal alone from the
    rest pose; return (status, iterations, correction passes) per goal."""
    targets = goal_targets(obj)  # the rig at scale 1 at the origin
    obj.scale = (scale, scale, scale)
    bpy.context.view_layer.update()
    if how == "data":
        activate(obj)
        run_op(bpy.ops.object.transform_apply, location=False, rotation=False, scale=True)
    for m in targets:
        m[:3, 3] *= scale
    return solve_each(obj, targets)


@pytest.mark.parametrize("how", ["object", "data"])
@pytest.mark.parametrize("scale", [s for s in SCALES if s != 1.0])
def test_the_metarig_solves_alike_at_any_scale(
    rigify_metarig: bpy.types.Object, blender_helpers: object, how: str, scale: float
) -> None:
    unit = _solve_scaled(rigify_metarig, 1.0, how)
    assert [passes for _s, _n, passes in unit] == [0, 0, 0, 0]
    assert tuple(reached(status) for status, _n, _p in unit) == REACHABLE
    blender_helpers.load_empty_file()
    run_op(bpy.ops.object.armature_human_metarig_add)
    scaled = _solve_scaled(bpy.context.active_object, scale, how)
    for (goal, *_), (status, n, passes), (status_1, n_1, _p) in zip(
        GOALS, scaled, unit, strict=True
    ):
        assert status == status_1, (goal, scale, status, status_1)
        assert passes == 0, (goal, scale, passes)
        assert abs(n - n_1) <= 0.2 * n_1, (goal, scale, n, n_1)
