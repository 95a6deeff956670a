"""Orientation goal: ``P = c_dx^2 (x_g - x_e)^2 + c_dy^2 (y_g - y_e)^2`` (eqs. 8-11)."""

from collections.abc import Sequence

import numpy as np

from .._checks import per_item
from ..errors import InvalidInputError
from ..model.rotations import pose_parts
from .base import (
    Blocks,
    Goal,
    Part,
    Report,
    Vec,
    Vector,
    angle_between,
    chord_squared,
    commensurate_factor,
    parts_missed,
)

_I = np.eye(3)


def degree_pair(
    degrees: float | Sequence[float] | None, what: str
) -> tuple[float | None, float | None]:
    """``(c_dx, c_dy)`` from one ``d`` or a pair ``(d_x, d_y)`` in degrees per unit.

    None gives ``(None, None)``: the solver's scale-free default (see :attr:`Goal.length`).
    """
    if degrees is None:
        return None, None
    values = per_item(degrees, 2, f"{what} degrees")
    return commensurate_factor(values[0], what), commensurate_factor(values[1], what)


def check_independent(x: np.ndarray | None, y: np.ndarray | None, what: str) -> None:
    """Reject x and y goal directions that are (anti)parallel: they fix no orientation.

    Checked at construction only; retargeting sets x and y one after the other.
    """
    if x is not None and y is not None and abs(float(x @ y)) > 1.0 - 1e-9:
        raise InvalidInputError(f"{what}: x and y are parallel; give two independent directions")


def orientation_blocks(scales: dict[Part, float]) -> Blocks:
    """Derivative blocks of the stacked residual ``[c_x (x_e - x_g); c_y (y_e - y_g)]``."""
    blocks: Blocks = []
    m = 3 * len(scales)
    for k, (part, c) in enumerate(scales.items()):
        block = np.zeros((m, 3))
        block[3 * k : 3 * k + 3] = c * _I
        blocks.append((part, block))
        blocks.append((part.on_goal, -block))
    return blocks


class DirectionWeights(Goal):
    """A goal with x/y direction terms weighted by ``c_dx``, ``c_dy`` of eq. (8).

    ``factors`` holds the values from ``degrees`` (None: the solver's scale-free
    default, one radian weighs like :attr:`Goal.length`).
    """

    factors: tuple[float | None, float | None] = (None, None)

    @property
    def cx(self) -> float:
        """``c_dx`` of eq. (8) (scene units per radian)."""
        return self.per_radian(self.factors[0])

    @property
    def cy(self) -> float:
        """``c_dy`` of eq. (8) (scene units per radian)."""
        return self.per_radian(self.factors[1])


class OrientationGoal(DirectionWeights):
    """Align the effector's unit vectors ``x``/``y`` with the goal's.

    Args:
        x, y: (3,) goal directions (normalised); None suppresses that direction
            (``c_d = 0``), e.g. to align only a palm normal.
        degrees: d of eq. (8): d degrees of error weigh like one length unit;
            one value or a pair (d_x, d_y); None (the default): one radian
            weighs like the figure's characteristic length (scale-free).
        carrier: optional segment whose local frame the directions are in.
    """

    point_parts = ()
    x: Vector = Vector(unit=True, optional=True)
    y: Vector = Vector(unit=True, optional=True)

    def __init__(
        self,
        x: object = None,
        y: object = None,
        degrees: float | Sequence[float] | None = None,
        carrier: str | None = None,
    ) -> None:
        if x is None and y is None:
            raise InvalidInputError("OrientationGoal needs at least one of x, y")
        self.x = x
        self.y = y
        check_independent(self.x, self.y, "OrientationGoal")
        self.factors = degree_pair(degrees, "OrientationGoal")
        self._set_carrier(carrier)

    @classmethod
    def from_matrix(
        cls,
        matrix: object,
        degrees: float | Sequence[float] | None = None,
        carrier: str | None = None,
    ) -> "OrientationGoal":
        """Align both directions with a (3, 3) rotation's (or a 4x4 pose's) columns 0 and 1."""
        rotation, _ = pose_parts(matrix, "OrientationGoal matrix")
        return cls(rotation[:, 0], rotation[:, 1], degrees, carrier)

    def set_target(self, matrix: object) -> None:
        """Retarget the aligned directions from a (3, 3) rotation or (4, 4) pose."""
        rotation, _ = pose_parts(matrix, "OrientationGoal target")
        for k, part in enumerate(("x", "y")):
            if getattr(self, part) is not None:
                setattr(self, part, rotation[:, k])

    @property
    def needs(self) -> tuple[Part, ...]:  # type: ignore[override]
        return tuple(p for p in (Part.X, Part.Y) if getattr(self, p.attribute) is not None)

    @property
    def geometry_parts(self) -> tuple[Part, ...]:  # type: ignore[override]
        return tuple(p.on_goal for p in self.needs)

    def _scales(self) -> dict[Part, float]:
        return {
            p: c
            for p, c in ((Part.X, self.cx), (Part.Y, self.cy))
            if getattr(self, p.attribute) is not None
        }

    def residual(self, e: dict[Part, Vec], g: dict[Part, Vec]) -> tuple[np.ndarray, Blocks]:
        scales = self._scales()
        res = np.concatenate([c * (e[p] - g[p.on_goal]) for p, c in scales.items()])
        key = tuple(scales.items())
        if self.__dict__.get("_blocks_key") != key:  # constant while the weights are
            self._blocks_key, self._blocks = key, orientation_blocks(scales)
        return res, self._blocks

    def clearly_missed(self, res: np.ndarray, tolerance: float, angle_tolerance: float) -> bool:
        scales = list(self._scales().values())
        return parts_missed(res, scales, [chord_squared(angle_tolerance)] * len(scales))

    def report(self, e: dict[Part, Vec], g: dict[Part, Vec]) -> Report:
        return Report(None, max(angle_between(e[p], g[p.on_goal]) for p in self.needs))
