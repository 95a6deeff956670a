"""Part of the bridge (:mod:`.rig`): the fixed part of each figure bone's rest transform.

:meth:`.rig.Rig.push_rest` writes the current pose into the figure's rest transforms before
every solve (and every baked frame). Most of what it composes is fixed while a rig is used:
the bone's rest offset from its parent, whether it is Connected, the parent's pose scale folded
into lengths (:mod:`.rig_scale`), whether it inherits rotation. :func:`rest_input` composes that
once per bone, so a push only adds the pose: ``translation = fixed + linear @ location``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple, Protocol

import numpy as np

from .joints import SolvedBone


class RestInput(NamedTuple):
    """The fixed part of one figure bone's rest transform (armature space, scene units).

    Attributes:
        name: the bone.
        info: its solved-bone plan, or None for a bone the solve does not move.
        fixed: (3,) rest translation at location 0 (the parent's pose scale applied).
        linear: (3, 3) the translation's change per unit of location (armature units); None
            when the location does not move the head (Connected, or a solved location).
        root: placed by the armature object (no parent).
        hinge: (3, 3) armature-space rest rotation of a bone that does not inherit rotation
            (its rest rotation is relative to the world), else None.
    """

    name: str
    info: SolvedBone | None
    fixed: np.ndarray
    linear: np.ndarray | None
    root: bool
    hinge: np.ndarray | None


class RestSource(Protocol):
    """What :func:`rest_input` reads of a built rig (:class:`.build.Rig`)."""

    @property
    def links(self) -> Mapping[str, tuple[str | None, bool]]:
        """Bone -> (its parent, whether it is Connected)."""
        ...

    @property
    def offsets(self) -> Mapping[str, np.ndarray]:
        """Bone -> (4, 4) rest offset from its parent (armature units)."""
        ...

    @property
    def solved(self) -> Mapping[str, SolvedBone]:
        """The bones the solve moves."""
        ...

    @property
    def scale(self) -> float:
        """The armature object's uniform scale."""
        ...

    @property
    def scales(self) -> Mapping[str, np.ndarray]:
        """Bone -> its pose scale folded into the lengths of its children."""
        ...

    @property
    def hinge_rest(self) -> Mapping[str, np.ndarray]:
        """Bone -> (3, 3) armature-space rest rotation of a bone that does not inherit it."""
        ...


def rest_input(rig: RestSource, name: str) -> RestInput:
    """The :class:`RestInput` of figure bone ``name`` of a built ``rig``."""
    parent, connected = rig.links[name]
    off = rig.offsets[name]
    info = rig.solved.get(name)
    # Blender places the head with the parent's full (scaled) pose matrix.
    factor = rig.scale * (1.0 if parent is None else rig.scales.get(parent, 1.0))
    fixed = factor * off[:3, 3]
    linear = None
    if not connected and not (info is not None and info.location_joints):
        linear = np.reshape(factor, (-1, 1)) * off[:3, :3]
    hinge = rig.hinge_rest.get(name) if parent is not None else None
    return RestInput(name, info, fixed, linear, parent is None, hinge)
