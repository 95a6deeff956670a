"""A serial chain of revolute joints as plain 4x4 transforms: the bench's common chain model.

Every chain the bench solves (a robot read from a URDF, or a procedural
:class:`bench.chains.ChainSpec`) becomes a :class:`SerialChain`; every peer builds its
own model from it (Reach IK a :class:`solver.Figure`, TRAC-IK and ikpy the URDF text of
:func:`to_urdf`), and every answer is graded with :func:`forward` here, which uses
nothing from ``solver/`` and nothing from any peer.

Convention (URDF's): joint i's frame is ``origins[i]`` in the frame of joint i-1 after
its rotation (joint 0's in the base frame); joint i then rotates by ``q[i]`` radians
about ``axes[i]`` (a unit vector in its own frame). The tip frame is ``tip`` in the last
joint's rotated frame. Lengths in metres (or scene units), angles in radians.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True, eq=False)
class SerialChain:
    """An unbranched chain of revolute joints with finite limits.

    name: label; joints: (n,) joint names; origins: (n, 4, 4) joint frames, each in the
    previous joint's rotated frame; axes: (n, 3) unit axes in the joint frames; lower,
    upper: (n,) limits in radians; tip: (4, 4) tip frame in the last joint's rotated
    frame; base_link, tip_link: the URDF link names the chain runs between.
    """

    name: str
    joints: tuple[str, ...]
    origins: np.ndarray
    axes: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    tip: np.ndarray
    base_link: str = "base"
    tip_link: str = "tip"

    def __post_init__(self) -> None:
        n = len(self.joints)
        if n == 0:
            raise ValueError(f"chain {self.name!r}: no joints")
        shapes = {
            "origins": (np.shape(self.origins), (n, 4, 4)),
            "axes": (np.shape(self.axes), (n, 3)),
            "lower": (np.shape(self.lower), (n,)),
            "upper": (np.shape(self.upper), (n,)),
            "tip": (np.shape(self.tip), (4, 4)),
        }
        for what, (got, want) in shapes.items():
            if got != want:
                raise ValueError(f"chain {self.name!r}: {what} has shape {got}, expected {want}")
        for i, joint in enumerate(self.joints):
            lo, hi = float(self.lower[i]), float(self.upper[i])
            if not (math.isfinite(lo) and math.isfinite(hi) and lo <= hi):
                raise ValueError(f"chain {self.name!r}: joint {joint!r} limits [{lo}, {hi}]")
            if not math.isclose(float(np.linalg.norm(self.axes[i])), 1.0, abs_tol=1e-9):
                raise ValueError(f"chain {self.name!r}: joint {joint!r} axis is not unit length")

    @property
    def n(self) -> int:
        """Number of joints (= degrees of freedom)."""
        return len(self.joints)

    def mid_range(self) -> np.ndarray:
        """(n,) the seed pose every peer starts from: the middle of each range, radians."""
        return 0.5 * (np.asarray(self.lower) + np.asarray(self.upper))


def rotation_about(axis: np.ndarray, angle: float) -> np.ndarray:
    """(3, 3) rotation by ``angle`` radians about the unit ``axis`` (3,) (Rodrigues)."""
    x, y, z = (float(v) for v in axis)
    c, s = math.cos(angle), math.sin(angle)
    t = 1.0 - c
    return np.array(
        [
            [t * x * x + c, t * x * y - s * z, t * x * z + s * y],
            [t * x * y + s * z, t * y * y + c, t * y * z - s * x],
            [t * x * z - s * y, t * y * z + s * x, t * z * z + c],
        ]
    )


def rpy_matrix(roll: float, pitch: float, yaw: float) -> np.ndarray:
    """(3, 3) URDF ``rpy``: fixed-axis roll about X, then pitch about Y, then yaw about Z."""
    cr, sr = math.cos(roll), math.sin(roll)
    cp, sp = math.cos(pitch), math.sin(pitch)
    cy, sy = math.cos(yaw), math.sin(yaw)
    rx = np.array([[1.0, 0.0, 0.0], [0.0, cr, -sr], [0.0, sr, cr]])
    ry = np.array([[cp, 0.0, sp], [0.0, 1.0, 0.0], [-sp, 0.0, cp]])
    rz = np.array([[cy, -sy, 0.0], [sy, cy, 0.0], [0.0, 0.0, 1.0]])
    return rz @ ry @ rx


def matrix_rpy(rotation: np.ndarray) -> tuple[float, float, float]:
    """URDF ``(roll, pitch, yaw)`` radians of a (3, 3) rotation (inverse of :func:`rpy_matrix`)."""
    r = np.asarray(rotation, dtype=float)
    pitch = math.atan2(-r[2, 0], math.hypot(r[2, 1], r[2, 2]))
    if math.hypot(r[2, 1], r[2, 2]) < 1e-12:  # gimbal lock: put everything in yaw
        return 0.0, pitch, math.atan2(-r[0, 1], r[1, 1])
    return math.atan2(r[2, 1], r[2, 2]), pitch, math.atan2(r[1, 0], r[0, 0])


def transform(rotation: np.ndarray | None = None, translation=(0.0, 0.0, 0.0)) -> np.ndarray:
    """(4, 4) homogeneous transform from a (3, 3) rotation (None = identity) and (3,) offset."""
    out = np.eye(4)
    if rotation is not None:
        out[:3, :3] = rotation
    out[:3, 3] = translation
    return out


def forward(chain: SerialChain, angles: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Tip position (3,) and rotation (3, 3) in the base frame for joint ``angles`` (n,)."""
    pose = np.eye(4)
    motion = np.eye(4)
    for origin, axis, angle in zip(chain.origins, chain.axes, angles, strict=True):
        motion[:3, :3] = rotation_about(axis, float(angle))
        pose = pose @ origin @ motion
    pose = pose @ chain.tip
    return pose[:3, 3].copy(), pose[:3, :3].copy()


