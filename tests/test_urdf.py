"""``solver.model.urdf``: figures from URDF files, against independent kinematics.

Every link's frame must be where TRAC-IK's KDL (C++, parsing the same file) and ikpy (its own
parser) put it, on the bench's robots and the Franka Panda (a tree: two fingers on
prismatic joints, one mimicking the other); the mimic must hold through a solve; what
cannot be read is refused naming the joint or link.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

from solver import Constraint, EndEffector, PositionGoal, PositionOrientationGoal, solve
from solver.model.urdf import URDFError, load_urdf, urdf_figure

ROBOTS = {
    # name: (file under pybullet_data, base link, tip link, moving joints base -> tip)
    "iiwa7": ("kuka_iiwa/model.urdf", "lbr_iiwa_link_0", "lbr_iiwa_link_7", 7),
    "xarm6": ("xarm/xarm6_robot.urdf", "link_base", "link6", 6),
    "panda": ("franka_panda/panda.urdf", "panda_link0", "panda_hand", 7),
}


def _path(robot: str) -> Path:
    import pybullet_data

    return Path(pybullet_data.getDataPath()) / ROBOTS[robot][0]


def _chain_joints(figure, tip: str) -> list[str]:
    """The moving joints from the root to ``tip``, root first."""
    names: list[str] = []
    segments = figure.segments
    s = figure.segment_index(tip)
    while s >= 0:
        names[:0] = [figure.joints[j].name for j in segments[s].joints]
        s = segments[s].parent
    return names


@pytest.mark.parametrize("robot", sorted(ROBOTS))
def test_links_are_where_kdl_and_ikpy_put_them(robot: str) -> None:
    import pytracik
    from ikpy.chain import Chain

    _, base, tip, n = ROBOTS[robot]
    figure = load_urdf(_path(robot))
    assert base in figure.segment_names and tip in figure.segment_names
    chain = _chain_joints(figure, tip)
    assert len(chain) == n
    kdl = pytracik.TRAC_IK(base, tip, _path(robot).read_text(), 0.005, 1e-5,
                           pytracik.SolveType.Speed)  # fmt: skip
    assert pytracik.get_num_joints(kdl) == n
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ik = Chain.from_urdf_file(str(_path(robot)), base_elements=[base], symbolic=False)
    movable = [i for i, link in enumerate(ik.links) if link.joint_type == "revolute"][:n]
    lower, upper = figure.coordinate_bounds()
    rng = np.random.default_rng(7)
    for _ in range(6):
        coords = rng.uniform(np.maximum(lower, -3.0), np.minimum(upper, 3.0))
        values = dict(zip(figure.joint_names, figure.joint_values(coords), strict=True))
        q = np.array([values[name] for name in chain])
        frame = figure.forward(coords)[tip]
        np.testing.assert_allclose(frame, pytracik.fk(kdl, q), atol=1e-12)
        if robot != "panda":  # ikpy follows the Panda's first branch past the hand
            full = np.zeros(len(ik.links))
            full[movable] = q
            np.testing.assert_allclose(frame, ik.forward_kinematics(full), atol=1e-9)


def test_limits_and_kinds_come_from_the_file() -> None:
    figure = load_urdf(_path("panda"))
    lower, upper = figure.coordinate_bounds()
    bounds = dict(zip(figure.coordinate_names, zip(lower, upper, strict=True), strict=True))
    assert bounds["panda_joint4"] == (-3.1416, 0.0)  # <limit>, not the safety controller
    assert bounds["panda_finger_joint1"] == (0.0, 0.04)
    kinds = {j.name: j.kind for j in figure.joints}
    assert kinds["panda_finger_joint1"] != kinds["panda_joint1"]  # prismatic, revolute
    assert len(figure.joint_names) == 9  # 7 arm joints and two fingers; fixed joints none
    assert "panda_grasptarget" in figure.segment_names  # a fixed joint's link is a segment


def test_a_full_pose_target_of_the_iiwa_is_reached_to_a_micrometre() -> None:
    figure = load_urdf(_path("iiwa7"))
    lower, upper = figure.coordinate_bounds()
    goal_coords = np.random.default_rng(11).uniform(lower, upper) * 0.8
    target = figure.forward(goal_coords)["lbr_iiwa_link_7"]
    result = solve(figure, [Constraint(EndEffector.from_matrix("lbr_iiwa_link_7", np.eye(4)),
                                       PositionOrientationGoal.from_matrix(target))])  # fmt: skip
    assert result.success, result
    reached = figure.forward(result.x)["lbr_iiwa_link_7"]
    assert np.linalg.norm(reached[:3, 3] - target[:3, 3]) < 1e-6
    assert np.abs(reached[:3, :3] - target[:3, :3]).max() < 1e-6


def test_a_mimic_joint_moves_with_the_joint_it_mimics() -> None:
    """The Panda's second finger mimics the first (multiplier 1): pulling the first finger's
    tip open moves both, equal to round-off, and both stay within 0..0.04 m."""
    figure = load_urdf(_path("panda"))
    hand = figure.forward()["panda_hand"]
    left = figure.forward()["panda_leftfinger"]
    opening = hand[:3, :3] @ np.array([0.0, 1.0, 0.0])  # the first finger's axis, world
    goal = PositionGoal(left[:3, 3] + 0.03 * opening)
    result = solve(figure, [Constraint(EndEffector("panda_leftfinger"), goal,
                                       chain_root="panda_leftfinger")])  # fmt: skip
    values = result.values()
    assert values["panda_finger_joint1"] == pytest.approx(0.03, abs=1e-6)
    assert values["panda_finger_joint2"] == pytest.approx(values["panda_finger_joint1"], abs=1e-9)


TWO_ARMS = """<robot name="two_arms">
  <link name="torso"/><link name="l_upper"/><link name="l_fore"/>
  <link name="r_upper"/><link name="r_fore"/><link name="r_tool"/>
  <joint name="l_shoulder" type="continuous">
    <parent link="torso"/><child link="l_upper"/>
    <origin xyz="0 0.2 0.5" rpy="0 0 0"/><axis xyz="0 0 1"/>
  </joint>
  <joint name="l_elbow" type="revolute">
    <parent link="l_upper"/><child link="l_fore"/>
    <origin xyz="0.3 0 0" rpy="0 0 0"/><axis xyz="0 0 1"/>
    <limit lower="-2" upper="2" effort="1" velocity="1"/>
    <mimic joint="l_shoulder" multiplier="-0.5" offset="0.1"/>
  </joint>
  <joint name="r_shoulder" type="revolute">
    <parent link="torso"/><child link="r_upper"/>
    <origin xyz="0 -0.2 0.5" rpy="0 0 1.5707963267948966"/><axis xyz="0 0 2"/>
    <limit lower="-3" upper="3" effort="1" velocity="1"/>
  </joint>
  <joint name="r_slide" type="prismatic">
    <parent link="r_upper"/><child link="r_fore"/>
    <origin xyz="0.3 0 0"/><axis xyz="1 0 0"/>
    <limit lower="0" upper="0.2" effort="1" velocity="1"/>
  </joint>
  <joint name="r_flange" type="fixed">
    <parent link="r_fore"/><child link="r_tool"/><origin xyz="0.1 0 0"/>
  </joint>
