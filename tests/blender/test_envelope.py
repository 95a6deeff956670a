"""Reach Envelope (``bpy.ops.reach.envelope``): the reachable region of a planar two-link arm
with joint limits, whose reachable set is known in closed form, and what the operator refuses."""

from __future__ import annotations

import importlib
import math

import bpy
import numpy as np
import pytest

from tests.blender.reach_scenes import add_constraint, add_empty, keys_of, make_chain, pose_of

LIMITS = {"b1": (-60.0, 90.0), "b2": (0.0, 120.0)}  # degrees about each bone's X
RESOLUTION = 15


def _planar_arm() -> bpy.types.Object:
    """b0 fixed, b1 and b2 (unit length, along +Z) hinges about X with IK limits; the
    constraint moves b2's tail with b1 and b2."""
    obj = make_chain(n=3)
    for name, (low, high) in LIMITS.items():
        pb = obj.pose.bones[name]
        pb.lock_ik_y = pb.lock_ik_z = True
        pb.use_ik_limit_x = True
        pb.ik_min_x, pb.ik_max_x = math.radians(low), math.radians(high)
    target = add_empty("T", (0.0, -0.5, 2.5))
    add_constraint(obj, "b2", target, "POSITION", chain_mode="LENGTH", chain_length=2)
    return obj


def _closed_form(obj: bpy.types.Object, points: np.ndarray, off_plane: float) -> np.ndarray:
    """Whether each point (n, 3) is reachable by b2's tail: in b1's plane (within
    ``off_plane``) at a distance and direction the two angles reach within their limits.
    A turn by ``a`` about a bone's X takes its Y towards its Z: ``cos a Y + sin a Z``."""
    rest = np.array(obj.data.bones["b1"].matrix_local, dtype=float)
    u, w, head = rest[:3, 1], rest[:3, 2], rest[:3, 3]
    d = points - head
    a, b = d @ u, d @ w
    plane = np.linalg.norm(d - np.outer(a, u) - np.outer(b, w), axis=1) <= off_plane
    cos2 = (a * a + b * b - 2.0) / 2.0
    elbow = np.arccos(np.clip(cos2, -1.0, 1.0))
    shoulder = np.arctan2(b, a) - np.arctan2(np.sin(elbow), 1.0 + np.cos(elbow))
    (s_lo, s_hi), (e_lo, e_hi) = (np.radians(LIMITS[n]) for n in ("b1", "b2"))
    eps = 1e-9
    return (
        plane
        & (np.abs(cos2) <= 1.0)
        & (elbow >= e_lo - eps) & (elbow <= e_hi + eps)
        & (shoulder >= s_lo - eps) & (shoulder <= s_hi + eps)
    )  # fmt: skip


def _cube_centres(cloud: bpy.types.Object) -> np.ndarray:
    co = np.empty(3 * len(cloud.data.vertices))
    cloud.data.vertices.foreach_get("co", co)
    return co.reshape(-1, 8, 3).mean(axis=1)


def test_envelope_of_a_planar_arm_matches_its_closed_form(clean_scene: bpy.types.Scene) -> None:
    obj = _planar_arm()
    keys, pose = keys_of(obj), pose_of(obj)
    result = bpy.ops.reach.envelope(resolution=RESOLUTION)
    assert result == {"FINISHED"}
    cloud = bpy.data.objects[f"Envelope {obj.reach_ik.constraints[0].name}"]
    # What the operator sampled: the grid around b1's head spanning the two bones.
    samples = importlib.import_module("bl_ext.user_default.reach_ik.bridge.envelope.samples")
    reach_map = importlib.import_module("bl_ext.user_default.reach_ik.bridge.envelope.reach_map")
    head = np.array(obj.data.bones["b1"].head_local, dtype=float)
    points, spacing = samples.sphere_grid(head, reach_map.MARGIN * 2.0, RESOLUTION)
    assert cloud["reach_samples"] == len(points)
    assert math.isclose(cloud["reach_spacing"], spacing)
    centres = _cube_centres(cloud)
    # Each cube sits on a sample point.
    nearest = np.linalg.norm(centres[:, None, :] - points[None, :, :], axis=2)
    assert nearest.min(axis=1).max() < 1e-5
    reached = np.zeros(len(points), dtype=bool)
    reached[nearest.argmin(axis=1)] = True
    truth = _closed_form(obj, points, off_plane=1e-6)
    assert truth.sum() > 20  # the test means something: a region, not a few points
    # A verdict may differ from the closed form only within one spacing of the region's edge:
    # some point that close (in the arm's plane) has the other closed-form verdict.
    turns = np.linspace(0.0, 2.0 * np.pi, 32, endpoint=False)
    rest = np.array(obj.data.bones["b1"].matrix_local, dtype=float)
    ring = spacing * (np.outer(np.cos(turns), rest[:3, 1]) + np.outer(np.sin(turns), rest[:3, 2]))
    wrong = np.flatnonzero(reached != truth)
    for k in wrong:
        near = _closed_form(obj, points[k] + ring, off_plane=1e-6)
        assert (near != truth[k]).any(), (points[k], bool(reached[k]))
    assert len(wrong) <= 0.2 * truth.sum(), (len(wrong), int(truth.sum()))
    # Nothing of the rig changed.
    assert keys_of(obj).keys() == keys.keys()
    for name, values in pose.items():
        assert np.array_equal(values, pose_of(obj)[name]), name


