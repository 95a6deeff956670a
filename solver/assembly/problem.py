"""The assembler (§9, §10): figure + weighted constraints -> objective and gradient.

Variables are the scaled coordinates ``y`` of the joints that some enabled
constraint's chain may move: ``coords[var] = scale * y`` with
``scale = 1 - rigidity`` (§11: rigidity changes the unit of a DOF, so its
derivative shrinks and it moves less; rigidity 1 locks it). Coordinates that
are not variables keep the values they had at the start of the solve.

Chains are reconciled as in §10: once the union of all chains is known, every
constraint's gradient includes every variable joint that moves its
end-effector, whichever constraint's chain brought that joint in.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ..errors import InvalidInputError, UnknownNameError
from ..goals.base import Blocks, Goal, Part, Report
from ..model.constraint import Constraint
from ..model.figure import Figure, coordinate_system
from ..model.kinematics import Frames, Kinematics, index_or_slice, is_identity
from ..model.linear import LinearSystem, UnitRows


@dataclass
class _Member:
    """One member goal of a term and where its parts sit in the term's stacked blocks."""

    goal: Goal
    carried: dict[Part, int]  # goal part -> its row in the problem's vector table
    slots: dict[Part, int]  # what a block is by (Part.POINT, Part.GOAL_POINT...) -> column
    #: Whether the goal's class has a :meth:`Goal.check_geometry` of its own (the base one
    #: accepts everything, so :meth:`Problem.check_goals` skips the goal).
    checked: bool = field(init=False)

    def __post_init__(self) -> None:
        self.checked = type(self.goal).check_geometry is not Goal.check_geometry


@dataclass
class _Term:
    """One constraint: its rows of the problem's vector table and its member goals.

    The rows are the effector parts (``names``), then each member's goal parts that a
    segment carries; a residual's derivative blocks side by side over those rows
    (:meth:`stacked_blocks`) times their Jacobian columns is the term's Jacobian.
    """

    constraint: Constraint
    members: list[_Member]
    names: list[Part]  # effector parts used, Part.POINT first if present
    effector: tuple[tuple[Part, int], ...]  # (part, row in the vector table)
    rows: slice  # rows of all its vectors: effector parts, then carried goal parts
    last_blocks: object = None  # the last block list and its member,
    last_member: object = None
    last_stacked: np.ndarray | bool | None = False  # their stacked form (False: not built)

    def jacobian(
        self, member: _Member, blocks: Blocks, rows: int, columns: np.ndarray
    ) -> np.ndarray:
        """The Jacobian (m, n) of a residual of ``rows`` = m rows with derivative ``blocks``
        (each (m, 3)), from the (3 * vectors, n) ``columns`` of the term's rows.

        A goal whose blocks are constant returns the same list each time: from its second
        time on, its blocks side by side (:meth:`stacked_blocks`) are kept and the Jacobian
        is one product, or the columns themselves when that stack is the identity (a
        position goal's). Blocks seen once are multiplied one by one.
        """
        if blocks is self.last_blocks and member is self.last_member:
            if self.last_stacked is False:
                self.last_stacked = self.stacked_blocks(member, blocks, rows, len(columns))
            stacked = self.last_stacked
            return columns if stacked is None else stacked @ columns  # type: ignore[operator]
        self.last_blocks, self.last_member, self.last_stacked = blocks, member, False
        jac = None
        for key, block in blocks:
            slot = member.slots.get(key)
            if slot is not None:
                step = block @ columns[slot : slot + 3]
                jac = step if jac is None else jac + step
        return np.zeros((rows, columns.shape[1])) if jac is None else jac

    @staticmethod
    def stacked_blocks(member: _Member, blocks: Blocks, rows: int, size: int) -> np.ndarray | None:
        """The blocks side by side, (rows, size); None when that is the identity."""
        out = np.zeros((rows, size))
        for key, block in blocks:
            slot = member.slots.get(key)
            if slot is not None:
                out[:, slot : slot + 3] += block
        return None if out.shape == (size, size) and np.array_equal(out, np.eye(size)) else out


