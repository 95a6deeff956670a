"""End-effectors and constraints (§3, §4.1, §9).

Both are fixed after construction, so a :class:`~solver.solve.Solver` that
assembled them can never hold a stale problem: replacing a constraint's goal,
effector or chain means building a new :class:`Constraint` (and a new
``Solver``, or passing the new list). What may change between solves is the
goal's *target* (``goal.point = ...``, ``goal.set_target(...)``), a
constraint's ``weight`` (read at every evaluation) and ``enabled`` (the solver
re-assembles when it changes). Every assignment is validated.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from .._checks import (
    finite_array,
    finite_vector,
    non_empty_name,
    non_negative_number,
    unit_vector,
)
from ..errors import FrozenError, InvalidInputError
from ..goals.base import Goal, Part
from ..goals.orientation import check_independent


def _read_only(array: np.ndarray | None) -> np.ndarray | None:
    if array is not None:
        array.setflags(write=False)
    return array


class EndEffector:
    """A point and up to two unit vectors on a segment (§4.1); immutable.

    Args:
        segment: name of the end-effector segment.
        point: (3,) point in the segment's local frame, scene units.
        x, y: optional (3,) local unit directions (normalised). Orientation
            goals align them with the goal's x/y; an aim goal aims ``x``. Given
            both, they must not be (anti)parallel (they would fix no orientation).
    """

    __slots__ = ("point", "segment", "x", "y")

    def __init__(
        self,
        segment: str,
        point: object = (0.0, 0.0, 0.0),
        x: object = None,
        y: object = None,
    ) -> None:
        segment = non_empty_name(segment, "EndEffector segment")
        init = object.__setattr__
        init(self, "segment", segment)
        init(self, "point", _read_only(finite_vector(point, f"end-effector point on {segment!r}")))
        for axis, value in (("x", x), ("y", y)):
            vector = (
                None if value is None else unit_vector(value, f"end-effector {axis} on {segment!r}")
            )
            init(self, axis, _read_only(vector))
        check_independent(self.x, self.y, f"EndEffector on {segment!r}")

    @classmethod
    def from_matrix(cls, segment: str, matrix: object) -> EndEffector:
        """An effector frame on ``segment`` from a (4, 4) segment-local transform.

        The point is the matrix's translation column (scene units), ``x`` and
        ``y`` its first two rotation columns, so a pose goal built with
        :meth:`PositionOrientationGoal.from_matrix` moves this frame onto the
        goal's frame.
        """
        m = finite_array(matrix, f"end-effector matrix on {segment!r}", (4, 4))
        return cls(segment, m[:3, 3], m[:3, 0], m[:3, 1])

    def __setattr__(self, key: str, value: object) -> None:
        raise FrozenError(
            f"EndEffector on {self.segment!r}: {key!r} is fixed after construction; "
            "build a new EndEffector and Constraint"
        )

    def parts(self) -> dict[Part, np.ndarray | None]:
        """Local vectors by part: ``Part.POINT``, ``Part.X``, ``Part.Y`` (None if absent)."""
        return {Part.POINT: self.point, Part.X: self.x, Part.Y: self.y}

    def __repr__(self) -> str:
        return f"EndEffector({self.segment!r}, point={self.point.tolist()})"


class Constraint:
    """An end-effector, a goal, a weight and a joint chain (§3, §8).

    ``effector``, ``goal``, ``chain_root`` and ``name`` are fixed after
    construction (assigning raises :class:`~solver.errors.FrozenError`);
    ``weight`` and ``enabled`` may be changed and are validated.

    Args:
        effector: the end-effector.
        goal: any goal of :mod:`solver.goals` (or a :class:`Disjunction`).
        weight: w_i >= 0 of eq. (25).
        chain_root: segment where the joint chain starts (its joints included);
            None uses every joint from the figure root down to the effector.
        name: label used in reports and error messages.
        enabled: disabled constraints are ignored by the next solve.
    """

    __slots__ = ("_enabled", "_weight", "chain_root", "effector", "goal", "name")
    _MUTABLE = ("weight", "enabled")

    def __init__(
        self,
        effector: EndEffector,
        goal: Goal,
        weight: float = 1.0,
        chain_root: str | None = None,
        name: str | None = None,
        enabled: bool = True,
    ) -> None:
        if name is None:
            name = f"{type(goal).__name__} on {getattr(effector, 'segment', '?')}"
        elif not isinstance(name, str) or not name:
            raise InvalidInputError(f"constraint name must be a non-empty string, got {name!r}")
        init = object.__setattr__
        init(self, "name", name)
        if not isinstance(effector, EndEffector):
            raise InvalidInputError(
                f"constraint {name!r}: effector must be an EndEffector, got {effector!r}"
            )
        if not isinstance(goal, Goal):
            raise InvalidInputError(
                f"constraint {name!r}: goal must be a goal object, got {goal!r}"
            )
        if chain_root is not None and (not isinstance(chain_root, str) or not chain_root):
            raise InvalidInputError(
                f"constraint {name!r}: chain_root must be a segment name or None, "
                f"got {chain_root!r}"
            )
        for member in goal.members():
            for part in member.needs:
                if part is not Part.POINT and effector.parts()[part] is None:
                    raise InvalidInputError(
                        f"constraint {name!r}: {type(member).__name__} needs the end-effector "
                        f"direction {part.attribute!r}; give EndEffector({part.attribute}=...)"
                    )
        init(self, "effector", effector)
        init(self, "goal", goal)
        init(self, "chain_root", chain_root)
        self.weight = weight
        self.enabled = enabled

    @property
    def weight(self) -> float:
        """w_i >= 0 of eq. (25); read at every evaluation."""
        return self._weight

    @weight.setter
    def weight(self, value: object) -> None:
        object.__setattr__(
            self, "_weight", non_negative_number(value, f"constraint {self.name!r} weight")
        )

    @property
    def enabled(self) -> bool:
        """Whether the next solve includes this constraint."""
        return self._enabled

    @enabled.setter
    def enabled(self, value: object) -> None:
        if not isinstance(value, (bool, np.bool_)):
            raise InvalidInputError(
                f"constraint {self.name!r} enabled must be True or False, got {value!r}"
            )
        object.__setattr__(self, "_enabled", bool(value))

    def __setattr__(self, key: str, value: object) -> None:
        if key in self._MUTABLE:
            object.__setattr__(self, key, value)  # through the validating property
            return
        raise FrozenError(
            f"constraint {self.name!r}: {key!r} is fixed after construction; build a new "
            "Constraint (only the goal's target, weight and enabled can change)"
        )

    def __repr__(self) -> str:
        return f"Constraint({self.name!r}, weight={self.weight})"


def constraint_list(constraints: object) -> tuple[Constraint, ...]:
    """Validate the ``constraints`` argument of a solve: a non-empty iterable of Constraint.

    Returns them as a tuple: a solver's own copy, which cannot be changed under it.
    """
    if constraints is None or isinstance(constraints, (str, bytes, Constraint)):
        raise InvalidInputError(
            f"constraints must be a list of solver.Constraint, got {constraints!r}"
        )
    if not isinstance(constraints, Iterable):
        raise InvalidInputError(
            f"constraints must be a list of solver.Constraint, got {constraints!r}"
        )
    items = list(constraints)
    if not items:
        raise InvalidInputError("the constraint list is empty; add at least one constraint")
    for k, c in enumerate(items):
        if not isinstance(c, Constraint):
            raise InvalidInputError(f"constraints[{k}] is not a solver.Constraint: {c!r}")
    return tuple(items)
