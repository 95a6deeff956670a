"""Bone -> joints without Blender: limits, locks, rigidity, stretch, keyed channels.

``bridge.rig.joints`` reads pose bones only through their attributes; the stand-ins of
``tests/bridge_stubs.py`` carry the same attributes, so the rules the bridge applies are
checked here in the plain test run (real Blender checks the whole in ``tests/blender``).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests.bridge_stubs import (
    StubBone,
    StubBoneSettings,
    StubLimitRotation,
    StubPoseBone,
    bridge_module,
    joint_table,
)

rig_joints = bridge_module("rig.joints")
solver = bridge_module("rig.joints").solver  # the package's own copy of the solver

X, Y, Z = (1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)


def figure_for(pb: StubPoseBone, root_translation: bool = False) -> object:
    """A figure with the segments ``bridge.rig.build`` makes for one solved bone."""
    fig = solver.Figure()
    order, _, _ = rig_joints.bone_limits(pb, "c")
    parent = None
    if order is None and rig_joints.has_location(pb, root_translation):
        fig.add_segment(pb.name + "@loc")
        parent = pb.name + "@loc"
    fig.add_segment(pb.name, parent)
    return fig


def solved(pb: StubPoseBone, root_translation: bool = False):
    """``(SolvedBone, joint table)`` for one pose bone."""
    fig = figure_for(pb, root_translation)
    info = rig_joints.add_solved_bone(fig, pb, "c", root_translation)
    return info, joint_table(fig)


# ---------------------------------------------------------------- limits


def test_a_bone_without_limits_has_no_euler_order() -> None:
    order, lower, upper = rig_joints.bone_limits(StubPoseBone("arm"), "c")
    assert order is None
    assert np.all(lower == -np.inf) and np.all(upper == np.inf)


def test_limit_rotation_of_a_quaternion_bone_uses_xyz_order() -> None:
    limit = StubLimitRotation(use_limit_x=True, min_x=-0.5, max_x=1.0)
    order, lower, upper = rig_joints.bone_limits(StubPoseBone("arm", constraints=[limit]), "c")
    assert order == "XYZ"
    np.testing.assert_array_equal(lower, [-0.5, -np.inf, -np.inf])
    np.testing.assert_array_equal(upper, [1.0, np.inf, np.inf])


def test_ik_limits_alone_are_not_an_euler_box_but_blenders_ik_segment() -> None:
    pb = StubPoseBone("arm", use_ik_limit_x=True, ik_min_x=-0.5, ik_max_x=1.0)
    order, _, _ = rig_joints.bone_limits(pb, "c")
    assert order is None
    info, _joints = solved(pb)
    assert info.param == rig_joints.IK_SEGMENT and info.segment.kind == "SPHERICAL"
    # Rz(b/2) Rx(a) Rz(b/2) Ry(t): a is the X limit exactly (sx = sin(a/2)), no rows.
    assert [axis for axis, _ in info.rotation_joints] == [2, 0, 2, 1]
    assert info.coordinates == ["arm:swing[0]", "arm:swing[1]", "arm:swing[2]"]
    assert info.keyed_rotation == (0, 1, 2, 3)


@pytest.mark.parametrize(
    "euler_setting",
    [
        {"constraints": [StubLimitRotation(use_limit_x=True, min_x=-0.2, max_x=0.2)]},
        {"rotation_mode": "XYZ", "lock_rotation": (False, False, True)},
    ],
)
def test_ik_limits_of_an_euler_bone_join_its_euler_box(euler_setting: dict) -> None:
    pb = StubPoseBone("arm", use_ik_limit_z=True, ik_min_z=-0.3, ik_max_z=0.4, **euler_setting)
    assert rig_joints.ik_limits_of(pb) is None
    info, _joints = solved(pb)
    assert info.param == "XYZ" and info.segment is None


@pytest.mark.parametrize(
    ("locks", "kind", "axes"),
    [
        ((False, True, False), "SWING", [2, 0, 2]),
        ((True, False, False), "ELBOW_Z", [2, 1]),
        ((False, False, True), "ELBOW_X", [0, 1]),
        ((True, True, False), "REVOLUTE_Z", [2]),
        ((False, True, True), "REVOLUTE_X", [0]),
    ],
)
def test_ik_locks_choose_blenders_segment_type(locks: tuple, kind: str, axes: list) -> None:
    pb = StubPoseBone(
        "arm",
        lock_ik_x=locks[0], lock_ik_y=locks[1], lock_ik_z=locks[2],
        **{f"use_ik_limit_{a}": True for a in "xyz"},
        **{f"ik_min_{a}": -0.4 for a in "xyz"},
        **{f"ik_max_{a}": 0.7 for a in "xyz"},
    )  # fmt: skip
    info, joints = solved(pb)
    assert info.segment.kind == kind
    assert [axis for axis, _ in info.rotation_joints] == axes
    if kind != "SWING":  # elbows and revolutes: the limits bound the angles directly
        for _axis, joint in info.rotation_joints:
            assert joints[joint][2:4] == (-0.4, 0.7)


def test_a_bone_with_every_ik_axis_locked_keeps_its_rotation() -> None:
    pb = StubPoseBone(
        "arm", lock_ik_x=True, lock_ik_y=True, lock_ik_z=True, use_ik_limit_x=True,
        ik_min_x=-0.5, ik_max_x=0.5,
    )  # fmt: skip
    info, joints = solved(pb)
    assert info.param == "LOCAL" and joints == {} and info.keyed_rotation == ()


def test_limit_rotation_intersects_ik_limits_and_sets_the_order() -> None:
    limit = StubLimitRotation(euler_order="ZXY", use_limit_x=True, min_x=-1.0, max_x=0.5)
    limit.use_limit_z, limit.min_z, limit.max_z = True, 0.1, 0.2
    pb = StubPoseBone("arm", use_ik_limit_x=True, ik_min_x=-0.5, ik_max_x=1.0, constraints=[limit])
    order, lower, upper = rig_joints.bone_limits(pb, "c")
    assert order == "ZXY"
    np.testing.assert_array_equal(lower, [-0.5, -np.inf, 0.1])
    np.testing.assert_array_equal(upper, [0.5, np.inf, 0.2])


@pytest.mark.parametrize(
    "limit",
    [
        StubLimitRotation(mute=True, use_limit_x=True, min_x=-0.1, max_x=0.1),
        StubLimitRotation(owner_space="WORLD", use_limit_x=True, min_x=-0.1, max_x=0.1),
    ],
    ids=["muted", "world-space"],
)
def test_muted_or_non_local_limit_rotation_is_ignored(limit: StubLimitRotation) -> None:
    order, lower, upper = rig_joints.bone_limits(StubPoseBone("arm", constraints=[limit]), "c")
    assert order is None
    assert np.all(np.isinf(lower)) and np.all(np.isinf(upper))


def test_euler_bone_with_a_locked_channel_uses_its_rotation_mode() -> None:
    pb = StubPoseBone("arm", rotation_mode="YZX", lock_rotation=(False, True, False))
    order, _, _ = rig_joints.bone_limits(pb, "c")
    assert order == "YZX"


def test_limit_rotation_with_min_above_max_names_bone_constraint_and_axis() -> None:
    limit = StubLimitRotation(name="Elbow limit", use_limit_y=True, min_y=0.5, max_y=-0.5)
    pb = StubPoseBone("forearm", constraints=[limit])
    with pytest.raises(rig_joints.RigError, match=r"'reach'.*'forearm'.*Y.*'Elbow limit'"):
        rig_joints.bone_limits(pb, "reach")


def test_disjoint_ik_and_limit_rotation_ranges_are_refused() -> None:
    limit = StubLimitRotation(use_limit_z=True, min_z=0.5, max_z=1.0)
    pb = StubPoseBone("arm", use_ik_limit_z=True, ik_min_z=-1.0, ik_max_z=0.0, constraints=[limit])
    with pytest.raises(rig_joints.RigError, match=r"'arm'.*on Z.*do not overlap"):
        rig_joints.bone_limits(pb, "c")


# ---------------------------------------------------------------- joints


def test_free_bone_gets_three_local_revolutes_with_ik_stiffness() -> None:
    pb = StubPoseBone("arm", ik_stiffness_x=0.25, ik_stiffness_y=0.5, ik_stiffness_z=0.75)
    info, joints = solved(pb)
    assert info.param == "LOCAL"
    assert joints == {
        "arm:rotX": ("revolute", X, -math.inf, math.inf, 0.25),
        "arm:rotY": ("revolute", Y, -math.inf, math.inf, 0.5),
        "arm:rotZ": ("revolute", Z, -math.inf, math.inf, 0.75),
    }
    assert info.rotation_joints == [(0, "arm:rotX"), (1, "arm:rotY"), (2, "arm:rotZ")]
    assert info.keyed_rotation == (0, 1, 2, 3)  # all four quaternion channels


def test_reach_rigidity_overrides_ik_stiffness_and_is_clipped() -> None:
    settings = StubBoneSettings(use_rigidity=True, rigidity=(1.5, -0.5, 0.3))
    pb = StubPoseBone("arm", ik_stiffness_x=0.9, reach_ik=settings)
    _, joints = solved(pb)
    assert [joints[f"arm:rot{a}"][4] for a in "XYZ"] == [1.0, 0.0, 0.3]


def test_ik_locks_drop_axes_and_a_fully_locked_bone_keys_nothing() -> None:
    info, joints = solved(StubPoseBone("arm", lock_ik_y=True))
    assert sorted(joints) == ["arm:rotX", "arm:rotZ"]
    locked = StubPoseBone("arm", lock_ik_x=True, lock_ik_y=True, lock_ik_z=True)
    info, joints = solved(locked)
    assert joints == {} and info.keyed_rotation == ()


def test_limited_bone_gets_euler_angles_in_reverse_order_within_half_turns() -> None:
    limit = StubLimitRotation(use_limit_x=True, min_x=-0.5, max_x=1.0)
    pb = StubPoseBone("arm", rotation_mode="ZXY", constraints=[limit])
    info, joints = solved(pb)
    assert info.param == "ZXY"
    # R = R_Y R_X R_Z: the revolutes are added Y, X, Z.
    assert list(joints) == ["arm:rotY", "arm:rotX", "arm:rotZ"]
    assert joints["arm:rotX"][2:4] == (-0.5, 1.0)
    assert joints["arm:rotY"][2:4] == (-math.pi, math.pi)
    assert info.keyed_rotation == (0, 1, 2)


def test_a_locked_euler_channel_is_pinned_at_its_value_and_not_keyed() -> None:
    pb = StubPoseBone(
        "arm",
        rotation_mode="XYZ",
        rotation_euler=(0.0, 0.3, 0.0),
        lock_rotation=(False, True, False),
    )
    info, joints = solved(pb)
    lower, upper = joints["arm:rotY"][2:4]
    assert lower == upper == pytest.approx(0.3)
    assert info.keyed_rotation == (0, 2)


def test_a_released_lock_rotation_is_free_as_in_blenders_ik() -> None:
    """Hold Lock Rotation off (what Convert sets): the locks only affect the transform tools,
    so the bone gets Blender's free parametrisation and every channel is solved and keyed."""
    pb = StubPoseBone(
        "arm",
        rotation_mode="ZXY",
        lock_rotation=(True, False, True),
        reach_ik=StubBoneSettings(hold_lock_rotation=False),
    )
    assert rig_joints.held_locks(pb) == [False, False, False]
    assert rig_joints.bone_limits(pb, "c")[0] is None
    info, joints = solved(pb)
    assert info.param == "LOCAL" and info.keyed_rotation == (0, 1, 2)
    assert all(joints[f"arm:rot{a}"][2] < joints[f"arm:rot{a}"][3] for a in "XYZ")


