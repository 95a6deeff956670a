"""Robots read from URDF as Blender bone chains: Blender's evaluated pose is the URDF's.

The bench's forward kinematics (bench/serial.py, itself checked against TRAC-IK's KDL) and
Blender's evaluated bones must agree to bpy's float32 precision, so Blender's IK answers on
the robot chains are graded on the same chain as every other peer's. The chain is the KUKA
iiwa's joints (origins, axes, limits) copied from pybullet_data's model.urdf, written out
here so this test needs only bpy and numpy (it also runs in the Blender 4.2 venv); the
third joint's lower limit is widened past -pi to exercise the clamping.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from bench.peers.blender_robot import BONE_LENGTH, BlenderRobotIK, bone_spec
from bench.serial import forward, sample_targets
from bench.urdf import read_chain

JOINTS = [  # name, origin xyz, origin rpy, limit
    ("j1", "0 0 0.1575", "0 0 0", 2.96705972839),
    ("j2", "0 0 0.2025", "1.57079632679 0 3.14159265359", 2.09439510239),
    ("j3", "0 0.2045 0", "1.57079632679 0 3.14159265359", 2.96705972839),
    ("j4", "0 0 0.2155", "1.57079632679 0 0", 2.09439510239),
    ("j5", "0 0.1845 0", "-1.57079632679 3.14159265359 0", 2.96705972839),
    ("j6", "0 0 0.2155", "1.57079632679 0 0", 2.09439510239),
    ("j7", "0 0.081 0", "-1.57079632679 3.14159265359 0", 3.05432619099),
]


def robot_chain():
    links = "".join(f'<link name="l{i}"/>' for i in range(8))
    joints = "".join(
        f'<joint name="{name}" type="revolute"><parent link="l{i}"/><child link="l{i + 1}"/>'
        f'<origin xyz="{xyz}" rpy="{rpy}"/><axis xyz="0 0 1"/>'
        f'<limit lower="{-4.0 if name == "j3" else -limit}" upper="{limit}"/></joint>'
        for i, (name, xyz, rpy, limit) in enumerate(JOINTS)
    )
    return read_chain(f'<robot name="iiwa">{links}{joints}</robot>', "l0", "l7")


@pytest.fixture(scope="module")
def iiwa():
    wide = robot_chain()
    lower = wide.lower.copy()
    lower[2] = -2.96705972839  # the real limit: samples stay inside Blender's range
    chain = replace(wide, lower=lower)
    ik = BlenderRobotIK(chain, "LEGACY", iterations=500, precision=1e-6)
    yield chain, ik
    ik.close()


def test_evaluated_bones_follow_the_urdf_chain(iiwa):
    chain, ik = iiwa
    for q in np.random.default_rng(0).uniform(chain.lower, chain.upper, size=(4, chain.n)):
        tip, rotation, angles = ik.forward(q)
        position, expected = forward(chain, q)
        np.testing.assert_allclose(tip, position, atol=1e-6)
        np.testing.assert_allclose(rotation, expected, atol=1e-6)
        np.testing.assert_allclose(angles, q, atol=1e-6)


def test_tail_target_is_where_the_last_tail_goes_when_the_tip_is_on_target(iiwa):
    chain, ik = iiwa
    targets = sample_targets(chain, 1)
    tail, rotation = ik.tail_target(targets.positions[0], targets.rotations[0])
    ik.forward(targets.angles[0])
    last = ik.pose_matrices()[-1]
    np.testing.assert_allclose(tail, last[:3, 3] + BONE_LENGTH * last[:3, 1], atol=1e-6)
    np.testing.assert_allclose(rotation, last[:3, :3], atol=1e-6)


def test_limits_are_clamped_to_blenders_range_and_axes_named():
    chain = robot_chain()
    spec = bone_spec(chain)
    assert spec.axes == ["Z"] * 7
    assert spec.lower[2] == pytest.approx(-np.pi) and spec.upper[2] == pytest.approx(2.96705972839)
    assert spec.lower[:2] == pytest.approx(list(chain.lower[:2]))
    turned = np.array(chain.axes)
    turned[1] = [0.6, 0.8, 0.0]
    with pytest.raises(ValueError, match="joint 'j2': axis"):
        bone_spec(replace(chain, axes=turned))