</robot>"""


def test_a_tree_with_two_tips_mimic_offset_and_prismatic_joint() -> None:
    """Both arms reach their targets in one solve, and the left elbow keeps
    ``-0.5 * shoulder + 0.1`` (checked in closed form against the figure's own frames)."""
    figure = urdf_figure(TWO_ARMS)
    assert figure.joint_names == ("l_shoulder", "l_elbow", "r_shoulder", "r_slide")
    frames = figure.forward([0.4, -0.1, 0.3, 0.05])
    elbow = [0.3 * np.cos(0.4), 0.2 + 0.3 * np.sin(0.4), 0.5]
    np.testing.assert_allclose(frames["l_fore"][:3, 3], elbow, atol=1e-12)
    turn = np.pi / 2 + 0.3  # the origin's yaw, then the shoulder (its axis normalised)
    tool = [0.45 * np.cos(turn), -0.2 + 0.45 * np.sin(turn), 0.5]
    np.testing.assert_allclose(frames["r_tool"][:3, 3], tool, atol=1e-12)
    left = PositionGoal([0.3 * np.cos(1.0), 0.2 + 0.3 * np.sin(1.0), 0.5])
    right = PositionGoal([0.0, -0.2 + 0.42, 0.5])
    result = solve(figure, [Constraint(EndEffector("l_upper", point=(0.3, 0, 0)), left),
                            Constraint(EndEffector("r_tool"), right)])  # fmt: skip
    assert result.success, result
    values = result.values()
    assert values["l_elbow"] == pytest.approx(-0.5 * values["l_shoulder"] + 0.1, abs=1e-9)
    assert values["r_slide"] == pytest.approx(0.02, abs=1e-6)


def _robot(*joints: str, links: str = "<link name='a'/><link name='b'/>") -> str:
    return f"<robot name='r'>{links}{''.join(joints)}</robot>"


def _joint(kind: str, name: str = "j", extra: str = "") -> str:
    return (f"<joint name='{name}' type='{kind}'><parent link='a'/><child link='b'/>"
            f"{extra}</joint>")  # fmt: skip


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("<robot", "not well-formed XML"),
        ("<model name='m'/>", "root element is <model>"),
        (_robot(_joint("floating", "base_free")), "joint 'base_free' is 'floating'"),
        (_robot(_joint("planar", "slide_xy")), "joint 'slide_xy' is 'planar'"),
        (_robot(_joint("revolute", extra="<axis xyz='0 0 0'/>")), "joint 'j' has a zero axis"),
        (_robot(_joint("revolute", extra="<axis xyz='1 0'/>")), "joint 'j' axis: xyz='1 0'"),
        (_robot(_joint("prismatic", extra="<limit lower='1' upper='0'/>")),
         "joint 'j': lower limit 1.0 is above upper 0.0"),
        (_robot(_joint("revolute", extra="<limit lower='nan' upper='1'/>")),
         "joint 'j' lower limit: lower='nan' is not finite"),
        (_robot(_joint("revolute", extra="<origin xyz='0 0 x'/>")), "joint 'j' origin"),
        (_robot(_joint("revolute").replace("link='b'", "link='c'")),
         "joint 'j': its child link 'c' is not a <link>"),
        (_robot(_joint("fixed", "j1"), _joint("fixed", "j2")),
         "link 'b' is the child of two joints, 'j1' and 'j2'"),
        (_robot(links="<link name='a'/><link name='b'/><link name='c'/>"),
         "exactly one root link"),
        (_robot(_joint("revolute", extra="<limit lower='-1' upper='1'/><mimic joint='k'/>")),
         "joint 'j' mimics 'k', which is no moving joint"),
        (_robot(_joint("fixed", extra="<mimic joint='j'/>")),
         "joint 'j' mimics 'j' but does not move itself"),
    ],
    ids=lambda v: v if len(v) < 40 else v[:40],
)  # fmt: skip
def test_what_cannot_be_read_is_refused_by_name(text: str, message: str) -> None:
    with pytest.raises(URDFError, match=message.replace("(", r"\(").replace("[", r"\[")):
        urdf_figure(text)


def test_continuous_joint_has_no_limits_and_missing_limits_are_zero() -> None:
    """URDF's own defaults: a continuous joint turns freely; a revolute joint's limit
    without lower/upper is 0..0 (the specification's default)."""
    text = _robot(
        _joint("continuous", "spin"),
        "<joint name='stuck' type='revolute'><parent link='b'/><child link='c'/>"
        "<limit effort='1' velocity='1'/></joint>",
        links="<link name='a'/><link name='b'/><link name='c'/>",
    )
    lower, upper = urdf_figure(text).coordinate_bounds()
    assert (lower[0], upper[0]) == (-np.inf, np.inf)
    assert (lower[1], upper[1]) == (0.0, 0.0)
