"""Read a serial chain (revolute joints) out of a URDF file, between two named links.

Only what the kinematics needs is read: each joint's parent/child links, ``origin``
(``xyz``, ``rpy``), ``axis`` and ``limit``. Fixed joints on the way are folded into the
next joint's origin (or into the tip frame). Inertias, geometry and mimic tags are
ignored. Not a general URDF library: branches off the base-to-tip path are skipped,
prismatic, continuous, floating and planar joints on the path are rejected by name.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np

from bench.serial import SerialChain, rpy_matrix, transform


class URDFError(ValueError):
    """The URDF text cannot be read as the requested serial chain; says where."""


def _vector(element: ET.Element | None, key: str, default: tuple[float, ...]) -> np.ndarray:
    if element is None or element.get(key) is None:
        return np.array(default, dtype=float)
    values = [float(v) for v in element.get(key, "").split()]
    if len(values) != len(default):
        raise URDFError(f"attribute {key}={element.get(key)!r} needs {len(default)} numbers")
    return np.array(values, dtype=float)


def _origin(joint: ET.Element) -> np.ndarray:
    origin = joint.find("origin")
    xyz = _vector(origin, "xyz", (0.0, 0.0, 0.0))
    roll, pitch, yaw = _vector(origin, "rpy", (0.0, 0.0, 0.0))
    return transform(rpy_matrix(roll, pitch, yaw), xyz)


def read_chain(urdf: str, base_link: str, tip_link: str, name: str | None = None) -> SerialChain:
    """The chain of joints from ``base_link`` to ``tip_link`` in URDF text ``urdf``.

    Raises :class:`URDFError` naming the link or joint when there is no such path, or a
    joint on it is not a revolute joint with finite limits.
    """
    try:
        root = ET.fromstring(urdf)
    except ET.ParseError as error:
        raise URDFError(f"not well-formed XML: {error}") from error
    by_child: dict[str, ET.Element] = {}
    for joint in root.findall("joint"):  # not <transmission>'s <joint> references
        child = joint.find("child")
        if child is None or joint.find("parent") is None:
            raise URDFError(f"joint {joint.get('name')!r} lacks a parent or child link")
        by_child[child.get("link", "")] = joint
    path = []
    link = tip_link
    while link != base_link:
        joint = by_child.get(link)
        if joint is None:
            raise URDFError(f"no joint path from link {base_link!r} to link {tip_link!r}")
        path.append(joint)
        link = joint.find("parent").get("link", "")  # type: ignore[union-attr]
    path.reverse()

    names, origins, axes, lower, upper = [], [], [], [], []
    pending = np.eye(4)  # fixed joints since the last moving one
    for joint in path:
        kind, joint_name = joint.get("type"), joint.get("name", "")
        if kind == "fixed":
            pending = pending @ _origin(joint)
            continue
        if kind != "revolute":
            raise URDFError(f"joint {joint_name!r} is {kind!r}; only revolute joints are read")
        limit = joint.find("limit")
        lo = float(limit.get("lower", "nan")) if limit is not None else math.nan
        hi = float(limit.get("upper", "nan")) if limit is not None else math.nan
        if not (math.isfinite(lo) and math.isfinite(hi) and lo <= hi):
            raise URDFError(f"joint {joint_name!r} needs finite limits lower <= upper")
        axis = _vector(joint.find("axis"), "xyz", (1.0, 0.0, 0.0))
        norm = float(np.linalg.norm(axis))
        if norm == 0.0:
            raise URDFError(f"joint {joint_name!r} has a zero axis")
        names.append(joint_name)
        origins.append(pending @ _origin(joint))
        axes.append(axis / norm)
        lower.append(lo)
        upper.append(hi)
        pending = np.eye(4)
    if not names:
        raise URDFError(f"no revolute joint between {base_link!r} and {tip_link!r}")
    return SerialChain(
        name=name or root.get("name", "robot"),
        joints=tuple(names),
        origins=np.array(origins),
        axes=np.array(axes),
        lower=np.array(lower),
        upper=np.array(upper),
        tip=pending,
        base_link=base_link,
        tip_link=tip_link,
    )


def load_chain(path: str | Path, base_link: str, tip_link: str, name: str | None = None):
    """:func:`read_chain` on the file at ``path``."""
    return read_chain(Path(path).read_text(), base_link, tip_link, name)
