"""Line goal: ``P = ((p - r) - ((p - r) . nu) nu)^2`` (eqs. 16, 17)."""

import numpy as np

from .base import Blocks, Goal, Part, Report, Vec, Vector, projector


class LineGoal(Goal):
    """Keep the effector point on the line through ``point`` along ``direction``.

    Args:
        point: (3,) a point on the line.
        direction: (3,) line direction (normalised).
        carrier: optional segment whose local frame the line is in.
    """

    needs = (Part.POINT,)
    geometry_parts = (Part.GOAL_POINT, Part.GOAL_DIRECTION)
    point = Vector()
    direction = Vector(unit=True)

    def __init__(self, point: object, direction: object, carrier: str | None = None) -> None:
        self.point = point
        self.direction = direction
        self._set_carrier(carrier)

    def residual(self, e: dict[Part, Vec], g: dict[Part, Vec]) -> tuple[np.ndarray, Blocks]:
        nu = g[Part.GOAL_DIRECTION]
        d = e[Part.POINT] - g[Part.GOAL_POINT]
        p = projector(nu)
        d_nu = -float(nu @ d) * np.eye(3) - np.outer(nu, d)
        return p @ d, [(Part.POINT, p), (Part.GOAL_POINT, -p), (Part.GOAL_DIRECTION, d_nu)]

    def report(self, e: dict[Part, Vec], g: dict[Part, Vec]) -> Report:
        return Report(
            float(
                np.linalg.norm(
                    projector(g[Part.GOAL_DIRECTION]) @ (e[Part.POINT] - g[Part.GOAL_POINT])
                )
            ),
            None,
        )
