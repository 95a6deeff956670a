"""The serial chain between two links of a URDF robot, read by the solver's URDF reader.

:func:`solver.model.urdf.urdf_figure` reads the whole robot (its checks, its messages); this
module walks the figure from ``tip_link`` up to ``base_link`` and folds it into the bench's
:class:`~bench.serial.SerialChain`: each revolute joint's frame (fixed joints on the way
folded into the next joint's origin, or into the tip frame), axis and limits. The bench's
chains are revolute with finite limits only: a prismatic or continuous joint on the path is
refused by name.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np

from bench.serial import SerialChain
from solver.model.structure import REVOLUTE
from solver.model.urdf import URDFError, urdf_figure

__all__ = ["URDFError", "load_chain", "read_chain"]


def read_chain(urdf: str, base_link: str, tip_link: str, name: str | None = None) -> SerialChain:
    """The chain of joints from ``base_link`` to ``tip_link`` in URDF text ``urdf``.

    Raises :class:`~solver.model.urdf.URDFError` naming the link or joint when the text cannot be
    read, there is no such path, or a joint on it is not a revolute joint with finite limits.
    """
    figure = urdf_figure(urdf)
    segments, joints = figure.segments, figure.joints
    path = []
    s = figure.segment_index(tip_link) if tip_link in figure.segment_names else -1
    while s >= 0 and segments[s].name != base_link:
        path.append(segments[s])
        s = segments[s].parent
    if s < 0:
        raise URDFError(f"no joint path from link {base_link!r} to link {tip_link!r}")
    names, origins, axes, lower, upper = [], [], [], [], []
    pending = np.eye(4)  # rest transforms since the last moving joint
    for segment in reversed(path):
        rest = np.eye(4)
        rest[:3, :3], rest[:3, 3] = segment.rotation, segment.translation
        pending = pending @ rest
        for j in segment.joints:
            joint = joints[j]
            if joint.kind != REVOLUTE:
                raise URDFError(
                    f"joint {joint.name!r} is 'prismatic'; only revolute joints are read"
                )
            if not (np.isfinite(joint.lower) and np.isfinite(joint.upper)):
                raise URDFError(f"joint {joint.name!r} needs finite limits (it is continuous)")
            names.append(joint.name)
            origins.append(pending)
            axes.append(joint.axis)
            lower.append(joint.lower)
            upper.append(joint.upper)
            pending = np.eye(4)
    if not names:
        raise URDFError(f"no revolute joint between {base_link!r} and {tip_link!r}")
    return SerialChain(
        name=name or ET.fromstring(urdf).get("name", "robot"),
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
