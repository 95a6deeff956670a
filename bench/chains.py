"""Procedural serial chains (:class:`ChainSpec`): X/Z chains of n links and a 7-DOF arm.

A spec is turned into the bench's common :class:`bench.serial.SerialChain` by
:func:`to_serial` (every peer and the grading use that); Blender's peers build their bone
chain from the spec itself, whose geometry is that of Blender bones.

Frames: link 0's joint is at the world origin; at zero angles every link points along world
+Z. Link i's local frame at rest is the Blender bone frame of a bone pointing +Z with roll 0
(local X = world +X, local Y = world +Z along the link, local Z = world -Y). Joint i rotates
link i about its local axis; link i+1's joint sits at link i's tip, ``lengths[i]`` along
link i's local Y. The tip is the end of the last link. Lengths in scene units, angles in
radians.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bench.serial import SerialChain, transform

REST_FRAME = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]])
"""(3, 3) world rotation of link 0's local frame at rest (columns: local X, Y, Z in world)."""

AXIS_VECTORS = {
    "X": np.array([1.0, 0.0, 0.0]),
    "Y": np.array([0.0, 1.0, 0.0]),
    "Z": np.array([0.0, 0.0, 1.0]),
}


@dataclass(frozen=True)
class ChainSpec:
    """An unbranched chain of links, one revolute joint per link.

    axes: local rotation axis of each link ('X', 'Y' or 'Z'); lengths: (n,) scene units;
    lower, upper: (n,) joint limits in radians.
    """

    axes: tuple[str, ...]
    lengths: tuple[float, ...]
    lower: tuple[float, ...]
    upper: tuple[float, ...]

    def __post_init__(self) -> None:
        n = len(self.axes)
        if not (len(self.lengths) == len(self.lower) == len(self.upper) == n) or n == 0:
            raise ValueError("axes, lengths, lower and upper must have the same non-zero length")
        if any(a not in AXIS_VECTORS for a in self.axes):
            raise ValueError(f"axes must be 'X', 'Y' or 'Z', got {self.axes}")
        if any(lo > hi for lo, hi in zip(self.lower, self.upper, strict=True)):
            raise ValueError("every lower limit must be <= its upper limit")

    @property
    def n(self) -> int:
        """Number of links (= degrees of freedom)."""
        return len(self.axes)

    @property
    def reach(self) -> float:
        """Sum of the link lengths, scene units."""
        return float(sum(self.lengths))

    def mid_range(self) -> np.ndarray:
        """(n,) the fixed seed pose: the middle of every joint range, radians."""
        return 0.5 * (np.asarray(self.lower) + np.asarray(self.upper))


def axis_rotation(axis: str, angle: float) -> np.ndarray:
    """(3, 3) rotation by ``angle`` radians about the local axis 'X', 'Y' or 'Z'."""
    c, s = np.cos(angle), np.sin(angle)
    if axis == "X":
        return np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])
    if axis == "Y":
        return np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])
    if axis == "Z":
        return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
    raise ValueError(f"unknown axis {axis!r}")


def forward(spec: ChainSpec, angles: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Tip position (3,) and the last link's world rotation (3, 3) for joint ``angles`` (n,)."""
    rotation = REST_FRAME
    position = np.zeros(3)
    for axis, length, angle in zip(spec.axes, spec.lengths, angles, strict=True):
        rotation = rotation @ axis_rotation(axis, float(angle))
        position = position + length * rotation[:, 1]
    return position, rotation


def to_serial(spec: ChainSpec, name: str = "chain") -> SerialChain:
    """The same chain as a :class:`bench.serial.SerialChain` (joints ``j0``, ``j1``...)."""
    origins = np.tile(np.eye(4), (spec.n, 1, 1))
    origins[0, :3, :3] = REST_FRAME
    origins[1:, 1, 3] = spec.lengths[:-1]
    return SerialChain(
        name=name,
        joints=tuple(f"j{i}" for i in range(spec.n)),
        origins=origins,
        axes=np.array([AXIS_VECTORS[a] for a in spec.axes]),
        lower=np.array(spec.lower, dtype=float),
        upper=np.array(spec.upper, dtype=float),
        tip=transform(None, (0.0, spec.lengths[-1], 0.0)),
    )


def serial_chain(n: int, reach: float = 1.0, seed: int = 0) -> ChainSpec:
    """A chain of ``n`` links alternating X/Z axes, total length ``reach`` (scene units).

    Link lengths vary by up to a factor 3 and the limits are asymmetric (lower in
    [-2.0, -0.8], upper in [0.8, 2.0] rad), so the mid-range seed pose is neither straight
    nor symmetric. Deterministic for a given (n, seed).
    """
    rng = np.random.default_rng([seed, n])
    raw = rng.uniform(0.5, 1.5, size=n)
    lengths = raw * (reach / raw.sum())
    lower = rng.uniform(-2.0, -0.8, size=n)
    upper = rng.uniform(0.8, 2.0, size=n)
    axes = tuple("X" if i % 2 == 0 else "Z" for i in range(n))
    return ChainSpec(
        axes=axes,
        lengths=tuple(float(v) for v in lengths),
        lower=tuple(float(v) for v in lower),
        upper=tuple(float(v) for v in upper),
    )


def arm7() -> ChainSpec:
    """A 7-DOF arm in the style of a collaborative robot: twist, pitch, twist, ... (1.1 units).

    Twist joints rotate about the link (local Y), pitch joints about local X. Limits are
    slightly asymmetric so the mid-range seed pose is not the fully stretched singular pose.
    """
    twist, pitch = (-2.8, 3.0), (-1.9, 2.1)
    axes = ("Y", "X", "Y", "X", "Y", "X", "Y")
    limits = [twist if a == "Y" else pitch for a in axes]
    return ChainSpec(
        axes=axes,
        lengths=(0.20, 0.10, 0.30, 0.10, 0.25, 0.05, 0.10),
        lower=tuple(lo for lo, _ in limits),
        upper=tuple(hi for _, hi in limits),
    )
