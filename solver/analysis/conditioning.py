"""Conditioning of a solved pose: singular values, ``kappa`` (eq. 9), rank, redundancy.

Maciejewski's eq. 9 measures how far a Jacobian is from a singularity by its condition
number ``kappa = sigma_max / sigma_min``. :func:`measure_conditioning` computes it at the
pose a solve returns (from the Jacobians of its final evaluation, so every ``method=`` gets
the same read-out), for each enabled constraint and for all of them stacked.

What the Jacobians are measured on:

- Columns: the figure's coordinates (``IKResult.x``) that the solve moves (every
  coordinate of an enabled constraint's chain with rigidity < 1), restricted to the motions
  the linear equalities allow. Rigidity and the solver's length scaling are internal to
  the optimiser and do not enter. Units: per radian for revolute coordinates, per scene
  unit for prismatic ones (a figure with both has a ``kappa`` that depends on the length
  unit).
- Rows: the goal's residual (the objective is its squared length, §5.2) expressed in an
  orthonormal basis of its *task space*, the residual directions that moving the
  effector can produce: 3 for a position, 3 for an orientation with both axes (2 with
  one), 6 for a position and orientation, 2 for an aim (3 while it is off by more than
  about 0.05 degrees: the length of its residual varies then) or a line, 1 for a plane, 0
  for a satisfied half-space (directions weaker than :data:`TASK_CUTOFF` of the strongest
  are left out). Distance rows are in scene units; angle rows are radians times
  the goal's ``c_d`` (eq. 8: the characteristic length ``L``, or what ``degrees`` gives),
  the weighting the goals already use.
- Stacked: each constraint's rows times ``sqrt(weight)`` (constraints of weight 0 left
  out), the Jacobian whose Gauss-Newton matrix the objective's curvature is.

A Jacobian with ``d = min(task rows, DOF)`` expected singular values keeps those ``d``.
Rank: the number of singular values above :data:`RANK_CUTOFF` times the largest (the
Jacobians are exact to about 1e-15 relative, so structurally zero directions fall far
below it, while a pose that far from straight is as singular as the optimiser can tell).
``kappa`` is infinite when the rank is below ``d``, 1 when ``d`` is 0 (nothing to
condition). A pose is *ill-conditioned* when the stacked ``kappa`` exceeds
:data:`ILL_CONDITIONED`.

Degree of redundancy: DOF (moved coordinates less independent equalities) minus the rank
of the stacked Jacobian. Its null space, :attr:`Conditioning.null_space` (n_coords, k),
holds orthonormal coordinate directions that move no goal to first order: a script adds a
secondary goal by stepping ``x + N @ c`` for any ``c`` (k,), e.g. ``c = N.T @ grad`` of its
own objective, and the constraints change only to second order in ``|c|``. Joint limits
are not part of it: project a step that leaves them (``solver.model.figure.project_feasible``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..assembly.problem import TermValue
from ..errors import UnknownNameError
from ..goals.base import Blocks, Part

#: A singular value at or below this share of the largest counts as zero (rank decision).
RANK_CUTOFF = 1e-8
#: A residual direction weaker than this share of the strongest is not part of a goal's task
#: space: an aim goal within about 0.05 degrees of its target has the two directions of an aim
#: (the length of ``u - x`` only varies while it is off).
TASK_CUTOFF = 1e-3
#: ``kappa`` above this calls a pose ill-conditioned (about 0.3 degrees of elbow bend on a
#: two-bone arm of equal lengths).
ILL_CONDITIONED = 1e3
#: The weakest joints named are the fewest whose shares of the weakest motion reach this.
NAMED_SHARE = 0.5
#: At most this many joints are named in a summary.
NAMED_JOINTS = 3


@dataclass(frozen=True)
class PoseJacobians:
    """The constraint Jacobians a solve leaves for the read-out (taken from its final
    evaluation; nothing is computed until :func:`measure_conditioning` reads them).

    Attributes:
        terms: per enabled constraint, its state at the result pose (residual (m,),
            Jacobian (m, n) in the problem's variables, derivative blocks, weight).
        names: the enabled constraints' names, matching ``terms``.
        variables: (n,) indices of the coordinates the solve moves.
        scale: (n,) ``coords[variables] = scale * y`` (``1 - rigidity``).
        equalities: (e, n) the equality rows over the variables ``y``.
        coordinate_names: names of every coordinate (n_coords).
    """

    terms: tuple[TermValue, ...]
    names: tuple[str, ...]
    variables: np.ndarray
    scale: np.ndarray
    equalities: np.ndarray
    coordinate_names: tuple[str, ...]


@dataclass(frozen=True)
class JacobianConditioning:
    """Singular values of one Jacobian (a constraint's or the stacked one).

    Attributes:
        name: the constraint's name (``"stacked"`` for all of them together).
        singular_values: (d,) the ``d = min(task_rows, DOF)`` largest singular values,
            descending (scene units per radian for revolute coordinates).
        condition: ``kappa = sigma_max / sigma_min`` over them (eq. 9); inf when
            ``rank < d``, 1 when ``d`` is 0.
        rank: singular values above :data:`RANK_CUTOFF` times the largest.
        task_rows: independent residual directions the goal(s) can have (see the module).
    """

    name: str
    singular_values: np.ndarray
    condition: float
    rank: int
    task_rows: int

    @property
    def singular(self) -> bool:
        """The rank is below the number of expected singular values (``kappa`` is inf)."""
        return self.rank < len(self.singular_values)

    @property
    def ill_conditioned(self) -> bool:
        """``kappa`` above :data:`ILL_CONDITIONED` (singular included)."""
        return self.condition > ILL_CONDITIONED

    @property
    def state(self) -> str:
        """In words: "singular", "ill-conditioned", "well-conditioned", or "unconstrained"
        when there is nothing to condition (no expected singular value)."""
        if not len(self.singular_values):
            return "unconstrained"
        if self.singular:
            return "singular"
        return "ill-conditioned" if self.ill_conditioned else "well-conditioned"


@dataclass(frozen=True)
class Conditioning:
    """The conditioning read-out of a solved pose (see the module for units and cut-offs).

    Attributes:
        constraints: per enabled constraint, in the solve's order, its own (unweighted)
            Jacobian's read-out; :meth:`constraint` finds one by name.
        stacked: the read-out of every constraint of weight > 0 stacked (weighted).
        dof: coordinates the solve moves, less independent equality rows.
        redundancy: ``dof - stacked.rank``: the degree of redundancy.
        null_space: (n_coords, redundancy) orthonormal directions in the figure's
            coordinates that change no constraint to first order (zero rows for the
            coordinates the solve does not move).
        coordinate_names: the names of the rows of ``null_space`` and ``weakest_motion``.
        weakest_motion: (n_coords,) unit coordinate motion of ``sigma_min`` (its right
            singular vector), or None when the stacked Jacobian is singular (the direction
            is then not unique) or empty.
        weakest_joints: the coordinates with the largest shares (squared entries) of
            ``weakest_motion``: the fewest reaching :data:`NAMED_SHARE`, at most
            :data:`NAMED_JOINTS`.
        weakest_constraint: the constraint with the largest share of the left singular
            vector of ``sigma_min`` (None when there is none).
        weakest_direction: (3,) world unit direction that constraint's effector point
            barely (or, when singular, cannot) move along, or None when the weak
            direction is mostly an orientation.
        summary: one line in words, e.g. "ill-conditioned: kappa = 3.2e4; weakest
            direction mostly joint 'elbow'; 'reach' barely moves along (1.00, 0.00, 0.00)".
    """

    constraints: tuple[JacobianConditioning, ...]
    stacked: JacobianConditioning
    dof: int
    redundancy: int
    null_space: np.ndarray
    coordinate_names: tuple[str, ...]
    weakest_motion: np.ndarray | None
    weakest_joints: tuple[str, ...]
    weakest_constraint: str | None
    weakest_direction: np.ndarray | None
    summary: str

    @property
    def condition(self) -> float:
        """The stacked ``kappa``."""
        return self.stacked.condition

    @property
    def rank(self) -> int:
        """Independent constraint rows: the stacked Jacobian's rank."""
        return self.stacked.rank

    @property
    def ill_conditioned(self) -> bool:
        """The stacked ``kappa`` is above :data:`ILL_CONDITIONED`."""
        return self.stacked.ill_conditioned

    def constraint(self, name: str) -> JacobianConditioning:
        """The read-out of the (first) enabled constraint called ``name``.

        Raises:
            UnknownNameError: no enabled constraint has that name.
        """
        for entry in self.constraints:
            if entry.name == name:
                return entry
        raise UnknownNameError(f"no enabled constraint is called {name!r}")


def _skew(v: np.ndarray) -> np.ndarray:
    """``[v]x`` (3, 3): ``[v]x w = v x w``."""
    return np.array([[0.0, -v[2], v[1]], [v[2], 0.0, -v[0]], [-v[1], v[0], 0.0]])


def task_map(blocks: Blocks, effector: dict[Part, np.ndarray], rows: int) -> np.ndarray:
    """(rows, 6) derivative of a residual by the effector's motion ``(v, w)``.

    The effector point moves by ``v``, its unit axes by ``w x axis``; goal parts (a carried
    goal's) are held.
    """
    out = np.zeros((rows, 6))
    for key, block in blocks:
        if key is Part.POINT:
            out[:, :3] += block
        elif key is Part.X or key is Part.Y:
            out[:, 3:] -= block @ _skew(effector[key])
    return out


def _basis(matrix: np.ndarray) -> np.ndarray:
    """(m, r) orthonormal basis of the column space of ``matrix`` (m, k), rank by
    :data:`TASK_CUTOFF`."""
    if not matrix.size:
        return np.zeros((matrix.shape[0], 0))
    u, s, _ = np.linalg.svd(matrix, full_matrices=False)
    if not s.size or s[0] <= 0.0:
        return np.zeros((matrix.shape[0], 0))
    return u[:, : int(np.count_nonzero(s > TASK_CUTOFF * s[0]))]


def _null_basis(rows: np.ndarray, n: int) -> np.ndarray | None:
    """(n, n - rank) orthonormal basis of the null space of ``rows`` (e, n); None if e = 0."""
    if not len(rows):
        return None
    _, s, vt = np.linalg.svd(rows, full_matrices=True)
    rank = int(np.count_nonzero(s > RANK_CUTOFF * s[0])) if s.size and s[0] > 0.0 else 0
    return vt[rank:].T


def _readout(name: str, matrix: np.ndarray, task_rows: int) -> JacobianConditioning:
    """The read-out of ``matrix`` (task_rows, dof), already in its task basis."""
    values = np.linalg.svd(matrix, compute_uv=False) if matrix.size else np.zeros(0)
    rank = int(np.count_nonzero(values > RANK_CUTOFF * values[0])) if values.size else 0
    d = min(task_rows, matrix.shape[1])
    kept = values[:d].copy()
    if d == 0:
        condition = 1.0
    elif rank < d:
        condition = math.inf
    else:
        condition = float(kept[0] / kept[-1])
    kept.setflags(write=False)
    return JacobianConditioning(name, kept, condition, rank, task_rows)


def kappa_text(value: float) -> str:
    """``3.2e4`` for large values, ``12.5`` for small ones, ``inf``."""
    if not math.isfinite(value):
        return "inf"
    if value < 1e3:
        return f"{value:.3g}"
    mantissa, exponent = f"{value:.1e}".split("e")
    return f"{mantissa}e{int(exponent)}"


def _vector(v: np.ndarray) -> str:
    """``(0.71, 0.00, -0.71)``: two decimals, no negative zero."""
    return "(" + ", ".join(f"{c:.2f}" for c in np.round(v, 2) + 0.0) + ")"


def weakest_named(names: tuple[str, ...], motion: np.ndarray) -> tuple[str, ...]:
    """The fewest ``names`` whose shares ``motion**2`` reach :data:`NAMED_SHARE` (at most
    :data:`NAMED_JOINTS`), largest first."""
    shares = motion * motion
    total = float(shares.sum())
    if total <= 0.0:
        return ()
    named: list[str] = []
    reached = 0.0
    for i in np.argsort(-shares, kind="stable")[:NAMED_JOINTS]:
        named.append(names[i])
        reached += float(shares[i]) / total
        if reached >= NAMED_SHARE:
            break
    return tuple(named)


def _summary(
    stacked: JacobianConditioning,
    joints: tuple[str, ...],
    constraint: str | None,
    direction: np.ndarray | None,
) -> str:
    state = stacked.state
    if state == "unconstrained":
        return "nothing to condition: no goal constrains the pose here"
    line = f"{state}: kappa = {kappa_text(stacked.condition)}"
    if state == "singular":
        line = f"singular (rank {stacked.rank} of {len(stacked.singular_values)}): kappa = inf"
    elif state == "well-conditioned":
        return line
    verb = "cannot move" if state == "singular" else "barely moves"
    if joints:
        which = "joint" if len(joints) == 1 else "joints"
        line += f"; weakest direction mostly {which} " + ", ".join(f"'{j}'" for j in joints)
    if constraint is not None and direction is not None:
        line += f"; '{constraint}' {verb} along {_vector(direction)}"
    return line


def _effector_direction(term: TermValue, u: np.ndarray) -> np.ndarray | None:
    """World unit direction (3,) of the effector point's motion that best makes the residual
    change ``u`` (m,), or None when ``u`` lies mostly outside what moving the point does."""
    point = sum((b for key, b in term.blocks if key is Part.POINT), np.zeros((len(u), 3)))
    move, *_ = np.linalg.lstsq(point, u, rcond=None)
    reached = point @ move
    if float(reached @ reached) < NAMED_SHARE * float(u @ u) or not np.any(move):
        return None
    return move / np.linalg.norm(move)


@dataclass(frozen=True)
class ConstraintRows:
    """One constraint's weighted rows in the stacked Jacobian."""

    name: str
    term: TermValue
    basis: np.ndarray  # (m, r) its task space
    rows: np.ndarray  # (r, dof) sqrt(weight) basis^T J


def _weakest_effector(
    rows: list[ConstraintRows], weak: np.ndarray
) -> tuple[str | None, np.ndarray | None]:
    """The constraint with the largest share of the stacked left singular vector ``weak``
    (sum of r), and the world direction its effector point barely moves along."""
    start, best, best_share = 0, None, 0.0
    for entry in rows:
        part = weak[start : start + entry.basis.shape[1]]
        start += entry.basis.shape[1]
        share = float(part @ part)
        if share > best_share:
            best, best_share = (entry, entry.basis @ part), share
    if best is None:
        return None, None
    return best[0].name, _effector_direction(best[0].term, best[1])


@dataclass(frozen=True)
class TaskRows:
    """The Jacobians of a pose in the coordinates the solve moves, in task bases.

    Attributes:
        dof: coordinates the solve moves, less independent equality rows.
        moves: (n_variables, dof) orthonormal motions the equalities allow, or None when
            there are no equalities (every variable moves freely).
        entries: per enabled constraint, its own (unweighted) Jacobian's read-out.
        stacked: per constraint of weight > 0, in order, its weighted task rows (r, dof).
    """

    dof: int
    moves: np.ndarray | None
    entries: tuple[JacobianConditioning, ...]
    stacked: tuple[ConstraintRows, ...]


def task_rows(jacobians: PoseJacobians) -> TaskRows:
    """Each enabled constraint's Jacobian in its task basis, over the motions the solve makes
    (see the module for rows, columns and weighting)."""
    inverse_scale = 1.0 / jacobians.scale
    moves = _null_basis(jacobians.equalities * inverse_scale, len(jacobians.variables))
    dof = len(jacobians.variables) if moves is None else moves.shape[1]
    entries = []
    stacked_rows = []
    for name, term in zip(jacobians.names, jacobians.terms, strict=True):
        jacobian = term.jacobian * inverse_scale  # (m, n) in coordinates
        if moves is not None:
            jacobian = jacobian @ moves
        basis = _basis(task_map(term.blocks, term.effector, len(term.residual)))
        task = basis.T @ jacobian
        entries.append(_readout(name, task, basis.shape[1]))
        if term.weight > 0.0:
            stacked_rows.append(ConstraintRows(name, term, basis, math.sqrt(term.weight) * task))
    return TaskRows(dof, moves, tuple(entries), tuple(stacked_rows))


def measure_conditioning(jacobians: PoseJacobians) -> Conditioning:
    """The conditioning read-out of a solved pose (see the module for what is measured).

    Args:
        jacobians: what the solve kept of its final evaluation.
    """
    n_coords = len(jacobians.coordinate_names)
    rows = task_rows(jacobians)
    moves, dof, entries, stacked_rows = rows.moves, rows.dof, rows.entries, list(rows.stacked)

    def in_coordinates(v: np.ndarray) -> np.ndarray:
        """(n_coords, ...) of a motion (dof, ...) within the equalities."""
        out = np.zeros((n_coords, *v.shape[1:]))
        out[jacobians.variables] = v if moves is None else moves @ v
        return out

    task = np.vstack([r.rows for r in stacked_rows]) if stacked_rows else np.zeros((0, dof))
    stacked = _readout("stacked", task, task.shape[0])
    weakest_motion, joints, constraint, direction = None, (), None, None
    u, vt = np.zeros((task.shape[0], 0)), np.eye(dof)  # no rows: every motion is free
    if task.size:
        u, _, vt = np.linalg.svd(task, full_matrices=True)
    null_space = in_coordinates(vt[stacked.rank :].T)
    d = len(stacked.singular_values)
    if d:
        if not stacked.singular:
            weakest_motion = in_coordinates(vt[d - 1])
            joints = weakest_named(jacobians.coordinate_names, weakest_motion)
        constraint, direction = _weakest_effector(stacked_rows, u[:, d - 1])
    null_space.setflags(write=False)
    if weakest_motion is not None:
        weakest_motion.setflags(write=False)
    return Conditioning(
        constraints=tuple(entries),
        stacked=stacked,
        dof=dof,
        redundancy=dof - stacked.rank,
        null_space=null_space,
        coordinate_names=jacobians.coordinate_names,
        weakest_motion=weakest_motion,
        weakest_joints=joints,
        weakest_constraint=constraint,
        weakest_direction=direction,
        summary=_summary(stacked, joints, constraint, direction),
    )
