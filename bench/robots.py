"""Public robot arms for the bench, read from the URDF files shipped in ``pybullet_data``.

``pybullet_data`` comes with the ``pybullet`` wheel (pinned in the ``bench`` group). The
chains run from the robot's base link to its last link (the flange, no tool).
"""

from __future__ import annotations

from pathlib import Path

from bench.serial import SerialChain
from bench.urdf import load_chain

ROBOTS = {
    # name: (file under pybullet_data, base link, tip link)
    "iiwa7": ("kuka_iiwa/model.urdf", "lbr_iiwa_link_0", "lbr_iiwa_link_7"),
    "xarm6": ("xarm/xarm6_robot.urdf", "link_base", "link6"),
}
"""KUKA LBR iiwa 7 R800 (7 DOF) and UFACTORY xArm 6 (6 DOF)."""


def urdf_path(robot: str) -> Path:
    """Path of ``robot``'s URDF file inside the installed ``pybullet_data``."""
    import pybullet_data

    return Path(pybullet_data.getDataPath()) / ROBOTS[robot][0]


def robot_chain(robot: str) -> SerialChain:
    """The :class:`SerialChain` of ``robot`` (a key of :data:`ROBOTS`)."""
    if robot not in ROBOTS:
        raise KeyError(f"unknown robot {robot!r}; known: {sorted(ROBOTS)}")
    _, base, tip = ROBOTS[robot]
    return load_chain(urdf_path(robot), base, tip, name=robot)
