"""Disjunction of goals: ``G = min_i G_i`` (§8, eq. 27)."""

from collections.abc import Iterable, Sequence

from ..errors import FrozenError, InvalidInputError
from .base import Goal, Part


class Disjunction(Goal):
    """Satisfied when any member goal is; its potential is the smallest member's.

    Keeping a point outside a convex polyhedron is the disjunction of the
    outward half-spaces of its faces.

    Args:
        goals: member goals (at least one; no nested disjunctions needed).
    """

    def __init__(self, goals: Sequence[Goal]) -> None:
        if isinstance(goals, Goal) or not isinstance(goals, Iterable):
            raise InvalidInputError(f"Disjunction goals must be a list of goals, got {goals!r}")
        goals = tuple(goals)
        if not goals:
            raise InvalidInputError("Disjunction needs at least one member goal")
        for goal in goals:
            if not isinstance(goal, Goal):
                raise InvalidInputError(f"Disjunction member {goal!r} is not a goal")
        self._goals = tuple(m for goal in goals for m in goal.members())

    @property
    def goals(self) -> tuple[Goal, ...]:
        """The member goals (fixed after construction; their targets can move)."""
        return self._goals

    @goals.setter
    def goals(self, value: object) -> None:
        raise FrozenError("Disjunction goals are fixed after construction; build a new one")

    def members(self) -> tuple[Goal, ...]:
        return self.goals

    @property
    def needs(self) -> tuple[Part, ...]:  # type: ignore[override]
        parts = {p for goal in self.goals for p in goal.needs}
        return tuple(p for p in (Part.POINT, Part.X, Part.Y) if p in parts)
