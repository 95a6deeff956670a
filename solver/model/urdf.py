"""Figures from URDF robot descriptions: every link a segment, every joint a joint.

A URDF joint places its child link in its parent link's frame by its ``origin`` (``xyz``
in metres, ``rpy`` roll-pitch-yaw in radians) and moves it about (revolute, continuous) or
along (prismatic) its ``axis``, given in the child's frame:

    T_child = T_parent @ Origin @ Motion(axis, q)

which is exactly a :class:`~solver.model.figure.Figure` segment with the origin as its rest
transform and one joint. So the figure read here has one segment per link, named after the
link (goals name links: ``EndEffector("panda_hand")``), and one joint per moving URDF joint,
named after it (``result.values()["panda_joint4"]``):

- ``revolute``: a revolute joint with the ``limit``'s ``lower`` / ``upper`` (radians; 0 when
  missing, as the URDF specification says);
- ``continuous``: a revolute joint without limits;
- ``prismatic``: a prismatic joint with its limits (metres);
- ``fixed``: a segment without a joint;
- ``mimic``: the joint's value is ``multiplier * value(joint) + offset`` (defaults 1 and 0),
  added as a linear equality between the two joint values (``Figure.add_equality``), so the
  solve moves both together and keeps both within their limits;
- ``floating`` and ``planar`` joints are refused with :class:`URDFError` naming the joint.

Whole trees are read (several tips: two arms, a gripper's two fingers); the root is the one
link that is no joint's child, placed at the world origin. Inertias, geometry, collision,
transmissions and ``safety_controller`` are not read.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np

from ..errors import InvalidInputError
from .figure import Figure

MOVING = ("revolute", "continuous", "prismatic")
"""URDF joint types that become a joint of the figure."""


class URDFError(InvalidInputError):
    """The URDF text cannot be read as a figure; the message names the joint or link."""


def load_urdf(path: str | Path) -> Figure:
    """The figure of the URDF file at ``path`` (see the module docstring)."""
    return urdf_figure(Path(path).read_text())


def urdf_figure(text: str) -> Figure:
    """The figure of URDF text ``text``: one segment per link, one joint per moving joint.

    Raises:
        URDFError: not well-formed XML, no ``robot`` element, a joint without parent or
            child, a link that is two joints' child, a loop or not exactly one root link, a
            floating or planar joint, a zero axis, limits with lower > upper, a mimic of a
            joint that does not move.
    """
    if not isinstance(text, str):
        raise URDFError(f"URDF text must be a string, got {type(text).__name__}")
    try:
        robot = ET.fromstring(text)
    except ET.ParseError as error:
        raise URDFError(f"not well-formed XML: {error}") from error
    if robot.tag != "robot":
        raise URDFError(f"the root element is <{robot.tag}>, not <robot>")
    links = [link.get("name", "") for link in robot.findall("link")]
    joints = robot.findall("joint")  # direct children: not <transmission>'s <joint> references
    parent_of = _parents(joints, links)
    figure = Figure()
    for link in _ordered(links, parent_of):
        joint = parent_of.get(link)
        if joint is None:
            figure.add_segment(link)
            continue
        xyz, rpy = _origin(joint)
        figure.add_segment(link, parent=_link(joint, "parent"), translation=xyz.tolist(), rpy=rpy)
        _add_motion(figure, joint, link)
    for joint in joints:
        _add_mimic(figure, joint)
    return figure


def _parents(joints: list[ET.Element], links: list[str]) -> dict[str, ET.Element]:
    """The joint that places each child link, checked against the links declared."""
    known = set(links)
    parent_of: dict[str, ET.Element] = {}
    for joint in joints:
        name = _name(joint)
        for end in ("parent", "child"):
            link = _link(joint, end)
            if link not in known:
                raise URDFError(f"joint {name!r}: its {end} link {link!r} is not a <link>")
        child = _link(joint, "child")
        if child in parent_of:
            raise URDFError(
                f"link {child!r} is the child of two joints, {_name(parent_of[child])!r} and "
                f"{name!r} (a closed loop: URDF describes trees only)"
            )
        parent_of[child] = joint
    return parent_of


def _ordered(links: list[str], parent_of: dict[str, ET.Element]) -> list[str]:
    """``links`` with every parent before its children; exactly one root."""
    roots = [link for link in links if link not in parent_of]
    if len(roots) != 1:
        raise URDFError(
            f"a URDF tree has exactly one root link (no joint's child), found {roots or 'none'}"
        )
    children: dict[str, list[str]] = {}
    for child, joint in parent_of.items():
        children.setdefault(_link(joint, "parent"), []).append(child)
    ordered, stack = [], [roots[0]]
    while stack:
        link = stack.pop()
        ordered.append(link)
        stack.extend(reversed(children.get(link, [])))
    if len(ordered) != len(links):
        cut = sorted(set(links) - set(ordered))
        raise URDFError(f"links {cut} are not reachable from the root {roots[0]!r} (a loop)")
    return ordered


def _add_motion(figure: Figure, joint: ET.Element, link: str) -> None:
    """The joint of ``link`` for a moving URDF joint; nothing for a fixed one."""
    name, kind = _name(joint), joint.get("type", "")
    if kind == "fixed":
        return
    if kind not in MOVING:
        raise URDFError(
            f"joint {name!r} is {kind!r}; Reach reads revolute, continuous, prismatic and "
            "fixed joints (a floating or planar base: add it as joints of its own)"
        )
    axis = _numbers(joint.find("axis"), "xyz", (1.0, 0.0, 0.0), f"joint {name!r} axis")
    if not np.linalg.norm(axis) > 0.0:
        raise URDFError(f"joint {name!r} has a zero axis")
    lower, upper = -np.inf, np.inf
    if kind != "continuous":
        limit = joint.find("limit")
        lower = _number(limit, "lower", 0.0, f"joint {name!r} lower limit")
        upper = _number(limit, "upper", 0.0, f"joint {name!r} upper limit")
        if lower > upper:
            raise URDFError(f"joint {name!r}: lower limit {lower} is above upper {upper}")
    add = figure.add_prismatic if kind == "prismatic" else figure.add_revolute
    add(link, axis, lower, upper, name=name)


def _add_mimic(figure: Figure, joint: ET.Element) -> None:
    """``value(joint) = multiplier * value(mimicked) + offset`` as a linear equality."""
    mimic = joint.find("mimic")
    if mimic is None:
        return
    name = _name(joint)
    leader = mimic.get("joint")
    if name not in figure.joint_names:
        raise URDFError(f"joint {name!r} mimics {leader!r} but does not move itself")
    if leader not in figure.joint_names:
        raise URDFError(f"joint {name!r} mimics {leader!r}, which is no moving joint")
    if leader == name:
        raise URDFError(f"joint {name!r} mimics itself")
    multiplier = _number(mimic, "multiplier", 1.0, f"joint {name!r} mimic multiplier")
    offset = _number(mimic, "offset", 0.0, f"joint {name!r} mimic offset")
    figure.add_equality({name: 1.0, leader: -multiplier}, offset, label=f"{name} mimics {leader}")


def _origin(joint: ET.Element) -> tuple[np.ndarray, np.ndarray]:
    """The joint's ``origin``: ``xyz`` (3,) metres and ``rpy`` (3,) radians."""
    origin, what = joint.find("origin"), f"joint {_name(joint)!r} origin"
    return (
        _numbers(origin, "xyz", (0.0, 0.0, 0.0), what),
        _numbers(origin, "rpy", (0.0, 0.0, 0.0), what),
    )