def test_envelope_effort_and_orientation(clean_scene: bpy.types.Scene) -> None:
    obj = _planar_arm()
    bpy.ops.reach.envelope(resolution=9, effort="LIMITS")
    limits = bpy.data.objects[f"Envelope {obj.reach_ik.constraints[0].name}"]
    effort = np.empty(len(limits.data.vertices))
    limits.data.attributes["reach_effort"].data.foreach_get("value", effort)
    assert len(effort) and (effort >= 0.0).all() and (effort <= 1.0).all()
    assert effort.max() > 0.9  # the region's edge lies on the limits
    # Holding the target's orientation: a hinge arm can hold one orientation only along one
    # curve of points, so far fewer samples are reached.
    bpy.ops.reach.envelope(resolution=9, orientation=True)
    held = bpy.data.objects[f"Envelope {obj.reach_ik.constraints[0].name}.001"]
    assert held["reach_reached"] < limits["reach_reached"]


@pytest.mark.parametrize(
    ("setting", "value", "message"),
    [
        ("goal_type", "LINE", "has a Line goal"),
        ("enabled", False, "is disabled"),
        ("group", "either", "is in the group 'either'"),
    ],
)
def test_envelope_refuses_what_it_cannot_map(
    clean_scene: bpy.types.Scene, setting: str, value: object, message: str
) -> None:
    obj = _planar_arm()
    add_constraint(
        obj, "b2", bpy.data.objects["T"], "POSITION", chain_mode="LENGTH", chain_length=2
    )  # fmt: skip  (the armature keeps an enabled constraint)
    setattr(obj.reach_ik.constraints[0], setting, value)
    objects = sorted(o.name for o in bpy.data.objects)
    with pytest.raises(RuntimeError, match=message):
        bpy.ops.reach.envelope(resolution=5, constraint=obj.reach_ik.constraints[0].name)
    assert sorted(o.name for o in bpy.data.objects) == objects


def _second_chain(obj: bpy.types.Object, target: tuple[float, float, float]) -> None:
    """Two more bones off b0 (s0 at (0, 0, 1) along +X, s1 after it) and a constraint moving
    them, independent of the arm's: s1's tail held on an empty at ``target``."""
    bpy.ops.object.mode_set(mode="EDIT")
    bones = obj.data.edit_bones
    s0 = bones.new("s0")
    s0.head, s0.tail, s0.parent = (0.0, 0.0, 1.0), (1.0, 0.0, 1.0), bones["b0"]
    s1 = bones.new("s1")
    s1.head, s1.tail, s1.parent, s1.use_connect = (1.0, 0.0, 1.0), (2.0, 0.0, 1.0), s0, True
    bpy.ops.object.mode_set(mode="OBJECT")
    other = add_empty("other", target)
    add_constraint(obj, "s1", other, "POSITION", chain_mode="LENGTH", chain_length=2)


