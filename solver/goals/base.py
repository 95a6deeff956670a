"""Goal base class: a potential ``P = |res|^2`` with an analytic residual Jacobian (§5).

Every potential of §5.2 is a sum of squares, so a goal returns a residual
vector ``res`` (m,) and its derivatives with respect to the end-effector parts
(point ``r``, unit vectors ``x``, ``y``) and, for a goal carried by a segment,
with respect to its own point and directions. Then ``P = res . res`` and
``grad P = 2 (d res / d e)^T res`` reproduce eqs. (7), (10)-(11), (14)-(15),
(17), (19) and (21); the same Jacobian gives a Gauss-Newton curvature.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum

import numpy as np

from .._checks import finite_vector, positive_number, unit_vector
from ..errors import FrozenError, InvalidInputError

Vec = np.ndarray  # (3,)


class Part(Enum):
    """What a derivative block of a residual is taken with respect to: a part of the
    end-effector, in world (``POINT``, ``X``, ``Y``), or a part of the goal's own geometry,
    which a carrier segment moves (``GOAL_*``): the keys of the vectors a goal's
    :meth:`~Goal.residual` and :meth:`~Goal.report` take, and of its derivative blocks."""

    POINT = "point"
    X = "x"
    Y = "y"
    GOAL_POINT = "goal point"
    GOAL_NORMAL = "goal normal"
    GOAL_DIRECTION = "goal direction"
    GOAL_X = "goal x"
    GOAL_Y = "goal y"

    @property
    def attribute(self) -> str:
        """The attribute that holds the vector: ``"point"``, ``"x"``, ``"normal"``..."""
        return self.value.removeprefix("goal ")

    @property
    def on_goal(self) -> Part:
        """The goal's part an effector part is compared with (``POINT`` -> ``GOAL_POINT``)."""
        return GOAL_PARTS[self.attribute]


#: A goal's own parts by attribute name.
GOAL_PARTS = {p.attribute: p for p in Part if p.value.startswith("goal ")}

#: Derivative blocks of a residual: (what the derivative is by, (m, 3) matrix).
Blocks = list[tuple[Part, np.ndarray]]


def commensurate_factor(degrees: float | None, what: str) -> float | None:
    """``c_d = 360 / (2 pi d)`` of eq. (8): d degrees weigh like one length unit.

    None (the default of every goal) leaves ``c_d`` to the solver: one radian
    weighs like the figure's characteristic length (:attr:`Goal.length`).
    """
    if degrees is None:
        return None
    d = positive_number(degrees, f"{what} degrees (per unit)")
    return 360.0 / (2.0 * math.pi * d)


class Vector:
    """Validating attribute for a goal's point or direction (read-only array).

    A goal's target: assignable at any time. An optional direction cannot be
    switched on or off after construction (that would change which effector
    parts the goal needs); build a new goal instead.
    """

    def __init__(self, unit: bool = False, optional: bool = False) -> None:
        self.unit = unit
        self.optional = optional

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, obj: object, owner: type | None = None) -> np.ndarray | None:
        if obj is None:
            return self  # type: ignore[return-value]
        return obj.__dict__[self.name]

    def __set__(self, obj: object, value: object) -> None:
        what = f"{type(obj).__name__} {self.name}"
        values = obj.__dict__
        if self.name in values and (values[self.name] is None) != (value is None):
            raise FrozenError(
                f"{what}: a direction cannot be added or suppressed after construction; "
                "build a new goal"
            )
        if value is None:
            if not self.optional:
                raise InvalidInputError(f"{what} is required")
            obj.__dict__[self.name] = None
            return
        array = unit_vector(value, what) if self.unit else finite_vector(value, what)
        array.setflags(write=False)
        obj.__dict__[self.name] = array


@dataclass(frozen=True)
class Report:
    """A goal's error in user units: distance (scene units) and angle (degrees)."""

    distance: float | None
    angle: float | None


