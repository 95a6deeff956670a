"""Stand-ins for the Blender objects the bridge reads, for bridge tests without ``bpy``.

The bridge's rig-building modules use Blender data only through the objects passed in (pose
bones, bones, constraints, constraint items), so plain objects with the same attribute names
exercise them in the ordinary test run. :func:`bridge_module` imports a bridge module the way
Blender does, as part of the extension package (its ``from .. import solver`` needs the
repository root to be a package), without importing ``bpy``.

Angles are radians and lengths scene units, as in Blender's Python API.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "reach_ik_under_test"  # the repository root imported as a package


def package_module(name: str) -> ModuleType:
    """``<name>`` of the checkout (``"props.automatic"``), imported inside the package
    :data:`PACKAGE`."""
    if PACKAGE not in sys.modules:
        spec = importlib.util.spec_from_file_location(
            PACKAGE, ROOT / "__init__.py", submodule_search_locations=[str(ROOT)]
        )
        assert spec is not None and spec.loader is not None
        package = importlib.util.module_from_spec(spec)
        sys.modules[PACKAGE] = package
        spec.loader.exec_module(package)
    return importlib.import_module(f"{PACKAGE}.{name}")


def bridge_module(name: str) -> ModuleType:
    """``bridge.<name>`` of the checkout (``"rig.goals"``), imported inside :data:`PACKAGE`."""
    return package_module(f"bridge.{name}")


@dataclass
class StubBone:
    """``bpy.types.Bone``: rest data (armature space) and hierarchy."""

    name: str
    parent: StubBone | None = None
    use_connect: bool = False
    length: float = 1.0


@dataclass
class StubLimitRotation:
    """``bpy.types.LimitRotationConstraint`` (angles in radians)."""

    name: str = "Limit Rotation"
    type: str = "LIMIT_ROTATION"
    mute: bool = False
    owner_space: str = "LOCAL"
    euler_order: str = "AUTO"
    use_limit_x: bool = False
    use_limit_y: bool = False
    use_limit_z: bool = False
    min_x: float = 0.0
    max_x: float = 0.0
    min_y: float = 0.0
    max_y: float = 0.0
    min_z: float = 0.0
    max_z: float = 0.0


@dataclass
class StubBoneSettings:
    """``PoseBone.reach_ik`` (:class:`props.groups.ReachBoneSettings`)."""

    use_rigidity: bool = False
    rigidity: tuple[float, float, float] = (0.0, 0.0, 0.0)
    hold_lock_rotation: bool = True
    driven: bool = False


@dataclass
class StubPoseBone:
    """``bpy.types.PoseBone``: channels, IK settings and constraints of one bone."""

    name: str
    bone: StubBone = field(default=None)  # type: ignore[assignment]  # filled in __post_init__
    rotation_mode: str = "QUATERNION"
    rotation_quaternion: tuple[float, ...] = (1.0, 0.0, 0.0, 0.0)
    rotation_axis_angle: tuple[float, ...] = (0.0, 0.0, 1.0, 0.0)
    rotation_euler: tuple[float, ...] = (0.0, 0.0, 0.0)
    lock_rotation: tuple[bool, bool, bool] = (False, False, False)
    lock_ik_x: bool = False
    lock_ik_y: bool = False
    lock_ik_z: bool = False
    use_ik_limit_x: bool = False
    use_ik_limit_y: bool = False
    use_ik_limit_z: bool = False
    ik_min_x: float = 0.0
    ik_max_x: float = 0.0
    ik_min_y: float = 0.0
    ik_max_y: float = 0.0
    ik_min_z: float = 0.0
    ik_max_z: float = 0.0
    ik_stiffness_x: float = 0.0
    ik_stiffness_y: float = 0.0
    ik_stiffness_z: float = 0.0
    ik_stretch: float = 0.0
    constraints: list[StubLimitRotation] = field(default_factory=list)
    reach_ik: StubBoneSettings = field(default_factory=StubBoneSettings)

    def __post_init__(self) -> None:
        if self.bone is None:
            self.bone = StubBone(self.name)


def joint_table(figure: object) -> dict[str, tuple[str, tuple[float, ...], float, float, float]]:
    """``{joint name: (kind, axis, lower, upper, rigidity)}`` of a solver figure."""
    kinds = {0: "revolute", 1: "prismatic"}
    return {
        j.name: (
            kinds.get(j.kind, str(j.kind)),
            tuple(float(a) for a in np.round(j.axis, 12)),
            float(j.lower),
            float(j.upper),
            float(j.rigidity),
        )
        for j in figure.joints  # type: ignore[attr-defined]
    }