def test_verdicts_equal_single_solves_with_another_chain_held(
    clean_scene: bpy.types.Scene,
) -> None:
    obj = _planar_arm()
    _second_chain(obj, (1.2, 0.8, 1.3))
    obj.reach_ik.active_index = 0
    assert bpy.ops.reach.envelope(resolution=9) == {"FINISHED"}
    cloud = bpy.data.objects[f"Envelope {obj.reach_ik.constraints[0].name}"]
    samples = importlib.import_module("bl_ext.user_default.reach_ik.bridge.envelope.samples")
    reach_map = importlib.import_module("bl_ext.user_default.reach_ik.bridge.envelope.reach_map")
    head = np.array(obj.data.bones["b1"].head_local, dtype=float)
    points, _spacing = samples.sphere_grid(head, reach_map.MARGIN * 2.0, 9)
    centres = _cube_centres(cloud)
    reached = np.zeros(len(points), dtype=bool)
    reached[np.linalg.norm(centres[:, None] - points[None], axis=2).argmin(axis=1)] = True
    assert reached.any()
    # A Solve of the whole armature (both constraints), from the same pose, at a subsample of
    # the points (every reached one and as many unreached ones in the arm's plane).
    target = bpy.data.objects["T"]
    basis = {pb.name: pb.matrix_basis.copy() for pb in obj.pose.bones}
    in_plane = np.flatnonzero(~reached & (np.abs(points[:, 0]) < 1e-9))
    subsample = np.concatenate([np.flatnonzero(reached), in_plane[:: max(1, len(in_plane) // 20)]])
    for k in subsample:
        for name, matrix in basis.items():
            obj.pose.bones[name].matrix_basis = matrix
        target.location = points[k]
        bpy.context.view_layer.update()
        bpy.ops.reach.solve()
        solved = importlib.import_module(
            "bl_ext.user_default.reach_ik.bridge.session.last_report"
        ).last(obj)
        assert solved.satisfied == bool(reached[k]), (points[k], bool(reached[k]))


def test_envelope_is_empty_when_another_constraint_cannot_hold(
    clean_scene: bpy.types.Scene,
) -> None:
    obj = _planar_arm()
    _second_chain(obj, (5.0, 0.0, 1.0))  # out of the two bones' reach
    obj.reach_ik.active_index = 0
    assert bpy.ops.reach.envelope(resolution=5) == {"FINISHED"}
    cloud = bpy.data.objects[f"Envelope {obj.reach_ik.constraints[0].name}"]
    assert cloud["reach_reached"] == 0
    assert len(cloud.data.vertices) == 0


def test_limit_closeness_reads_only_the_mapped_chain(clean_scene: bpy.types.Scene) -> None:
    obj = _planar_arm()
    _second_chain(obj, (2.0, 0.0, 1.0))  # met where it rests
    for name in ("s0", "s1"):  # the other chain's hinges rest on a limit
        pb = obj.pose.bones[name]
        pb.lock_ik_y = pb.lock_ik_z = True
        pb.use_ik_limit_x = True
        pb.ik_min_x, pb.ik_max_x = 0.0, math.radians(170.0)
    obj.reach_ik.active_index = 0
    assert bpy.ops.reach.envelope(resolution=9, effort="LIMITS") == {"FINISHED"}
    cloud = bpy.data.objects[f"Envelope {obj.reach_ik.constraints[0].name}"]
    effort = np.empty(len(cloud.data.vertices))
    cloud.data.attributes["reach_effort"].data.foreach_get("value", effort)
    assert len(effort) and effort.min() < 0.9  # not every sample on the other chain's limit


def test_the_planar_arm_is_solved_in_batches(clean_scene: bpy.types.Scene) -> None:
    obj = _planar_arm()
    reach_map = importlib.import_module("bl_ext.user_default.reach_ik.bridge.envelope.reach_map")
    job = reach_map.EnvelopeJob(obj, obj.reach_ik, bpy.context.scene, bpy.context.view_layer,
                                obj.reach_ik.constraints[0].name, RESOLUTION)  # fmt: skip
    beyond = job.index  # samples out of the chain's span: unreached without a solve
    assert 0 < beyond < job.total
    job.step()
    assert job._batch is not None  # the batch took the first samples: boxes and a point goal
    assert job.index == beyond + min(reach_map.BATCH_SAMPLES, job.total - beyond)
    while not job.done:
        job.step()
    assert not job.reached[job._beyond].any()


def test_a_goal_that_does_not_measure_position_reaches_beyond_the_span(
    clean_scene: bpy.types.Scene,
) -> None:
    # Position Weight 0: a Solve meets the goal by the orientation alone, wherever its point
    # (the target's Y turned 60 degrees towards +Z: b2 can align with it).
    obj = _planar_arm()
    item = obj.reach_ik.constraints[0]
    item.goal_type, item.position_weight = "POSITION_ORIENTATION", 0.0
    bpy.data.objects["T"].rotation_euler = (math.radians(60.0), 0.0, 0.0)
    bpy.context.view_layer.update()
    assert bpy.ops.reach.envelope(resolution=7, orientation=True) == {"FINISHED"}
    cloud = bpy.data.objects[f"Envelope {item.name}"]
    assert cloud["reach_reached"] == cloud["reach_samples"]
    target = bpy.data.objects["T"]
    target.location = (0.0, 5.0, 5.0)  # far beyond the two bones
    bpy.context.view_layer.update()
    bpy.ops.reach.solve()
    report = importlib.import_module("bl_ext.user_default.reach_ik.bridge.session.last_report")
    assert report.last(obj).satisfied
