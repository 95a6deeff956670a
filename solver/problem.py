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

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from .constraint import Constraint
from .errors import InvalidInputError, UnknownNameError
from .figure import Figure
from .goals.base import Blocks, Goal, Report
from .kinematics import Anchors, Frames, Kinematics, index_or_slice
from .linear import LinearSystem, UnitRows, coordinate_system


@dataclass
class _Part:
    """A carried goal part: a point or direction fixed to a segment. Its local vector is the
    goal's current one (read at every evaluation, so a retargeted goal is followed)."""

    segment: int  # -1 for a world-fixed goal part
    is_point: bool
    joints: np.ndarray | slice  # active joints that move it (into the figure's joints)
    coupling: np.ndarray  # (moving joints, n) rows of the scaled coupling for those joints
    anchors: Anchors | None = None  # those of its joints above a non-inheriting segment


@dataclass
class _Member:
    goal: Goal
    parts: dict[str, _Part]  # goal parts carried by a segment, keyed "goal.<name>"
    #: Whether the goal's class has a :meth:`Goal.check_geometry` of its own (the base one
    #: accepts everything, so :meth:`Problem.check_goals` skips the goal).
    checked: bool = field(init=False)

    def __post_init__(self) -> None:
        self.checked = type(self.goal).check_geometry is not Goal.check_geometry


@dataclass
class _Term:
    """One constraint: its effector parts (stacked for one batched Jacobian) and goals."""

    constraint: Constraint
    members: list[_Member]
    segment: int
    names: list[str]  # effector parts used, "point" first if present
    local: np.ndarray  # (k, 3) their local vectors
    has_point: bool
    joints: np.ndarray | slice  # active joints moving the effector segment
    coupling: np.ndarray  # (moving joints, n)
    slots: dict[str, int]  # column offset of each effector part in a block row
    anchors: Anchors | None = None  # moving joints above a non-inheriting segment
    last_blocks: object = None  # the goal's last block list and its stacked form
    last_stacked: np.ndarray | None = None

    def stacked_blocks(self, blocks: list, rows: int) -> np.ndarray:
        """The effector blocks of a residual side by side, (m, 3k) (cached per list)."""
        if blocks is self.last_blocks:
            return self.last_stacked  # type: ignore[return-value]
        out = np.zeros((rows, 3 * len(self.names)))
        for key, block in blocks:
            slot = self.slots.get(key)
            if slot is not None:
                out[:, slot : slot + 3] += block
        self.last_blocks, self.last_stacked = blocks, out
        return out


