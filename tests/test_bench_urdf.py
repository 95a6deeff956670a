"""The bench's URDF serial-chain loader and its chain model, against independent kinematics.

The loader's chain (plain 4x4 products in bench/serial.py) must place the tip where
TRAC-IK's KDL (C++, parsing the same URDF file itself) and ikpy (its own URDF parser)
place it, and the solver Figure built from it must agree too.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from bench.chains import arm7, serial_chain, to_serial
from bench.chains import forward as spec_forward
from bench.figures import chain_figure
from bench.robots import ROBOTS, robot_chain, urdf_path
from bench.serial import (
    forward,
    matrix_rpy,
    rotation_about,
    rotation_angle,
    rpy_matrix,
    to_urdf,
)
from bench.urdf import URDFError, read_chain


def _kdl(urdf: str, base: str, tip: str):
    import pytracik

    return pytracik.TRAC_IK(base, tip, urdf, 0.005, 1e-5, pytracik.SolveType.Speed)


def _samples(chain, count=6, seed=3):
    rng = np.random.default_rng(seed)
    return rng.uniform(chain.lower, chain.upper, size=(count, chain.n))


@pytest.mark.parametrize("robot", sorted(ROBOTS))
def test_robot_tip_matches_trac_ik_kdl_and_ikpy(robot):
    import pytracik
    from ikpy.chain import Chain

    chain = robot_chain(robot)
    text = urdf_path(robot).read_text()
    kdl = _kdl(text, chain.base_link, chain.tip_link)
    assert pytracik.get_num_joints(kdl) == chain.n
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ik = Chain.from_urdf_file(
            str(urdf_path(robot)), base_elements=[chain.base_link], symbolic=False
        )
    movable = [i for i, link in enumerate(ik.links) if link.joint_type == "revolute"]
    assert len(movable) == chain.n
    for q in _samples(chain):
        position, rotation = forward(chain, q)
        frame = pytracik.fk(kdl, q)
        np.testing.assert_allclose(position, frame[:3, 3], atol=1e-12)
        np.testing.assert_allclose(rotation, frame[:3, :3], atol=1e-12)
        full = np.zeros(len(ik.links))
        full[movable] = q
        ikpy_frame = ik.forward_kinematics(full)
        np.testing.assert_allclose(position, ikpy_frame[:3, 3], atol=1e-9)
        np.testing.assert_allclose(rotation, ikpy_frame[:3, :3], atol=1e-9)


@pytest.mark.parametrize("robot", sorted(ROBOTS))
def test_figure_of_a_robot_places_the_tip_like_the_chain(robot):
    chain = robot_chain(robot)
    figure = chain_figure(chain)
    assert figure.joint_names == chain.joints
    for q in _samples(chain):
        last = figure.forward(q)[f"link{chain.n - 1}"] @ chain.tip
        position, rotation = forward(chain, q)
        np.testing.assert_allclose(last[:3, 3], position, atol=1e-12)
        np.testing.assert_allclose(last[:3, :3], rotation, atol=1e-12)


@pytest.mark.parametrize("spec", [serial_chain(3), serial_chain(10), arm7()], ids=str)
def test_procedural_chain_urdf_round_trip_and_kdl(spec):
    import pytracik

    chain = to_serial(spec)
    text = to_urdf(chain)
    again = read_chain(text, chain.base_link, chain.tip_link)
    kdl = _kdl(text, chain.base_link, chain.tip_link)
    for q in _samples(chain):
        position, rotation = spec_forward(spec, q)
        for p, r in (forward(chain, q), forward(again, q)):
            np.testing.assert_allclose(p, position, atol=1e-12)
            np.testing.assert_allclose(r, rotation, atol=1e-12)
        frame = pytracik.fk(kdl, q)
        np.testing.assert_allclose(frame[:3, 3], position, atol=1e-12)
        np.testing.assert_allclose(frame[:3, :3], rotation, atol=1e-12)


def test_rpy_round_trip_and_closed_forms():
    rng = np.random.default_rng(0)
    for roll, pitch, yaw in rng.uniform([-3, -1.5, -3], [3, 1.5, 3], size=(20, 3)):
        r = rpy_matrix(roll, pitch, yaw)
        np.testing.assert_allclose(matrix_rpy(r), (roll, pitch, yaw), atol=1e-12)
        np.testing.assert_allclose(rpy_matrix(*matrix_rpy(r)), r, atol=1e-12)
    # roll alone is a rotation about X; yaw alone about Z (closed forms).
    np.testing.assert_allclose(rpy_matrix(math.pi / 2, 0, 0) @ [0, 1, 0], [0, 0, 1], atol=1e-15)
    np.testing.assert_allclose(rpy_matrix(0, 0, math.pi / 2) @ [1, 0, 0], [0, 1, 0], atol=1e-15)
    gimbal = rpy_matrix(0.3, math.pi / 2, -0.2)
    np.testing.assert_allclose(rpy_matrix(*matrix_rpy(gimbal)), gimbal, atol=1e-12)


def test_rotation_about_and_rotation_angle():
    axis = np.array([1.0, 2.0, 2.0]) / 3.0
    for angle in (1e-9, 1e-4, 0.5, 3.0):
        r = rotation_about(axis, angle)
        np.testing.assert_allclose(r @ axis, axis, atol=1e-15)
        np.testing.assert_allclose(r.T @ r, np.eye(3), atol=1e-15)
        base = rpy_matrix(0.1, 0.2, 0.3)
        assert rotation_angle(base @ r, base) == pytest.approx(angle, rel=1e-9)


def test_loader_rejects_what_it_cannot_read_by_name():
    chain = to_serial(serial_chain(3))
    text = to_urdf(chain)
    with pytest.raises(URDFError, match="'j1' is 'prismatic'"):
        read_chain(
            text.replace('name="j1" type="revolute"', 'name="j1" type="prismatic"'),
            chain.base_link,
            chain.tip_link,
        )
    with pytest.raises(URDFError, match="no joint path from link 'base' to link 'nowhere'"):
        read_chain(text, "base", "nowhere")
    with pytest.raises(URDFError, match="joint 'j2' lower limit: lower='nan' is not finite"):
        read_chain(
            text.replace('lower="' + repr(float(chain.lower[2])), 'lower="nan'),
            chain.base_link,
            chain.tip_link,
        )
    with pytest.raises(URDFError, match="not well-formed"):
        read_chain("<robot", "a", "b")


def test_fixed_joints_fold_into_the_next_origin_and_the_tip():
    text = """<robot name="r">
      <link name="a"/><link name="b"/><link name="c"/><link name="d"/>
      <joint name="f0" type="fixed"><parent link="a"/><child link="b"/>
        <origin xyz="0 0 1" rpy="0 0 1.5707963267948966"/></joint>
      <joint name="q" type="revolute"><parent link="b"/><child link="c"/>
        <origin xyz="1 0 0"/><axis xyz="0 0 2"/><limit lower="-1" upper="1"/></joint>
      <joint name="f1" type="fixed"><parent link="c"/><child link="d"/>
        <origin xyz="2 0 0"/></joint>
    </robot>"""
    chain = read_chain(text, "a", "d")
    assert chain.joints == ("q",) and chain.n == 1
    np.testing.assert_allclose(chain.axes[0], [0, 0, 1])
    # At q = 0: up 1, then (turned 90 deg about Z) x -> y: 1 + 2 along world y.
    position, _ = forward(chain, np.zeros(1))
    np.testing.assert_allclose(position, [0.0, 3.0, 1.0], atol=1e-12)
    position, _ = forward(chain, np.array([math.pi / 2]))
    np.testing.assert_allclose(position, [-2.0, 1.0, 1.0], atol=1e-12)