@dataclass
class TermValue:
    """One constraint's state at one point: residual, Jacobian, world parts."""

    weight: float
    residual: np.ndarray  # (m,)
    jacobian: np.ndarray  # (m, n)
    goal: Goal
    effector: dict[Part, np.ndarray]
    geometry: dict[Part, np.ndarray]
    blocks: Blocks = field(default_factory=list)  # the residual's derivative blocks

    def report(self) -> Report:
        """The selected goal's error in user units."""
        return self.goal.report(self.effector, self.geometry)


@dataclass
class Evaluation:
    """Objective ``G = sum w_i P_i`` (eq. 25) and gradient (eq. 24) at ``y``."""

    y: np.ndarray  # (n,)
    f: float
    g: np.ndarray  # (n,)
    terms: list[TermValue]
    problem: Problem
    residual: np.ndarray = field(default_factory=lambda: np.zeros(0))  # (m,) terms' stacked
    jacobian: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))  # (m, n) stacked
    weights: np.ndarray = field(default_factory=lambda: np.zeros(0))  # (m,) each row's w_i
    _reports: list[Report] | None = field(default=None, repr=False)
    _gauss_newton: np.ndarray | None = field(default=None, repr=False)

    @property
    def reports(self) -> list[Report]:
        """Per-constraint errors in user units."""
        if self._reports is None:
            self._reports = [t.report() for t in self.terms]
        return self._reports

    @property
    def reached(self) -> bool:
        """Every constraint within the distance and angle tolerances.

        Asked after every step: a goal that its residual shows to be missed
        answers without building reports (:meth:`Goal.clearly_missed`).
        """
        p = self.problem
        for t in self.terms:
            if t.goal.clearly_missed(t.residual, p.tolerance, p.angle_tolerance):
                return False
        return all(p.satisfied(r) for r in self.reports)

    def gauss_newton_factor(self) -> np.ndarray:
        """``F`` (m, n): rows ``sqrt(2 w_i) J_i`` of the terms with ``w_i > 0`` stacked, so
        ``F^T F`` = :meth:`gauss_newton`."""
        factor = np.sqrt(2.0 * self.weights)[:, None] * self.jacobian
        weighted = self.weights > 0.0
        return factor if weighted.all() else factor[weighted]

    def gauss_newton(self) -> np.ndarray:
        """``2 sum w_i J_i^T J_i`` (n, n): the Gauss-Newton curvature of G (cached)."""
        if self._gauss_newton is None:
            stacked = self.gauss_newton_factor()
            self._gauss_newton = stacked.T @ stacked
        return self._gauss_newton


def _with_tied(figure: Figure, coupling: np.ndarray, movable: np.ndarray) -> np.ndarray:
    """``movable`` (n_coords,) bool, with every coordinate an equality row ties to a movable
    one: a joint that mimics another (``value = k * leader + offset``) moves when its leader
    does, wherever it sits in the tree (held at its start, it would hold the leader too)."""
    tied = [
        np.abs(coupling[list(row.coefficients)]).sum(axis=0) > 0.0
        for row in figure.linear_constraints
        if row.lower == row.upper
    ]
    grown = True
    while grown:
        grown = False
        for row in tied:
            if (row & movable).any() and (row & ~movable).any():
                movable = movable | row
                grown = True
    return movable