@dataclass
class TermValue:
    """One constraint's state at one point: residual, Jacobian, world parts."""

    weight: float
    residual: np.ndarray  # (m,)
    jacobian: np.ndarray  # (m, n)
    goal: Goal
    effector: dict[str, np.ndarray]
    geometry: dict[str, np.ndarray]
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
        """``F`` (m, n): rows ``sqrt(2 w_i) J_i`` stacked, so ``F^T F`` = :meth:`gauss_newton`."""
        rows = [math.sqrt(2.0 * t.weight) * t.jacobian for t in self.terms if t.weight > 0.0]
        return np.vstack(rows) if rows else np.zeros((0, len(self.y)))

    def gauss_newton(self) -> np.ndarray:
        """``2 sum w_i J_i^T J_i`` (n, n): the Gauss-Newton curvature of G (cached)."""
        if self._gauss_newton is None:
            stacked = self.gauss_newton_factor()
            self._gauss_newton = stacked.T @ stacked
        return self._gauss_newton


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
        self._last_frames: tuple[int, np.ndarray, Frames] | None = None
        self.version = figure.version
        chains = np.zeros(len(figure.joints), dtype=bool)
        for c in self.constraints:
            chains |= self.chain(c)
        coupling = figure.coupling
        movable = np.abs(coupling[chains]).sum(axis=0) > 0.0
        rigidity = figure.coordinate_rigidity()
        self.variables = np.flatnonzero(movable & (rigidity < 1.0))
        self.fixed = np.flatnonzero(~(movable & (rigidity < 1.0)))
        self.scale = 1.0 - rigidity[self.variables]
        self.n = len(self.variables)
        self.coupling = coupling[:, self.variables] * self.scale  # (n_joints, n)
        self.active_joints = np.flatnonzero(np.abs(self.coupling).sum(axis=1) > 0.0)
        self.base = np.array(coords, dtype=float)
        coordinate_rows = coordinate_system(figure)
        self._rows = coordinate_rows
        self._unit_rows: UnitRows | None = None
        self.system = self._variable_system()
        self._q_fixed = figure.coupling[:, self.fixed] @ self.base[self.fixed]
        self.terms = [self._term(c) for c in self.constraints]
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

    def _moving_joints(self, segment: int) -> np.ndarray:
        """Active joints on the path from the root to ``segment``."""
        return self.active_joints[self.kinematics.ancestors[segment, self.active_joints]]

    def _part(self, segment: int, is_point: bool) -> _Part:
        if segment < 0:
            return _Part(-1, is_point, np.zeros(0, int), np.zeros((0, self.n)))
        joints = self._moving_joints(segment)
        return _Part(
            segment,
            is_point,
            index_or_slice(joints),
            self.coupling[joints],
            self.kinematics.anchors(segment, joints),
        )

    def _term(self, c: Constraint) -> _Term:
        seg = self.figure.segment_index(c.effector.segment)
        local = c.effector.parts()
        needs = {p for m in c.goal.members() for p in m.needs}
        names = [p for p in ("point", "x", "y") if p in needs]
        members = []
        for goal in c.goal.members():
            parts = {}
            if goal.carrier is not None:
                carrier = self.figure.segment_index(goal.carrier)
                for name in goal.geometry():
                    parts[f"goal.{name}"] = self._part(carrier, name in goal.point_parts)
            members.append(_Member(goal, parts))
        joints = self._moving_joints(seg)
        return _Term(
            constraint=c,
            members=members,
            segment=seg,
            names=names,
            local=np.array([local[p] for p in names], dtype=float).reshape(-1, 3),
            has_point="point" in names,
            joints=index_or_slice(joints),
            coupling=self.coupling[joints],
            slots={p: 3 * k for k, p in enumerate(names)},
            anchors=self.kinematics.anchors(seg, joints),
        )

    def _variable_system(self) -> LinearSystem:
        """The rows in ``y`` (unit length) at the current ``base``.

        ``A`` in ``y`` is fixed for this problem, so it is normalised once; a rebase
        recomputes only the right-hand sides.
        """
        rows = self._rows
        if self._unit_rows is None:
            a = rows.A[:, self.variables] * self.scale
            self._unit_rows = UnitRows(LinearSystem(a, rows.b, rows.equality, rows.labels))
        return self._unit_rows.system(rows.b - rows.A[:, self.fixed] @ self.base[self.fixed])

    def rebase(self, coords: np.ndarray) -> None:
        """Hold non-variable coordinates at ``coords`` (n_coords,) from now on."""
        self.base = np.array(coords, dtype=float)
        self.system = self._variable_system()
        self._q_fixed = self.figure.coupling[:, self.fixed] @ self.base[self.fixed]

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
        q = self._q_fixed + self.coupling @ y
        key = self.figure.rest_version
        last = self._last_frames
        if last is not None and last[0] == key and np.array_equal(last[1], q):
            return last[2]
        frames = self.kinematics.forward(q)
        self._last_frames = (key, q, frames)
        return frames

    def evaluate(self, y: np.ndarray) -> Evaluation:
        """Objective, gradient and per-constraint state at ``y`` (n,).

        One forward pass; per constraint one batched Jacobian of its effector
        parts. Reports in user units are left to :attr:`Evaluation.reports`.
        """
        self.nfev += 1
        frames = self.frames(y)
        f = 0.0
        g = None
        values = []
        for term in self.terms:
            value = self._term_value(term, frames)
            values.append(value)
            if value.weight > 0.0:
                res = value.residual
                f += value.weight * float(res @ res)
                step = (2.0 * value.weight) * (res @ value.jacobian)
                g = step if g is None else g + step
        if g is None:
            g = np.zeros(self.n)
        return Evaluation(np.array(y, dtype=float), f, g, values, self)

    def value(self, y: np.ndarray) -> float:
        """Objective ``G(y)``."""
        return self.evaluate(y).f

    def value_and_gradient(self, y: np.ndarray) -> tuple[float, np.ndarray]:
        """Objective and gradient (n,) at ``y``."""
        e = self.evaluate(y)
        return e.f, e.g

    def _world(self, part: _Part, local: np.ndarray, frames: Frames) -> np.ndarray:
        """World vector (3,) of a carried part whose segment-local vector is ``local``."""
        rot = frames.rotations[part.segment]
        if part.is_point:
            return frames.origins[part.segment] + rot @ local
        return rot @ local

    def _effector(self, term: _Term, frames: Frames) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """World effector parts (k, 3) and the same keyed by part name."""
        world = term.local @ frames.rotations[term.segment].T
        if term.has_point:
            world[0] += frames.origins[term.segment]
        return world, dict(zip(term.names, world, strict=True))

    def _term_value(self, term: _Term, frames: Frames) -> TermValue:
        world, effector = self._effector(term, frames)
        best = None
        for member in term.members:
            geometry = member.goal.geometry()
            for key, part in member.parts.items():
                geometry[key[5:]] = self._world(part, geometry[key[5:]], frames)
            res, blocks = member.goal.residual(effector, geometry)
            if len(term.members) == 1:
                best = (0.0, member, geometry, res, blocks)
                break
            size = float(res @ res)
            if best is None or size < best[0]:
                best = (size, member, geometry, res, blocks)
        assert best is not None
        _, member, geometry, res, blocks = best
        columns = Kinematics.columns(
            frames, world, term.has_point, term.joints, term.coupling, term.anchors
        )
        jac = term.stacked_blocks(blocks, len(res)) @ columns.reshape(3 * len(world), self.n)
        for key, block in blocks:
            part = member.parts.get(key)
            if part is not None and part.coupling.shape[0]:
                vector = geometry[key[5:]]
                cols = Kinematics.columns(
                    frames, vector[None], part.is_point, part.joints, part.coupling, part.anchors
                )
                jac = jac + block @ cols[0]
        return TermValue(term.constraint.weight, res, jac, member.goal, effector, geometry, blocks)

    def check_goals(self, y: np.ndarray) -> None:
        """Raise :class:`InvalidInputError` where a goal is undefined at ``y``.

        Only goals with a check of their own (:attr:`_Member.checked`) are looked at: the
        others could never raise, and their world geometry costs as much as the check.
        """
        frames = None
        for term in self.terms:
            checked = [member for member in term.members if member.checked]
            if not checked:
                continue
            frames = self.frames(y) if frames is None else frames
            _, effector = self._effector(term, frames)
            for member in checked:
                geometry = member.goal.geometry()
                for key, part in member.parts.items():
                    geometry[key[5:]] = self._world(part, geometry[key[5:]], frames)
                label = f"constraint {term.constraint.name!r}"
                member.goal.check_geometry(effector, geometry, label)
