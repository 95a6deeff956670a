"""Aiming-at goal: ``P = c_d^2 ((p - r)/|p - r| - v)^2`` (eqs. 13-15)."""

import numpy as np

from ..errors import InvalidInputError
from .base import Blocks, Goal, Part, Report, Vec, Vector, angle_between, commensurate_factor
from .base import length as vector_length

_MIN_DISTANCE = 1e-9
_I = np.eye(3)
_I.setflags(write=False)


class AimGoal(Goal):
    """Make the ray from the effector point along its ``x`` direction pass through ``point``.

    Args:
        point: (3,) point to aim at.
        degrees: d of eq. (8); None (the default): one radian weighs like the
            figure's characteristic length.
        carrier: optional segment whose local frame ``point`` is in.
    """

    needs = (Part.POINT, Part.X)
    geometry_parts = (Part.GOAL_POINT,)
    point = Vector()

    def __init__(
        self, point: object, degrees: float | None = None, carrier: str | None = None
    ) -> None:
        self.point = point
        self.factor = commensurate_factor(degrees, "AimGoal")
        self._set_carrier(carrier)

    @property
    def c(self) -> float:
        """``c_d`` of eq. (8) (scene units per radian)."""
        return self.per_radian(self.factor)

    def residual(self, e: dict[Part, Vec], g: dict[Part, Vec]) -> tuple[np.ndarray, Blocks]:
        d = g[Part.GOAL_POINT] - e[Part.POINT]
        length = max(vector_length(d), _MIN_DISTANCE)
        u = d / length
        c = self.c
        du = (c / length) * (_I - u[:, None] * u)  # d(c u)/dp
        res = c * (u - e[Part.X])
        return res, [(Part.POINT, -du), (Part.X, -c * _I), (Part.GOAL_POINT, du)]

    def report(self, e: dict[Part, Vec], g: dict[Part, Vec]) -> Report:
        d = g[Part.GOAL_POINT] - e[Part.POINT]
        length = vector_length(d)
        return Report(None, angle_between(d / max(length, _MIN_DISTANCE), e[Part.X]))

    def check_geometry(self, e: dict[Part, Vec], g: dict[Part, Vec], label: str) -> None:
        if np.linalg.norm(g[Part.GOAL_POINT] - e[Part.POINT]) < _MIN_DISTANCE:
            raise InvalidInputError(
                f"{label}: the aim target is at the effector point, so no direction is defined"
            )
