"""A rig's start coordinates (``RigPose.initial``, what ``Rig.initial`` returns) without
Blender: every kind of solved bone.

``RigPose.initial`` reads only the pose (rotations, locations, LOCAL joint values) and the
figure, so stand-in pose bones (``tests/bridge_stubs.py``) build the figure here. The expected
coordinates are written name by name from the figure's ``coordinate_names``.
"""

from __future__ import annotations

import numpy as np

from tests.bridge_stubs import StubLimitRotation, StubPoseBone, bridge_module

rig_pose = bridge_module("rig.pose")
rig_joints = bridge_module("rig.joints")
rotations = bridge_module("blender.channel_rotations")
ik_limits = bridge_module("blender_ik.ik_limits")
solver = rig_joints.solver  # the package's own copy of the solver

SCALE = 2.0  # the rig's scale: location joints are in scene units


def _three_bone_pose() -> tuple[object, object, dict]:
    """The pose, figure and solved bones of a LOCAL root with location joints, an Euler bone
    and an IK_SEGMENT bone."""
    root = StubPoseBone("root")
    euler = StubPoseBone(
        "euler", rotation_mode="XYZ",
        constraints=[StubLimitRotation(use_limit_x=True, min_x=-1.0, max_x=1.0)],
    )  # fmt: skip
    segment = StubPoseBone("segment", use_ik_limit_x=True, ik_min_x=-0.5, ik_max_x=1.0)
    euler.bone.parent, segment.bone.parent = root.bone, euler.bone
    fig = solver.Figure()
    fig.add_segment("root@loc")
    fig.add_segment("root", "root@loc")
    fig.add_segment("euler", "root")
    fig.add_segment("segment", "euler")
    solved = {
        "root": rig_joints.add_solved_bone(fig, root, "c", True),
        "euler": rig_joints.add_solved_bone(fig, euler, "c", True),
        "segment": rig_joints.add_solved_bone(fig, segment, "c", True),
    }
    assert [info.param for info in solved.values()] == ["LOCAL", "XYZ", rig_joints.IK_SEGMENT]
    assert solved["root"].location_joints
    turn = rotations.euler_to_matrix(np.array([0.3, -0.2, 0.4]), "XYZ")
    bend = rotations.euler_to_matrix(np.array([0.2, 0.1, -0.3]), "XYZ")
    pose = rig_pose.RigPose(None, fig, tuple(solved), solved, SCALE, (), ())
    pose.rotation.update({"root": np.eye(3), "euler": turn, "segment": bend})
    pose.location.update({name: np.array([0.5, -0.25, 0.125]) for name in solved})
    pose.local_values["root"] = np.array([0.1, -0.2, 0.3])
    return pose, fig, solved


def _expected(pose: object, figure: object, solved: dict) -> np.ndarray:
    """The start coordinates, looked up name by name in the figure's coordinate names."""
    names = list(figure.coordinate_names)
    x = np.zeros(len(names))
    root, euler, segment = solved["root"], solved["euler"], solved["segment"]
    for n, (_axis, joint) in enumerate(root.rotation_joints):
        x[names.index(joint)] = pose.local_values["root"][n]
    for axis, joint in root.location_joints:
        x[names.index(joint)] = SCALE * pose.location["root"][axis]
    angles = rotations.matrix_to_euler(pose.rotation["euler"], "XYZ")
    for axis, joint in euler.rotation_joints:
        x[names.index(joint)] = angles[axis]
    params = ik_limits.params_of(segment.segment, pose.rotation["segment"])
    for coordinate, value in zip(segment.coordinates, params, strict=True):
        x[names.index(coordinate)] = value
    return x


def test_the_start_holds_each_bones_values_at_its_coordinates() -> None:
    pose, figure, solved = _three_bone_pose()
    np.testing.assert_array_equal(pose.initial(), _expected(pose, figure, solved))
    assert np.count_nonzero(pose.initial()) > 6  # the values are there, not zeros


def test_the_start_follows_a_new_state_and_a_new_figure_layout() -> None:
    """The start is read from the state at every call, and each coordinate's place is found
    again when the figure gains a joint (which moves the IK segment's parameters)."""
    pose, figure, solved = _three_bone_pose()
    pose.initial()
    pose.local_values["root"] = np.array([-0.4, 0.0, 0.2])
    pose.rotation["segment"] = rotations.euler_to_matrix(np.array([-0.1, 0.5, 0.2]), "XYZ")
    pose.location["root"] = np.array([1.0, 2.0, 3.0])
    np.testing.assert_array_equal(pose.initial(), _expected(pose, figure, solved))
    before = list(figure.coordinate_names)
    figure.add_segment("extra", "segment")
    figure.add_revolute("extra", (1.0, 0.0, 0.0))  # a free joint: before the parameters
    moved = [c for c in solved["segment"].coordinates]
    assert [before.index(c) for c in moved] != [
        list(figure.coordinate_names).index(c) for c in moved
    ]
    np.testing.assert_array_equal(pose.initial(), _expected(pose, figure, solved))
