"""Plane and half-space goals (eqs. 18-21)."""

import numpy as np

from .base import Blocks, Goal, Part, Report, Vec, Vector


class PlaneGoal(Goal):
    """Keep the effector point on the plane through ``point`` with unit ``normal``.

    Args:
        point: (3,) a point on the plane.
        normal: (3,) plane normal (normalised).
        carrier: optional segment whose local frame the plane is in.
    """

    needs = (Part.POINT,)
    geometry_parts = (Part.GOAL_POINT, Part.GOAL_NORMAL)
    point = Vector()
    normal = Vector(unit=True)

    def __init__(self, point: object, normal: object, carrier: str | None = None) -> None:
        self.point = point
        self.normal = normal
        self._set_carrier(carrier)

    def residual(self, e: dict[Part, Vec], g: dict[Part, Vec]) -> tuple[np.ndarray, Blocks]:
        d = e[Part.POINT] - g[Part.GOAL_POINT]
        nu = g[Part.GOAL_NORMAL]
        return np.array([nu @ d]), [
            (Part.POINT, nu[None, :]),
            (Part.GOAL_POINT, -nu[None, :]),
            (Part.GOAL_NORMAL, d[None, :]),
        ]

    def report(self, e: dict[Part, Vec], g: dict[Part, Vec]) -> Report:
        return Report(abs(float(g[Part.GOAL_NORMAL] @ (e[Part.POINT] - g[Part.GOAL_POINT]))), None)


class HalfSpaceGoal(PlaneGoal):
    """Keep the effector point on the side of the plane that ``point + normal`` is on.

    The potential is zero inside the half-space and the plane potential outside.
    """

    def residual(self, e: dict[Part, Vec], g: dict[Part, Vec]) -> tuple[np.ndarray, Blocks]:
        res, blocks = super().residual(e, g)
        if res[0] >= 0.0:  # inside: (p - r) . nu <= 0
            return np.zeros(1), [(part, np.zeros_like(b)) for part, b in blocks]
        return res, blocks

    def report(self, e: dict[Part, Vec], g: dict[Part, Vec]) -> Report:
        return Report(
            max(0.0, -float(g[Part.GOAL_NORMAL] @ (e[Part.POINT] - g[Part.GOAL_POINT]))), None
        )
