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

    needs = ("point",)
    geometry_parts = ("point",)
    point = Vector()

    def __init__(self, point: object, carrier: str | None = None) -> None:
        self.point = point
        self._set_carrier(carrier)

    def residual(self, e: dict[str, Vec], g: dict[str, Vec]) -> tuple[np.ndarray, Blocks]:
        return e["point"] - g["point"], POSITION_BLOCKS

    def clearly_missed(self, res: np.ndarray, tolerance: float, angle_tolerance: float) -> bool:
        return float(res @ res) > MISS_MARGIN * tolerance * tolerance

    def report(self, e: dict[str, Vec], g: dict[str, Vec]) -> Report:
        return Report(length(e["point"] - g["point"]), None)
