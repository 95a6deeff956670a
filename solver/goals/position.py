"""Position goal: ``P(r) = (p - r)^2`` (eqs. 6, 7)."""

import numpy as np

from .base import MISS_MARGIN, Blocks, Goal, Part, Report, Vec, Vector, length

_I = np.eye(3)
_I.setflags(write=False)
_MINUS_I = -_I
_MINUS_I.setflags(write=False)
#: Derivative blocks of ``r - p``: constant, so one shared (read-only) list.
POSITION_BLOCKS: Blocks = [(Part.POINT, _I), (Part.GOAL_POINT, _MINUS_I)]


class PositionGoal(Goal):
    """Place the effector point at ``point`` (scene units).

    Args:
        point: (3,) target point; world, or local to ``carrier``.
        carrier: optional segment name that carries the point (closes a loop).
    """

    needs = (Part.POINT,)
    geometry_parts = (Part.GOAL_POINT,)
    point = Vector()

    def __init__(self, point: object, carrier: str | None = None) -> None:
        self.point = point
        self._set_carrier(carrier)

    def residual(self, e: dict[Part, Vec], g: dict[Part, Vec]) -> tuple[np.ndarray, Blocks]:
        return e[Part.POINT] - g[Part.GOAL_POINT], POSITION_BLOCKS

    def clearly_missed(self, res: np.ndarray, tolerance: float, angle_tolerance: float) -> bool:
        return float(res @ res) > MISS_MARGIN * tolerance * tolerance

    def report(self, e: dict[Part, Vec], g: dict[Part, Vec]) -> Report:
        return Report(length(e[Part.POINT] - g[Part.GOAL_POINT]), None)