def test_wide_euler_box_is_cut_to_blenders_branch_by_eight_rows() -> None:
    pb = StubPoseBone("arm", rotation_mode="XYZ", lock_rotation=(False, False, True))
    fig = figure_for(pb)
    rig_joints.add_solved_bone(fig, pb, "c", False)
    # Z pinned at 0 (span pi + pi + 0 = 2 pi > 1.5 pi): |x| + |y| + |z| <= 1.5 pi.
    rows = [c for c in fig.linear_constraints if c.label == "arm Euler branch"]
    assert len(rows) == 8
    assert all(c.upper == pytest.approx(1.5 * math.pi) for c in rows)
    signs = {tuple(np.sign(list(c.coefficients.values()))) for c in rows}
    assert len(signs) == 8


def test_narrow_euler_box_needs_no_branch_rows() -> None:
    limit = StubLimitRotation(
        **{f"use_limit_{a}": True for a in "xyz"},
        **{f"min_{a}": -1.0 for a in "xyz"},
        **{f"max_{a}": 1.0 for a in "xyz"},
    )
    pb = StubPoseBone("arm", rotation_mode="XYZ", constraints=[limit])
    fig = figure_for(pb)
    rig_joints.add_solved_bone(fig, pb, "c", False)
    assert fig.linear_constraints == ()


