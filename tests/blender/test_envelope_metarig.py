"""Reach Envelope of Rigify's metarig arm (the demo's: an elbow hinge limited to [0, 150]
degrees on a bent rest): each sample's verdict is a Solve's, on a random subsample of the grid
weighted towards the region's edge, where a wrong rule (a reach bound too short, a batch's miss
taken for a Solve's) would show."""

from __future__ import annotations

import importlib
import math
import warnings

import bpy
import numpy as np
import pytest

from tests.blender.conftest import run_op, world_bone_head, world_bone_tail
from tests.blender.reach_scenes import add_constraint, add_empty, last_report

RESOLUTION = 13
EDGE_SAMPLES = 10  # reached and unreached samples each, at the region's edge
OTHER_SAMPLES = 12


def _metarig_arm(obj: bpy.types.Object, goal: str) -> bpy.types.Object:
    """The demo's elbow hinge and a ``goal`` constraint moving the left arm from the
    shoulder; returns the target."""
    pb = obj.pose.bones["forearm.L"]
    pb.lock_ik_y = pb.lock_ik_z = True
    pb.use_ik_limit_x = True
    pb.ik_min_x, pb.ik_max_x = 0.0, math.radians(150.0)
    target = add_empty("T", tuple(world_bone_tail(obj, "hand.L") + np.array((0.1, -0.2, 0.1))))
    add_constraint(obj, "hand.L", target, goal, chain_mode="ROOT", chain_root="shoulder.L")
    return target


@pytest.mark.parametrize("goal", ["POSITION", "POSITION_ORIENTATION"])
def test_verdicts_equal_single_solves_on_the_metarig_arm(
    rigify_metarig: bpy.types.Object, goal: str
) -> None:
    obj = rigify_metarig
    target = _metarig_arm(obj, goal)
    orientation = goal == "POSITION_ORIENTATION"  # the hand holds the target's orientation
    basis = {pb.name: pb.matrix_basis.copy() for pb in obj.pose.bones}
    name = obj.reach_ik.constraints[0].name
    assert bpy.ops.reach.envelope(resolution=RESOLUTION, orientation=orientation) == {"FINISHED"}
    cloud = bpy.data.objects[f"Envelope {name}"]
    reach_map = importlib.import_module("bl_ext.user_default.reach_ik.bridge.envelope.reach_map")
    with warnings.catch_warnings():  # free joints' infinite limits are no arithmetic's NaN
        warnings.simplefilter("error", RuntimeWarning)
        job = reach_map.EnvelopeJob(  # the operator's grid
            obj, obj.reach_ik, bpy.context.scene, bpy.context.view_layer, name, RESOLUTION,
            orientation=orientation,
        )  # fmt: skip
    points = job.points
    # Every sample no pose reaches lies beyond the hand's farthest reach from the shoulder
    # (the bent elbow cannot straighten; holding the orientation, the wrist's from where the
    # orientation puts the hand's tail): each is known without a solve.
    known = job.index
    co = np.empty(3 * len(cloud.data.vertices))
    cloud.data.vertices.foreach_get("co", co)
    centres = co.reshape(-1, 8, 3).mean(axis=1)
    reached = np.zeros(len(points), dtype=bool)
    reached[np.linalg.norm(centres[:, None] - points[None], axis=2).argmin(axis=1)] = True
    # The subsample: the reached samples farthest from the shoulder and the unreached ones
    # nearest to it (the region's edge from both sides, where a reach bound too short or a
    # batch's miss taken for a Solve's would flip a verdict), and random ones of the others.
    centre = world_bone_head(obj, "shoulder.L")
    if orientation:  # the wrist's reach, around where the held orientation puts the tail
        hand = np.array(obj.data.bones["hand.L"].length * target.matrix_world.col[1].xyz)
        centre = centre + hand
    distance = np.linalg.norm(points - centre, axis=1)
    by_distance = np.argsort(distance)
    inner = [k for k in by_distance if not reached[k]][:EDGE_SAMPLES]
    outer = [k for k in by_distance[::-1] if reached[k]][:EDGE_SAMPLES]
    rest = np.setdiff1d(np.arange(len(points)), inner + outer)
    rng = np.random.default_rng(21)
    subsample = [*inner, *outer, *rng.choice(rest, OTHER_SAMPLES, replace=False)]
    assert reached.any() and not reached.all()
    assert known == int((~reached).sum())
    for k in subsample:
        for bone, matrix in basis.items():
            obj.pose.bones[bone].matrix_basis = matrix
        target.location = points[k]
        bpy.context.view_layer.update()
        run_op(bpy.ops.reach.solve)
        assert last_report(obj).satisfied == bool(reached[k]), (k, points[k], bool(reached[k]))