class Problem:
    """An assembled problem: variables, objective, gradient and linear rows in ``y``.

    Raises :class:`InvalidInputError` for a figure without joints (nothing to
    solve) and when no constraint is enabled.

    Args:
        figure: the figure.
        constraints: all constraints; disabled ones are skipped.
        coords: (n_coords,) coordinates at the start; non-variables keep these.
        tolerance: distance tolerance (scene units) for "satisfied".
        angle_tolerance: angle tolerance (degrees) for "satisfied".
    """

    def __init__(
        self,
        figure: Figure,
        constraints: Sequence[Constraint],
        coords: np.ndarray,
        tolerance: float = 1e-5,
        angle_tolerance: float = 0.01,
    ) -> None:
        self.figure = figure
        self.tolerance = float(tolerance)
        self.angle_tolerance = float(angle_tolerance)
        self.constraints = [c for c in constraints if c.enabled]
        if not self.constraints:
            raise InvalidInputError("there are no enabled constraints to solve")
        if not figure.joints:
            # Nothing can move: rather than return a "result" that is only the
            # input, say so; a joint-less figure is a setup mistake.
            raise InvalidInputError("the figure has no joints; add joints before solving")
        self.kinematics = figure.kinematics
        self._last_frames: tuple[int, bytes, Frames] | None = None
        self.version = figure.version
        chains = np.zeros(len(figure.joints), dtype=bool)
        for c in self.constraints:
            chains |= self.chain(c)
        coupling = figure.coupling
        movable = _with_tied(figure, coupling, np.abs(coupling[chains]).sum(axis=0) > 0.0)
        rigidity = figure.coordinate_rigidity()
        self.variables = np.flatnonzero(movable & (rigidity < 1.0))
        self.fixed = np.flatnonzero(~(movable & (rigidity < 1.0)))
        self.scale = 1.0 - rigidity[self.variables]
        self.n = len(self.variables)
        self.coupling = coupling[:, self.variables] * self.scale  # (n_joints, n)
        self._joints_are_variables = is_identity(self.coupling)  # q = q_fixed + y then
        self.active_joints = np.flatnonzero(np.abs(self.coupling).sum(axis=1) > 0.0)
        self.base = np.array(coords, dtype=float)
        coordinate_rows = coordinate_system(figure)
        self._rows = coordinate_rows
        self._unit_rows: UnitRows | None = None
        # The held coordinates' columns, sliced once: every rebase multiplies them.
        self._held_rows = coordinate_rows.A[:, self.fixed]  # (rows, held)
        self._held_coupling = coupling[:, self.fixed]  # (n_joints, held)
        self.system = self._variable_system()
        self._q_fixed = self._held_coupling @ self.base[self.fixed]
        self._segments: list[int] = []  # the vector table: each vector's segment,
        self._locals: list[np.ndarray] = []  # its local value (goal parts: re-read),
        self._points: list[bool] = []  # and whether it is a point
        self._carried_parts: list[tuple[int, Goal, Part]] = []  # (row, goal, part)
        self.terms = [self._term(c) for c in self.constraints]
        self._local = np.array(self._locals, dtype=float).reshape(-1, 3)  # (V, 3)
        self._vector_segments = np.array(self._segments, dtype=int)
        point_rows = np.flatnonzero(self._points)
        self._point_rows = index_or_slice(point_rows)
        self._point_segments = self._vector_segments[point_rows]
        active = self.active_joints
        self._carried = self.kinematics.carried(
            self._vector_segments, self._points, active, self.coupling[active]
        )
        self._sizes: list[int] = []  # residual sizes of the terms at the last evaluation
        self._rows_of_terms = np.zeros(0, dtype=int)
        self.nfev = 0

    # ---------------------------------------------------------------- assembly
    def _segment(self, name: str, constraint: Constraint, role: str) -> int:
        try:
            return self.figure.segment_index(name)
        except UnknownNameError:
            raise UnknownNameError(
                f"constraint {constraint.name!r}: {role} segment {name!r} is not in the figure"
            ) from None

    def chain(self, c: Constraint) -> np.ndarray:
        """Joints of constraint ``c``'s chain (bool mask over the figure's joints)."""
        anc = self.kinematics.ancestors
        ends = [self._segment(c.effector.segment, c, "end-effector")]
        ends += [
            self._segment(m.carrier, c, "goal carrier")
            for m in c.goal.members()
            if m.carrier is not None
        ]
        mask = np.zeros(len(self.figure.joints), dtype=bool)
        if c.chain_root is None:
            for s in ends:
                mask |= anc[s]
            return mask
        root = self._segment(c.chain_root, c, "chain root")
        parent = self.figure.segments[root].parent
        above = anc[parent] if parent >= 0 else np.zeros_like(mask)
        if not self._is_ancestor(root, ends[0]):
            raise InvalidInputError(
                f"constraint {c.name!r}: chain root {c.chain_root!r} is not an ancestor "
                f"of end-effector segment {c.effector.segment!r}"
            )
        for s in ends:
            if self._is_ancestor(root, s):
                mask |= anc[s] & ~above
        return mask

    def _is_ancestor(self, a: int, s: int) -> bool:
        segments = self.figure.segments
        while s >= 0:
            if s == a:
                return True
            s = segments[s].parent
        return False

    def _vector(self, segment: int, local: np.ndarray, is_point: bool) -> int:
        """Add a vector fixed to ``segment`` to the vector table; return its row."""
        self._segments.append(segment)
        self._locals.append(np.asarray(local, dtype=float))
        self._points.append(is_point)
        return len(self._segments) - 1

    def _term(self, c: Constraint) -> _Term:
        seg = self.figure.segment_index(c.effector.segment)
        local = c.effector.parts()
        needs = {p for m in c.goal.members() for p in m.needs}
        names = [p for p in (Part.POINT, Part.X, Part.Y) if p in needs]
        start = len(self._segments)
        effector = tuple(
            (part, self._vector(seg, local[part], part is Part.POINT)) for part in names
        )
        members = []
        for goal in c.goal.members():
            carried: dict[Part, int] = {}
            if goal.carrier is not None:
                carrier = self.figure.segment_index(goal.carrier)
                for part, vector in goal.geometry().items():
                    row = self._vector(carrier, vector, part in goal.point_parts)
                    carried[part] = row
                    self._carried_parts.append((row, goal, part))
            members.append(_Member(goal, carried, {}))
        rows = slice(start, len(self._segments))
        for member in members:
            member.slots = {p: 3 * k for k, p in enumerate(names)}
            member.slots.update((part, 3 * (row - start)) for part, row in member.carried.items())
        return _Term(c, members, names, effector, rows)

    def _variable_system(self) -> LinearSystem:
        """The rows in ``y`` (unit length) at the current ``base``.

        ``A`` in ``y`` is fixed for this problem, so it is normalised once; a rebase
        recomputes only the right-hand sides.
        """
        rows = self._rows
        if self._unit_rows is None:
            a = rows.A[:, self.variables] * self.scale
            self._unit_rows = UnitRows(LinearSystem(a, rows.b, rows.equality, rows.labels))
        return self._unit_rows.system(rows.b - self._held_rows @ self.base[self.fixed])

    def rebase(self, coords: np.ndarray) -> None:
        """Hold non-variable coordinates at ``coords`` (n_coords,) from now on."""
        self.base = np.array(coords, dtype=float)
        self.system = self._variable_system()
        self._q_fixed = self._held_coupling @ self.base[self.fixed]

    # ------------------------------------------------------------- conversions
    def to_coordinates(self, y: np.ndarray) -> np.ndarray:
        """Coordinates (n_coords,) for variables ``y`` (n,)."""
        coords = self.base.copy()
        coords[self.variables] = self.scale * y
        return coords

    def from_coordinates(self, coords: np.ndarray) -> np.ndarray:
        """Variables (n,) of coordinates ``coords`` (n_coords,)."""
        return np.asarray(coords, dtype=float)[self.variables] / self.scale

    @property
    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """Per-variable (lower, upper) bounds in ``y`` units, each (n,)."""
        lower, upper = self.figure.coordinate_bounds()
        return lower[self.variables] / self.scale, upper[self.variables] / self.scale

    def satisfied(self, report: Report) -> bool:
        """Whether a report is within the distance and angle tolerances."""
        return (report.distance is None or report.distance <= self.tolerance) and (
            report.angle is None or report.angle <= self.angle_tolerance
        )

    # -------------------------------------------------------------- evaluation
    def frames(self, y: np.ndarray) -> Frames:
        """Forward kinematics at variables ``y``: joint values ``q = q_fixed + C y``.

        The last pass is kept: the start's goal check and its first evaluation share it
        (keyed by ``q`` and the figure's rest offsets, so a moved rest is re-read).
        """
        q = self._q_fixed + (y if self._joints_are_variables else self.coupling @ y)
        key = self.figure.rest_version
        last = self._last_frames
        # Bit-equal q (cheaper than np.array_equal; a -0.0 for 0.0 only costs a new pass).
        if last is not None and last[0] == key and last[1] == q.tobytes():
            return last[2]
        frames = self.kinematics.forward(q)
        self._last_frames = (key, q.tobytes(), frames)
        return frames

    def evaluate(self, y: np.ndarray) -> Evaluation:
        """Objective, gradient and per-constraint state at ``y`` (n,).

        One forward pass; the Jacobian columns of every effector part and carried goal
        part at once; per constraint its residual and the product of its derivative
        blocks with its columns. Reports in user units are left to
        :attr:`Evaluation.reports`.
        """
        self.nfev += 1
        frames = self.frames(y)
        vectors = self._vectors(frames)
        columns = Kinematics.columns(frames, vectors, self._carried).reshape(
            3 * len(vectors), self.n
        )
        values = [self._term_value(term, vectors, columns) for term in self.terms]
        residual = np.concatenate([v.residual for v in values])
        jacobian = np.concatenate([v.jacobian for v in values])
        weights = np.array([v.weight for v in values])[self._row_terms(values)]
        weighted = weights * residual
        f = float(weighted @ residual)
        g = (2.0 * weighted) @ jacobian
        return Evaluation(np.array(y, dtype=float), f, g, values, self, residual, jacobian, weights)

    def value(self, y: np.ndarray) -> float:
        """Objective ``G(y)``."""
        return self.evaluate(y).f

    def value_and_gradient(self, y: np.ndarray) -> tuple[float, np.ndarray]:
        """Objective and gradient (n,) at ``y``."""
        e = self.evaluate(y)
        return e.f, e.g

    def _row_terms(self, values: list[TermValue]) -> np.ndarray:
        """(m,) the term of each row of the stacked residual (kept while the sizes stay)."""
        sizes = [len(v.residual) for v in values]
        if sizes != self._sizes:
            self._sizes = sizes
            self._rows_of_terms = np.repeat(np.arange(len(sizes)), sizes)
        return self._rows_of_terms

    def _vectors(self, frames: Frames) -> np.ndarray:
        """World values (V, 3) of the vector table: effector parts and carried goal parts
        (whose local values are the goals' current ones, so a retargeted goal is followed)."""
        local = self._local
        if self._carried_parts:
            local = local.copy()
            for row, goal, part in self._carried_parts:
                local[row] = getattr(goal, part.attribute)
        segments = self._vector_segments
        world = np.einsum("vab,vb->va", frames.rotations[segments], local)
        world[self._point_rows] += frames.origins[self._point_segments]
        return world

    @staticmethod
    def _parts(
        term: _Term, member: _Member, vectors: np.ndarray
    ) -> tuple[dict[Part, np.ndarray], dict[Part, np.ndarray]]:
        """A member's effector parts and goal parts (carried ones in world), keyed by part."""
        effector = {part: vectors[row] for part, row in term.effector}
        geometry = member.goal.geometry()
        for part, row in member.carried.items():
            geometry[part] = vectors[row]
        return effector, geometry

    def _term_value(self, term: _Term, vectors: np.ndarray, columns: np.ndarray) -> TermValue:
        """A term's residual and Jacobian (its closest member's, for a disjunction).

        Args:
            term: the term.
            vectors: (V, 3) world vectors of the vector table.
            columns: (3 V, n) their Jacobian columns.
        """
        members = term.members
        member = members[0]
        effector, geometry = self._parts(term, member, vectors)
        res, blocks = member.goal.residual(effector, geometry)
        if len(members) > 1:  # a disjunction: the closest member (the first of equals)
            size = float(res @ res)
            for other in members[1:]:
                e, g = self._parts(term, other, vectors)
                r, b = other.goal.residual(e, g)
                if float(r @ r) < size:
                    size, member, effector, geometry, res, blocks = float(r @ r), other, e, g, r, b
        own = columns[3 * term.rows.start : 3 * term.rows.stop]
        jac = term.jacobian(member, blocks, len(res), own)
        weight = term.constraint.weight
        return TermValue(weight, res, jac, member.goal, effector, geometry, blocks)

    def check_goals(self, y: np.ndarray) -> None:
        """Raise :class:`InvalidInputError` where a goal is undefined at ``y``.

        Only goals with a check of their own (:attr:`_Member.checked`) are looked at: the
        others could never raise, and their world geometry costs as much as the check.
        """
        vectors = None
        for term in self.terms:
            checked = [member for member in term.members if member.checked]
            if not checked:
                continue
            vectors = self._vectors(self.frames(y)) if vectors is None else vectors
            for member in checked:
                effector, geometry = self._parts(term, member, vectors)
                label = f"constraint {term.constraint.name!r}"
                member.goal.check_geometry(effector, geometry, label)