@pytest.mark.parametrize("connected", [True, False])
def test_ik_stretch_is_not_a_location_slide(connected: bool) -> None:
    """Blender's IK stretches by scale (``bridge.rig.stretch``), never by location."""
    parent = StubBone("upper")
    pb = StubPoseBone("arm", ik_stretch=0.5, bone=StubBone("arm", parent, use_connect=connected))
    info, joints = solved(pb)
    assert info.location_joints == [] and not any(":loc" in name for name in joints)
    assert info.location_segment is None


def test_root_translation_adds_three_unbounded_slides_to_root_bones_only() -> None:
    info, joints = solved(StubPoseBone("root"), root_translation=True)
    assert [joints[f"root:loc{a}"] for a in "XYZ"] == [
        ("prismatic", axis, -math.inf, math.inf, 0.0) for axis in (X, Y, Z)
    ]
    assert info.location_joints == [(0, "root:locX"), (1, "root:locY"), (2, "root:locZ")]
    child = StubPoseBone("arm", bone=StubBone("arm", StubBone("root")))
    _, joints = solved(child, root_translation=True)
    assert not any(":loc" in name for name in joints)


# ---------------------------------------------------------------- channels


@pytest.mark.parametrize(
    ("mode", "path", "values"),
    [
        ("QUATERNION", "rotation_quaternion", (0.5, 0.5, 0.5, 0.5)),
        ("AXIS_ANGLE", "rotation_axis_angle", (0.3, 0.0, 1.0, 0.0)),
        ("YXZ", "rotation_euler", (0.1, 0.2, 0.3)),
    ],
)
def test_rotation_channels_follow_the_rotation_mode(
    mode: str, path: str, values: tuple[float, ...]
) -> None:
    pb = StubPoseBone("arm", rotation_mode=mode)
    assert rig_joints.rotation_data_path(pb) == path
    rig_joints.set_rotation_values(pb, np.array(values))
    np.testing.assert_array_equal(getattr(pb, path), values)
    np.testing.assert_array_equal(rig_joints.rotation_values(pb), values)
