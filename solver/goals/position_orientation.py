"""Position/orientation goal: ``w_p (p - r)^2 + w_o [orientation terms]`` (eq. 12)."""

import math
from collections.abc import Sequence

import numpy as np

from .._checks import real_number
from ..errors import InvalidInputError
from ..model.rotations import pose_parts
from .base import (
    Blocks,
    Part,
    Report,
    Vec,
    Vector,
    angle_between,
    chord_squared,
    length,
    parts_missed,
)
from .orientation import DirectionWeights, check_independent, degree_pair, orientation_blocks


class PositionOrientationGoal(DirectionWeights):
    """Place the effector point at ``point`` and align its directions.

    Args:
        point: (3,) target point.
        x, y: (3,) goal directions; None suppresses one (at least one given).
        position_weight: w_p in [0, 1]; the orientation weight is w_o = 1 - w_p.
        degrees: d of eq. (8), one value or a pair (d_x, d_y); None (the
            default): one radian weighs like the figure's characteristic length.
        carrier: optional segment whose local frame the geometry is in.
    """

    _position_weight: float  # in the instance dict; set through ``position_weight``
    point = Vector()
    x: Vector = Vector(unit=True, optional=True)
    y: Vector = Vector(unit=True, optional=True)

    def __init__(
        self,
        point: object,
        x: object = None,
        y: object = None,
        position_weight: float = 0.5,
        degrees: float | Sequence[float] | None = None,
        carrier: str | None = None,
    ) -> None:
        if x is None and y is None:
            raise InvalidInputError("PositionOrientationGoal needs at least one of x, y")
        self.position_weight = position_weight
        self.point = point
        self.x = x
        self.y = y
        check_independent(self.x, self.y, "PositionOrientationGoal")
        self.factors = degree_pair(degrees, "PositionOrientationGoal")
        self._set_carrier(carrier)

    @classmethod
    def from_matrix(
        cls,
        matrix: object,
        position_weight: float = 0.5,
        degrees: float | Sequence[float] | None = None,
        carrier: str | None = None,
    ) -> "PositionOrientationGoal":
        """A full pose goal from a (4, 4) transform: point = translation, x/y = columns 0/1.

        Pair it with an effector whose ``x``/``y`` are the local axes to align
        (:meth:`EndEffector.from_matrix`, or ``x=(1, 0, 0), y=(0, 1, 0)`` for
        the segment's own frame).
        """
        rotation, point = pose_parts(matrix, "PositionOrientationGoal matrix")
        if point is None:
            raise InvalidInputError("PositionOrientationGoal matrix must be a 4x4 pose")
        return cls(point, rotation[:, 0], rotation[:, 1], position_weight, degrees, carrier)

    def set_target(self, matrix: object) -> None:
        """Retarget from a (4, 4) pose: point, and the x/y directions this goal aligns.

        Validated as a whole before anything changes.
        """
        rotation, point = pose_parts(matrix, "PositionOrientationGoal target")
        if point is None:
            raise InvalidInputError("PositionOrientationGoal target must be a 4x4 pose")
        self.point = point
        for k, part in enumerate(("x", "y")):
            if getattr(self, part) is not None:
                setattr(self, part, rotation[:, k])

    @property
    def position_weight(self) -> float:
        """w_p in [0, 1] of eq. (12); the orientation weight is ``1 - w_p``."""
        return self.__dict__["_position_weight"]

    @position_weight.setter
    def position_weight(self, value: object) -> None:
        w = real_number(value, "PositionOrientationGoal position_weight")
        if not 0.0 <= w <= 1.0:
            raise InvalidInputError(
                f"PositionOrientationGoal position_weight must lie in [0, 1], got {w}"
            )
        self.__dict__["_position_weight"] = w

    @property
    def directions(self) -> tuple[Part, ...]:
        """The effector directions that are not suppressed (``Part.X``, ``Part.Y``)."""
        return tuple(p for p in (Part.X, Part.Y) if getattr(self, p.attribute) is not None)

    @property
    def needs(self) -> tuple[Part, ...]:  # type: ignore[override]
        return (Part.POINT, *self.directions)

    @property
    def geometry_parts(self) -> tuple[Part, ...]:  # type: ignore[override]
        return tuple(p.on_goal for p in self.needs)

    def _constants(self) -> tuple[tuple[Part, ...], np.ndarray, Blocks]:
        """Parts, (m,) residual scales and derivative blocks.

        Constant for given weights and directions (which cannot be switched
        on or off after construction), so cached on the weights.
        """
        key = (self._position_weight, self.cx, self.cy)
        if self.__dict__.get("_cache_key") != key:
            sp = math.sqrt(self._position_weight)
            scales = self._scales()
            blocks = orientation_blocks(scales)
            position = np.zeros((3 + 3 * len(scales), 3))
            position[:3] = sp * np.eye(3)
            shifted = [(part, np.vstack((np.zeros((3, 3)), b))) for part, b in blocks]
            self._cached = (
                (Part.POINT, *scales),
                np.repeat([sp, *scales.values()], 3),
                [(Part.POINT, position), (Part.GOAL_POINT, -position), *shifted],
            )
            self._cache_key = key
        return self._cached

    def _scales(self) -> dict[Part, float]:
        """``sqrt(w_o) c_d`` per aligned direction (hot path: read attributes once)."""
        so = math.sqrt(1.0 - self.position_weight)
        values = self.__dict__
        scales = {}
        if values["x"] is not None:
            scales[Part.X] = so * self.cx
        if values["y"] is not None:
            scales[Part.Y] = so * self.cy
        return scales

    def residual(self, e: dict[Part, Vec], g: dict[Part, Vec]) -> tuple[np.ndarray, Blocks]:
        parts, scales, blocks = self._constants()
        here = np.concatenate([e[p] for p in parts])
        there = np.concatenate([g[p.on_goal] for p in parts])
        return scales * (here - there), blocks

    def clearly_missed(self, res: np.ndarray, tolerance: float, angle_tolerance: float) -> bool:
        w = self.position_weight
        scales = [math.sqrt(w), *self._scales().values()]
        chord = chord_squared(angle_tolerance) if w < 1.0 else None
        limits = [tolerance * tolerance if w > 0.0 else None] + [chord] * (len(scales) - 1)
        return parts_missed(res, scales, limits)

    def report(self, e: dict[Part, Vec], g: dict[Part, Vec]) -> Report:
        distance = length(e[Part.POINT] - g[Part.GOAL_POINT])
        angle = max(angle_between(e[p], g[p.on_goal]) for p in self.directions)
        return Report(
            distance if self.position_weight > 0.0 else None,
            angle if self.position_weight < 1.0 else None,
        )