def rotation_angle(rotation: np.ndarray, target: np.ndarray) -> float:
    """Radians of the rotation taking ``target`` (3, 3) to ``rotation`` (3, 3), in [0, pi].

    From the axis-angle form of ``target^T rotation``, via atan2 so tiny angles keep their
    precision (arccos of the trace loses it below ~1e-8 rad).
    """
    d = np.asarray(target, dtype=float).T @ np.asarray(rotation, dtype=float)
    sine = 0.5 * math.sqrt(
        (d[2, 1] - d[1, 2]) ** 2 + (d[0, 2] - d[2, 0]) ** 2 + (d[1, 0] - d[0, 1]) ** 2
    )
    cosine = 0.5 * (float(np.trace(d)) - 1.0)
    return math.atan2(sine, cosine)


def _floats(values) -> str:
    return " ".join(repr(float(v)) for v in values)


def to_urdf(chain: SerialChain) -> str:
    """URDF text of ``chain``: links ``base_link``, ``link0``... and ``tip_link``, no geometry.

    Joint origins are written as ``xyz`` + ``rpy`` with full float precision, so any URDF
    reader (TRAC-IK's KDL parser, ikpy) models exactly this chain.
    """
    lines = ['<?xml version="1.0"?>', f'<robot name="{chain.name}">']
    links = [chain.base_link] + [f"link{i}" for i in range(chain.n)] + [chain.tip_link]
    lines += [f'  <link name="{name}"/>' for name in links]
    frames = [*chain.origins, chain.tip]
    for i, frame in enumerate(frames):
        last = i == chain.n
        name = f"{chain.tip_link}_fixed" if last else chain.joints[i]
        lines.append(f'  <joint name="{name}" type="{"fixed" if last else "revolute"}">')
        lines.append(f'    <parent link="{links[i]}"/>')
        lines.append(f'    <child link="{links[i + 1]}"/>')
        xyz, rpy = _floats(frame[:3, 3]), _floats(matrix_rpy(frame[:3, :3]))
        lines.append(f'    <origin xyz="{xyz}" rpy="{rpy}"/>')
        if not last:
            lines.append(f'    <axis xyz="{_floats(chain.axes[i])}"/>')
            lo, hi = repr(float(chain.lower[i])), repr(float(chain.upper[i]))
            lines.append(f'    <limit lower="{lo}" upper="{hi}" effort="1" velocity="1"/>')
        lines.append("  </joint>")
    lines.append("</robot>")
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class Targets:
    """Reachable targets: forward kinematics of joint angles sampled uniformly in the limits.

    angles: (k, n) radians; positions: (k, 3); rotations: (k, 3, 3) tip frames.
    """

    angles: np.ndarray
    positions: np.ndarray
    rotations: np.ndarray

    def __len__(self) -> int:
        return len(self.positions)


def sample_targets(chain: SerialChain, count: int, seed: int = 1) -> Targets:
    """``count`` targets of ``chain`` from a fixed RNG ``seed`` (TRAC-IK's protocol)."""
    rng = np.random.default_rng([seed, chain.n])
    angles = rng.uniform(chain.lower, chain.upper, size=(count, chain.n))
    frames = [forward(chain, a) for a in angles]
    positions = np.array([p for p, _ in frames]).reshape(count, 3)
    rotations = np.array([r for _, r in frames]).reshape(count, 3, 3)
    return Targets(angles=angles, positions=positions, rotations=rotations)


def quaternion(rotation: np.ndarray) -> tuple[float, float, float, float]:
    """Unit quaternion ``(x, y, z, w)`` of a (3, 3) rotation (Shepperd's method)."""
    m = np.asarray(rotation, dtype=float)
    trace = float(np.trace(m))
    if trace > 0.0:
        s = 2.0 * math.sqrt(trace + 1.0)
        return (m[2, 1] - m[1, 2]) / s, (m[0, 2] - m[2, 0]) / s, (m[1, 0] - m[0, 1]) / s, s / 4
    i = int(np.argmax(np.diag(m)))
    j, k = (i + 1) % 3, (i + 2) % 3
    s = 2.0 * math.sqrt(1.0 + m[i, i] - m[j, j] - m[k, k])
    q = [0.0, 0.0, 0.0]
    q[i] = s / 4
    q[j] = (m[j, i] + m[i, j]) / s
    q[k] = (m[k, i] + m[i, k]) / s
    return q[0], q[1], q[2], (m[k, j] - m[j, k]) / s