class Goal:
    """A goal of §5: potential, residual Jacobian, and a report in user units.

    Subclasses set ``needs`` (effector parts used: ``Part.POINT``, ``X``, ``Y``) and
    ``geometry_parts`` (their own points/directions, ``Part.GOAL_*``, which a ``carrier``
    segment can move), and implement :meth:`residual` and :meth:`report`.
    """

    needs: tuple[Part, ...] = ()
    geometry_parts: tuple[Part, ...] = ()
    #: Which of geometry_parts are points (moved by translation); others are directions.
    point_parts: tuple[Part, ...] = (Part.GOAL_POINT,)

    #: Characteristic length ``L`` of the figure (scene units), bound by the solver
    #: before each solve; a goal built with ``degrees=None`` weighs one radian of
    #: orientation error like ``L`` (``c_d = L``), so its weight follows the figure's size.
    length: float = 1.0

    def per_radian(self, factor: float | None) -> float:
        """``c_d`` of eq. (8): ``factor`` if the goal was given degrees, else ``length``."""
        return self.length if factor is None else factor

    @property
    def carrier(self) -> str | None:
        """Segment whose local frame the goal's geometry is in; None = world. Fixed."""
        return self.__dict__.get("_carrier")

    @carrier.setter
    def carrier(self, carrier: str | None) -> None:
        if "_carrier" in self.__dict__:
            raise FrozenError(
                f"{type(self).__name__} carrier is fixed after construction; build a new goal"
            )
        if carrier is not None and (not isinstance(carrier, str) or not carrier):
            raise InvalidInputError(
                f"{type(self).__name__} carrier must be a segment name, got {carrier!r}"
            )
        self.__dict__["_carrier"] = carrier

    def _set_carrier(self, carrier: str | None) -> None:
        self.carrier = carrier

    def geometry(self) -> dict[Part, Vec]:
        """The goal's points/directions: world, or carrier-local if carried."""
        return {part: getattr(self, part.attribute) for part in self.geometry_parts}

    def members(self) -> tuple[Goal, ...]:
        """Goals whose potential this one combines (itself for a simple goal)."""
        return (self,)

    def residual(self, e: dict[Part, Vec], g: dict[Part, Vec]) -> tuple[np.ndarray, Blocks]:
        """Residual (m,) and derivative blocks at effector parts ``e`` and goal parts ``g``."""
        raise NotImplementedError

    def report(self, e: dict[Part, Vec], g: dict[Part, Vec]) -> Report:
        """Distance (scene units) and/or angle (degrees) to the goal."""
        raise NotImplementedError

    def potential(self, e: dict[Part, Vec], g: dict[Part, Vec]) -> float:
        """``P(e)`` of §5.2 (non-negative)."""
        res, _ = self.residual(e, g)
        return float(res @ res)

    def clearly_missed(self, res: np.ndarray, tolerance: float, angle_tolerance: float) -> bool:
        """Cheap test on the residual ``res`` (m,): True only if the goal is surely unmet.

        The optimiser asks "is every goal met?" after every step; goals whose
        residual bounds their report answer "no" from it, so the report (in
        user units) is only built near the goal. False means "not sure".

        Args:
            res: the residual :meth:`residual` returned.
            tolerance: distance tolerance, scene units.
            angle_tolerance: angle tolerance, degrees.
        """
        return False

    def check_geometry(self, e: dict[Part, Vec], g: dict[Part, Vec], label: str) -> None:
        """Raise :class:`InvalidInputError` if the goal is undefined at ``e``, ``g``."""


#: Slack of :meth:`Goal.clearly_missed` so rounding never calls a met goal missed.
MISS_MARGIN = 1.0 + 1e-9


def chord_squared(degrees: float) -> float:
    """``|a - b|^2`` of unit vectors ``degrees`` apart: ``(2 sin(theta / 2))^2``, capped at 4."""
    half = math.radians(min(max(degrees, 0.0), 180.0)) / 2.0
    return 4.0 * math.sin(half) ** 2


def parts_missed(res: np.ndarray, scales: list[float], limits: list[float | None]) -> bool:
    """Whether any 3-row part ``k`` of ``res`` is ``scales[k] * (difference)`` with
    ``|difference|^2`` above ``limits[k]`` (None: that part has no limit)."""
    squares = (res * res).reshape(-1, 3).sum(axis=1)
    for square, scale, limit in zip(squares, scales, limits, strict=True):
        if limit is not None and scale > 0.0 and square > MISS_MARGIN * scale * scale * limit:
            return True
    return False


def angle_between(a: Vec, b: Vec) -> float:
    """Angle in degrees between unit vectors ``a`` and ``b`` (robust near 0 and 180)."""
    d, m = a - b, a + b
    return math.degrees(2.0 * math.atan2(math.sqrt(d @ d), math.sqrt(m @ m)))


def length(v: Vec) -> float:
    """Euclidean length of a (3,) vector (cheaper than ``np.linalg.norm`` on tiny arrays)."""
    return math.sqrt(float(v @ v))


def projector(n: Vec) -> np.ndarray:
    """``I - n n^T``: projection onto the plane normal to unit ``n``, (3, 3)."""
    return np.eye(3) - np.outer(n, n)
