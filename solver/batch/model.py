"""One problem structure evaluated for B problems at once: the batch's assembler.

A :class:`BatchModel` is built from a :class:`~solver.assembly.problem.Problem` (the single solve's
assembler: variables, rigidity scale, coupling, rows) and its :class:`ScaledProblem`
(variables ``z = y / D``, objective ``G / L^2``), so both paths read the same variables and
limits. What the single solve does goal by goal, here is two matrix products over the
batch: every supported goal's residual is linear in its parts with constant derivative
blocks (``r = sum_k B_k part_k``, the blocks being the goal's own, from
:meth:`~solver.goals.Goal.residual`), so with the vector table's world values ``v``
(B, 3 V) and the targets ``t`` (B, 3 T) side by side the task error of
:mod:`solver.methods.jacobian_step` is ``e = v M^T + t G^T`` and its Jacobian ``M C``
(``C`` the batched Jacobian columns of :meth:`Kinematics.columns`), the rows weighted by
``sqrt(w_i)`` and scaled by ``-1 / L`` (``D / L`` on the columns).

Supported goals: :class:`PositionGoal`, :class:`OrientationGoal` and
:class:`PositionOrientationGoal` fixed in the world (no ``carrier``), and :class:`AimGoal`,
whose rows are not linear and are written apart (:mod:`.aim`). Limits: bounds on
single coordinates (joint limits); a row coupling several variables (a bounded joint group,
a linear constraint) is refused.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..assembly.scale import ScaledProblem
from ..errors import InvalidInputError
from ..goals import AimGoal, OrientationGoal, PositionGoal, PositionOrientationGoal
from ..goals.base import Part
from ..model.constraint import Constraint
from ..model.figure import Figure, coordinate_system
from ..model.kinematics import Kinematics, index_or_slice, is_identity
from ..model.linear import LinearSystem
from .aim import AimRow, AimRows

#: The goal kinds a batch solves (their residuals are linear in their parts, but the aim's:
#: :mod:`.aim`).
SUPPORTED_GOALS = (PositionGoal, OrientationGoal, PositionOrientationGoal, AimGoal)


@dataclass(frozen=True)
class TargetSlot:
    """Where one goal attribute (``point``, ``x``, ``y``) sits in the target table.

    Attributes:
        constraint: the constraint's name.
        attribute: the goal's attribute: ``"point"``, ``"x"`` or ``"y"``.
        unit: a direction (normalised on input).
        value: (3,) the goal's current value (the default for every problem).
    """

    constraint: str
    attribute: str
    unit: bool
    value: np.ndarray


@dataclass
class BatchEvaluation:
    """The task of :mod:`solver.methods.jacobian_step` at B points, scaled units.

    Attributes:
        f: (B,) scaled objective ``G / L^2 = |e|^2``.
        g: (B, n) scaled gradient ``-2 J^T e``.
        jacobian: (B, m, n) task Jacobian ``J``.
        error: (B, m) task error ``e``.
        distance: (B, Cd) distance of each measured point from its target (scene units).
        angle: (B, P) angle of each aligned direction from its target (degrees).
        reached: (B,) every distance and angle within tolerance.
    """

    f: np.ndarray
    g: np.ndarray
    jacobian: np.ndarray
    error: np.ndarray
    distance: np.ndarray
    angle: np.ndarray
    reached: np.ndarray

    def take(self, index: np.ndarray) -> BatchEvaluation:
        """The evaluations of the problems ``index`` (k,)."""
        return BatchEvaluation(
            self.f[index],
            self.g[index],
            self.jacobian[index],
            self.error[index],
            self.distance[index],
            self.angle[index],
            self.reached[index],
        )

    def put(self, index: np.ndarray, other: BatchEvaluation) -> None:
        """Replace the evaluations of the problems ``index`` (k,) by ``other``'s."""
        self.f[index] = other.f
        self.g[index] = other.g
        self.jacobian[index] = other.jacobian
        self.error[index] = other.error
        self.distance[index] = other.distance
        self.angle[index] = other.angle
        self.reached[index] = other.reached