def _name(joint: ET.Element) -> str:
    name = joint.get("name")
    if not name:
        raise URDFError("a <joint> has no name")
    return name


def _link(joint: ET.Element, end: str) -> str:
    """The link named by the joint's ``parent`` or ``child`` element."""
    element = joint.find(end)
    link = None if element is None else element.get("link")
    if not link:
        raise URDFError(f"joint {_name(joint)!r} has no {end} link")
    return link


def _numbers(element: ET.Element | None, key: str, default: tuple, what: str) -> np.ndarray:
    """The attribute ``key`` of ``element`` as len(default) finite numbers, or ``default``."""
    text = None if element is None else element.get(key)
    if text is None:
        return np.array(default, dtype=float)
    try:
        values = np.array([float(v) for v in text.split()], dtype=float)
    except ValueError as error:
        raise URDFError(f"{what}: {key}={text!r} is not {len(default)} numbers") from error
    if values.shape != (len(default),) or not np.isfinite(values).all():
        raise URDFError(f"{what}: {key}={text!r} is not {len(default)} finite numbers")
    return values


def _number(element: ET.Element | None, key: str, default: float, what: str) -> float:
    """The attribute ``key`` of ``element`` as one finite number, or ``default``."""
    text = None if element is None else element.get(key)
    if text is None:
        return default
    try:
        value = float(text)
    except ValueError as error:
        raise URDFError(f"{what}: {key}={text!r} is not a number") from error
    if not math.isfinite(value):
        raise URDFError(f"{what}: {key}={text!r} is not finite")
    return value
