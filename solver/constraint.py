"""End-effectors and constraints (§3, §4.1, §9)."""

from __future__ import annotations

import math

import numpy as np

from ._checks import finite_vector, unit_vector
from .errors import InvalidInputError
from .goals.base import Goal


class EndEffector:
    """A point and up to two unit vectors on a segment (§4.1).

    Args:
        segment: name of the end-effector segment.
        point: (3,) point in the segment's local frame, scene units.
        x, y: optional (3,) local unit directions (normalised). Orientation
            goals align them with the goal's x/y; an aim goal aims ``x``.
    """

    def __init__(
        self,
        segment: str,
        point: object = (0.0, 0.0, 0.0),
        x: object = None,
        y: object = None,
    ) -> None:
        if not isinstance(segment, str) or not segment:
            raise InvalidInputError(f"EndEffector segment must be a name, got {segment!r}")
        self.segment = segment
        self.point = finite_vector(point, f"end-effector point on {segment!r}")
        self.x = None if x is None else unit_vector(x, f"end-effector x on {segment!r}")
        self.y = None if y is None else unit_vector(y, f"end-effector y on {segment!r}")

    def parts(self) -> dict[str, np.ndarray | None]:
        """Local vectors by part name: "point", "x", "y" (None if absent)."""
        return {"point": self.point, "x": self.x, "y": self.y}

    def __repr__(self) -> str:
        return f"EndEffector({self.segment!r}, point={self.point.tolist()})"


class Constraint:
    """An end-effector, a goal, a weight and a joint chain (§3, §8).

    Args:
        effector: the end-effector.
        goal: any goal of :mod:`solver.goals` (or a :class:`Disjunction`).
        weight: w_i >= 0 of eq. (25).
        chain_root: segment where the joint chain starts (its joints included);
            None uses every joint from the figure root down to the effector.
        name: label used in reports and error messages.
        enabled: disabled constraints are ignored by the next solve.
    """

    def __init__(
        self,
        effector: EndEffector,
        goal: Goal,
        weight: float = 1.0,
        chain_root: str | None = None,
        name: str | None = None,
        enabled: bool = True,
    ) -> None:
        self.name = name or f"{type(goal).__name__} on {getattr(effector, 'segment', '?')}"
        if not isinstance(effector, EndEffector):
            raise InvalidInputError(f"constraint {self.name!r}: effector must be an EndEffector")
        if not isinstance(goal, Goal):
            raise InvalidInputError(f"constraint {self.name!r}: goal must be a goal object")
        w = float(weight)
        if not math.isfinite(w) or w < 0.0:
            raise InvalidInputError(
                f"constraint {self.name!r}: weight must be finite and >= 0, got {w}"
            )
        for member in goal.members():
            for part in member.needs:
                if part != "point" and effector.parts()[part] is None:
                    raise InvalidInputError(
                        f"constraint {self.name!r}: {type(member).__name__} needs the "
                        f"end-effector direction {part!r}; give EndEffector({part}=...)"
                    )
        self.effector = effector
        self.goal = goal
        self.weight = w
        self.chain_root = chain_root
        self.enabled = bool(enabled)

    def __repr__(self) -> str:
        return f"Constraint({self.name!r}, weight={self.weight})"