def _goal_kind(constraint: Constraint) -> None:
    goal = constraint.goal
    if not isinstance(goal, SUPPORTED_GOALS):
        names = ", ".join(k.__name__ for k in SUPPORTED_GOALS)
        raise InvalidInputError(
            f"constraint {constraint.name!r}: a batch solves {names} goals only, got "
            f"{type(goal).__name__}; solve it with solver.Solver"
        )
    if goal.carrier is not None:
        raise InvalidInputError(
            f"constraint {constraint.name!r}: a batch solves goals fixed in the world; its "
            f"goal is carried by {goal.carrier!r}"
        )


def box_bounds(system: LinearSystem) -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper bounds (n,) of rows that each bound one variable.

    Args:
        system: rows over n variables (the figure's coordinates, or a solve's variables).

    Raises:
        InvalidInputError: a row couples several variables (a bounded joint group of
            several parameters, or a linear constraint), named.
    """
    n = system.A.shape[1]
    nonzero = system.A != 0.0
    coupled = np.flatnonzero(nonzero.sum(axis=1) != 1)
    if len(coupled):
        rows = ", ".join(system.labels[i] for i in coupled[:3])
        raise InvalidInputError(
            f"figure: a batch holds joint limits only; its linear rows ({rows}) couple "
            "several variables (joint groups with limits, linear constraints): solve with "
            "solver.Solver"
        )
    lower, upper = np.full(n, -np.inf), np.full(n, np.inf)
    column = nonzero.argmax(axis=1)
    factor = system.A[np.arange(len(column)), column]
    for k, a, b, equal in zip(column, factor, system.b, system.equality, strict=True):
        bound = b / a
        if equal or a > 0:
            upper[k] = min(upper[k], bound)
        if equal or a < 0:
            lower[k] = max(lower[k], bound)
    return lower, upper


def check_structure(figure: Figure, constraints: Sequence[Constraint]) -> None:
    """Whether a batch solves ``constraints`` (the enabled ones) on ``figure``: nothing, or
    :class:`InvalidInputError` naming what it refuses (a goal kind, a carried goal, linear
    rows coupling several variables), before any problem is set up."""
    for c in constraints:
        if c.enabled:
            _goal_kind(c)
    box_bounds(coordinate_system(figure))


class BatchModel:
    """The vector table, residual maps and limits of one problem structure.

    Args:
        scaled: the single solve's scaled problem (variables, units, rows).
    """

    def __init__(self, scaled: ScaledProblem) -> None:
        problem = scaled.problem
        self.scaled = scaled
        self.problem = problem
        self.n = problem.n
        self.length = scaled.length
        self.tolerance = problem.tolerance
        self.angle_tolerance = problem.angle_tolerance
        self.lower, self.upper = box_bounds(scaled.system)
        self.fixed = self.lower == self.upper  # equality rows: held at their value
        self.has_fixed = bool(self.fixed.any())  # else the per-pass masks are skipped
        figure = problem.figure
        segments: list[int] = []
        locals_: list[np.ndarray] = []
        points: list[bool] = []
        self.slots: list[TargetSlot] = []
        effector_blocks: list[tuple[int, int, np.ndarray]] = []  # (row0, vector, block)
        target_blocks: list[tuple[int, int, np.ndarray]] = []  # (row0, slot, block)
        measured: list[tuple[int, int]] = []  # (vector, slot) of each distance
        aligned: list[tuple[int, int, int]] = []  # (vector, slot, constraint) of each angle
        self.distance_owner: list[int] = []
        aims: list[AimRow] = []
        weights: list[float] = []
        m = 0
        for c_index, c in enumerate(problem.constraints):
            _goal_kind(c)
            goal = c.goal
            segment = figure.segment_index(c.effector.segment)
            local = c.effector.parts()
            vector_of: dict[Part, int] = {}
            for part in goal.needs:
                vector_of[part] = len(segments)
                segments.append(segment)
                locals_.append(np.asarray(local[part], dtype=float))
                points.append(part is Part.POINT)
            slot_of: dict[Part, int] = {}
            for part in goal.geometry_parts:
                slot_of[part] = len(self.slots)
                value = np.array(getattr(goal, part.attribute), dtype=float)
                self.slots.append(
                    TargetSlot(c.name, part.attribute, part is not Part.GOAL_POINT, value)
                )
            if isinstance(goal, AimGoal):  # three rows written apart (.aim)
                point, x, slot = vector_of[Part.POINT], vector_of[Part.X], slot_of[Part.GOAL_POINT]
                aims.append(AimRow(m, point, x, slot, goal.c, float(np.sqrt(c.weight)), c_index))
                weights += [c.weight] * 3
                m += 3
                continue
            zeros = {p: np.zeros(3) for p in goal.needs}
            residual, blocks = goal.residual(zeros, goal.geometry())
            rows = len(residual)
            for part, block in blocks:
                if part in vector_of:
                    effector_blocks.append((m, vector_of[part], np.asarray(block)))
                else:
                    target_blocks.append((m, slot_of[part], np.asarray(block)))
            weights += [c.weight] * rows
            m += rows
            position = isinstance(goal, PositionGoal) or (
                isinstance(goal, PositionOrientationGoal) and goal.position_weight > 0.0
            )
            angled = isinstance(goal, OrientationGoal) or (
                isinstance(goal, PositionOrientationGoal) and goal.position_weight < 1.0
            )
            if position:
                measured.append((vector_of[Part.POINT], slot_of[Part.GOAL_POINT]))
                self.distance_owner.append(c_index)
            if angled:
                for part in goal.needs:
                    if part is not Part.POINT:
                        aligned.append((vector_of[part], slot_of[part.on_goal], c_index))
        self.m = m
        n_vectors, n_slots = len(segments), len(self.slots)
        root = np.sqrt(np.array(weights, dtype=float))[:, None]
        effector_map = np.zeros((m, 3 * n_vectors))
        for row, vector, block in effector_blocks:
            effector_map[row : row + len(block), 3 * vector : 3 * vector + 3] += block
        target_map = np.zeros((m, 3 * n_slots))
        for row, slot, block in target_blocks:
            target_map[row : row + len(block), 3 * slot : 3 * slot + 3] += block
        inverse = 1.0 / self.length
        self._jacobian_map = root * effector_map * inverse  # (m, 3 V): rows of J before D
        # Each task row one vector component times a factor (the usual goals): J's rows are
        # those components' rows scaled, the product's only non-zero term (same rounding).
        self._jacobian_rows: tuple[np.ndarray, np.ndarray] | None = None
        nonzero = self._jacobian_map != 0.0
        if (nonzero.sum(axis=1) == 1).all():
            source = nonzero.argmax(axis=1)
            factor = self._jacobian_map[np.arange(m), source][:, None]
            self._jacobian_rows = (source, factor)
        self._error_map = -(root * effector_map * inverse).T  # (3 V, m)
        self._target_map = -(root * target_map * inverse).T  # (3 T, m)
        self._unit = scaled.unit  # (n,) D
        self._local = np.array(locals_, dtype=float).reshape(-1, 3)
        self._segments = np.array(segments, dtype=int)
        # Local vectors that are each zero or a signed basis vector (a point at the origin,
        # the segment's own axes: the usual effector) are a column of the segment's rotation
        # times 0 or +-1: the rotation product's only non-zero term (same values).
        self._vector_entries: tuple[np.ndarray, np.ndarray] | None = None
        magnitude = np.abs(self._local)
        if ((magnitude == 1.0) | (magnitude == 0.0)).all() and (magnitude.sum(axis=1) <= 1).all():
            column = magnitude.argmax(axis=1)
            sign = self._local[np.arange(len(column)), column]
            entries = 9 * self._segments[:, None] + 3 * np.arange(3) + column[:, None]  # (V, 3)
            self._vector_entries = (entries.reshape(-1), np.repeat(sign, 3))
        point_rows = np.flatnonzero(points)
        self._point_rows = index_or_slice(point_rows)  # a slice: an in-place add on a view
        self._point_segments = self._segments[point_rows]
        active = problem.active_joints
        self.kinematics = problem.kinematics
        self._carried = self.kinematics.carried(
            self._segments, points, active, problem.coupling[active]
        )
        self._coupling_t = problem.coupling.T  # (n, n_joints): q = q_fixed + y C^T
        self._joints_are_variables = is_identity(problem.coupling)
        self._measured = np.array(measured, dtype=int).reshape(-1, 2)
        self._aligned = np.array(aligned, dtype=int).reshape(-1, 3)
        # Contiguous index columns for take (cheaper than fancy indexing after a slice).
        self._measured_columns = tuple(np.ascontiguousarray(c) for c in self._measured.T)
        self._aligned_columns = tuple(np.ascontiguousarray(c) for c in self._aligned[:, :2].T)
        self.aims = AimRows(aims, self.length)
        self.angle_owner = np.concatenate([self._aligned[:, 2], self.aims.owner])

    @property
    def n_constraints(self) -> int:
        """The enabled constraints, in the problem's order."""
        return len(self.problem.constraints)

    def default_targets(self, count: int) -> np.ndarray:
        """(count, T, 3): every goal attribute at its goal's current value."""
        values = np.array([s.value for s in self.slots], dtype=float).reshape(-1, 3)
        return np.broadcast_to(values, (count, *values.shape)).copy()

    def joint_values(self, z: np.ndarray, q_fixed: np.ndarray) -> np.ndarray:
        """Joint values (B, n_joints) at scaled variables ``z`` (B, n)."""
        if self._joints_are_variables:  # q = q_fixed + y: the product would only copy y
            return q_fixed + z * self._unit
        return q_fixed + (z * self._unit) @ self._coupling_t

    def evaluate(self, z: np.ndarray, q_fixed: np.ndarray, targets: np.ndarray) -> BatchEvaluation:
        """The task at ``z`` (B, n) with held joint parts ``q_fixed`` (B, n_joints) and
        ``targets`` (B, T, 3): one batched forward pass and Jacobian, two products."""
        count = len(z)
        frames = self.kinematics.forward(self.joint_values(z, q_fixed))
        if self._vector_entries is not None:
            entries, sign = self._vector_entries
            flat = frames.rotations.reshape(count, -1).take(entries, 1)
            vectors = (flat * sign).reshape(count, -1, 3)  # (B, V, 3)
        else:
            rotations = frames.rotations.take(self._segments, axis=-3)  # (B, V, 3, 3)
            vectors = (rotations @ self._local[:, :, None])[..., 0]
        vectors[:, self._point_rows] += frames.origins.take(self._point_segments, axis=-2)
        columns = Kinematics.columns(frames, vectors, self._carried)  # (B, V, 3, n)
        flat_columns = columns.reshape(count, -1, self.n)
        if self._jacobian_rows is not None:
            source, factor = self._jacobian_rows
            jacobian = flat_columns.take(source, 1) * factor
            jacobian *= self._unit
        else:
            jacobian = (self._jacobian_map @ flat_columns) * self._unit
        flat_targets = targets.reshape(count, -1)
        error = vectors.reshape(count, -1) @ self._error_map + flat_targets @ self._target_map
        if self.aims.rows:
            self.aims.fill(vectors, columns, targets, self._unit, error, jacobian)
        f = np.einsum("bm,bm->b", error, error)
        g = -2.0 * np.einsum("bmn,bm->bn", jacobian, error)
        measured_vectors, measured_slots = self._measured_columns
        aligned_vectors, aligned_slots = self._aligned_columns
        gap = vectors.take(measured_vectors, 1) - targets.take(measured_slots, 1)
        distance = np.sqrt(np.einsum("bkc,bkc->bk", gap, gap))
        here, there = vectors.take(aligned_vectors, 1), targets.take(aligned_slots, 1)
        apart, along = here - there, here + there
        angle = np.degrees(
            2.0
            * np.arctan2(
                np.sqrt(np.einsum("bkc,bkc->bk", apart, apart)),
                np.sqrt(np.einsum("bkc,bkc->bk", along, along)),
            )
        )
        if self.aims.rows:
            angle = np.concatenate([angle, self.aims.angles(vectors, targets)], axis=1)
        # The ufuncs' own reductions: .all's values without its wrapper's ~2 us.
        reached = np.logical_and.reduce(distance <= self.tolerance, axis=1)
        reached &= np.logical_and.reduce(angle <= self.angle_tolerance, axis=1)
        return BatchEvaluation(f, g, jacobian, error, distance, angle, reached)


__all__ = [
    "SUPPORTED_GOALS",
    "BatchEvaluation",
    "BatchModel",
    "TargetSlot",
    "box_bounds",
    "check_structure",
]
