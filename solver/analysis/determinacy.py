"""Determinacy of a solved pose: degrees of freedom, independent equations, and whether the
setup is under-, exactly or over-constrained, with the constraints and motions to blame.

Counted on the stacked Jacobian of :mod:`solver.analysis.conditioning` (same columns, rows, weights
and :data:`~solver.analysis.conditioning.RANK_CUTOFF`), at the pose a solve returns:

- ``dof``: coordinates the solve moves, less independent equality rows.
- ``equations``: task rows of every constraint of weight > 0 (3 for a position goal, ...).
- ``rank``: independent equations, the stacked Jacobian's rank (``rank <= min(equations, dof)``).

State, in this order:

- *over-constrained* when ``equations > rank``: some constraint rows depend on others (or on
  nothing the figure can move, as a straight arm's radial row), so at most ``rank`` of them
  can be met in general.
- *under-constrained* when ``rank < dof`` (and every row is independent): ``dof - rank``
  free motions move no constraint.
- *exactly constrained* when ``equations == rank == dof``.

An over-constrained setup may also have free motions (both are reported). Redundant
constraints, as SolveSpace names its failed ones: a greedy pass adds the constraints' row
blocks in the solve's order; a constraint whose rows raise the rank by less than their count
has dependent rows (the later of two equal goals is the one named). It is *conflicting*
when it is also not met at the pose (its residual is out of tolerance) and its dependent rows
carry part of the miss (see :data:`CONFLICT_SHARE`), *redundant* otherwise.

Free motions: a basis of the stacked Jacobian's null space (``Conditioning.null_space``)
chosen so that each moves one pivot coordinate (the largest remaining entry, greedily) and
none of the other pivots, normalised; each is named by its largest coordinates
(:func:`~solver.analysis.conditioning.weakest_named`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from .conditioning import RANK_CUTOFF, Conditioning, PoseJacobians, task_rows, weakest_named

UNDER = "under-constrained"
EXACT = "exactly constrained"
OVER = "over-constrained"
#: An unmet dependent constraint is conflicting when its rows add at least this share of its
#: own task residual to the miss no motion can change (else its miss lies in rows that a
#: motion could still reduce, and it is only redundant).
CONFLICT_SHARE = 1e-3


@dataclass(frozen=True)
class Dependent:
    """A constraint with rows that add nothing to the ones before it.

    Attributes:
        name: the constraint's name.
        rows: its task rows.
        dependent: how many of them depend on earlier rows (``1 <= dependent <= rows``).
        conflicting: it is not met at the pose (a redundant one is).
    """

    name: str
    rows: int
    dependent: int
    conflicting: bool

    @property
    def kind(self) -> str:
        """``"conflicting"`` or ``"redundant"``."""
        return "conflicting" if self.conflicting else "redundant"


@dataclass(frozen=True)
class FreeMotion:
    """One free motion of the pose: a coordinate direction that moves no constraint.

    Attributes:
        motion: (n_coords,) unit coordinate direction (radians / scene units per unit step).
        names: its largest coordinates, largest first (see the module).
    """

    motion: np.ndarray
    names: tuple[str, ...]


@dataclass(frozen=True)
class Determinacy:
    """The determinacy report of a solved pose (see the module for the definitions).

    Attributes:
        dof: degrees of freedom (coordinates moved, less independent equalities).
        rank: independent constraint equations (the stacked Jacobian's rank).
        equations: constraint equations (task rows of every constraint of weight > 0).
        state: :data:`UNDER`, :data:`EXACT` or :data:`OVER`.
        dependent: constraints with dependent rows, in the solve's order.
        free_motions: ``dof - rank`` free motions.
        coordinate_names: names of the coordinates the motions are over.
        summary: one line, e.g. "under-constrained: 7 DOF, 3 independent of 3 equations;
            4 free motions: 'j6', 'j2', 'j4', 'j3'".
    """

    dof: int
    rank: int
    equations: int
    state: str
    dependent: tuple[Dependent, ...]
    free_motions: tuple[FreeMotion, ...]
    coordinate_names: tuple[str, ...]
    summary: str

    @property
    def redundant(self) -> tuple[str, ...]:
        """Names of the dependent constraints that are met."""
        return tuple(d.name for d in self.dependent if not d.conflicting)

    @property
    def conflicting(self) -> tuple[str, ...]:
        """Names of the dependent constraints that are not met."""
        return tuple(d.name for d in self.dependent if d.conflicting)


def _left_null(matrix: np.ndarray, tol: float) -> np.ndarray:
    """(m, m - rank) orthonormal basis of the left null space of ``matrix`` (m, n)."""
    if not matrix.shape[1]:
        return np.eye(matrix.shape[0])
    u, s, _ = np.linalg.svd(matrix, full_matrices=True)
    return u[:, int(np.count_nonzero(s > tol)) :]


def _miss(matrix: np.ndarray, residual: np.ndarray, tol: float) -> float:
    """Length of ``residual`` (m,) in the left null space of ``matrix`` (m, n): the part of
    the equations' miss no motion can change."""
    return float(np.linalg.norm(_left_null(matrix, tol).T @ residual))


def _dependent(
    jacobians: PoseJacobians, unmet: tuple[str, ...]
) -> tuple[int, tuple[Dependent, ...]]:
    """(equations, dependent constraints) by the greedy pass of the module.

    A dependent constraint is conflicting when it is unmet and its dependent rows carry a
    share (above :data:`CONFLICT_SHARE` of its task residual) of the miss: the part of the
    stacked residual no motion can change grows when its rows are added.
    """
    blocks = task_rows(jacobians).stacked
    stacked = np.vstack([b.rows for b in blocks]) if blocks else np.zeros((0, 0))
    if not stacked.size:
        return stacked.shape[0], ()
    residual = np.concatenate(
        [np.sqrt(b.term.weight) * (b.basis.T @ b.term.residual) for b in blocks]
    )
    tol = RANK_CUTOFF * float(np.linalg.norm(stacked, 2))
    found: list[Dependent] = []
    rank, start, miss = 0, 0, 0.0
    for block in blocks:
        count = block.rows.shape[0]
        end = start + count
        now = int(np.count_nonzero(np.linalg.svd(stacked[:end], compute_uv=False) > tol))
        if now - rank < count:
            grown = _miss(stacked[:end], residual[:end], tol)
            share = np.sqrt(max(grown**2 - miss**2, 0.0))
            own = float(np.linalg.norm(residual[start:end]))
            conflicting = block.name in unmet and share > CONFLICT_SHARE * own
            found.append(Dependent(block.name, count, count - (now - rank), conflicting))
            miss = grown
        rank, start = now, end
    return stacked.shape[0], tuple(found)


def _free_motions(conditioning: Conditioning) -> tuple[FreeMotion, ...]:
    """The null space re-based on pivot coordinates (see the module), each named."""
    null = np.asarray(conditioning.null_space)
    k = null.shape[1]
    if not k:
        return ()
    rest = null.copy()
    pivots: list[int] = []
    for _ in range(k):
        norms = np.einsum("ij,ij->i", rest, rest)
        norms[pivots] = -1.0
        p = int(np.argmax(norms))
        pivots.append(p)
        row = rest[p] / np.linalg.norm(rest[p])
        rest = rest - np.outer(rest @ row, row)
    based = null @ np.linalg.inv(null[pivots])  # column i moves pivot i by 1, others by 0
    based /= np.linalg.norm(based, axis=0)
    motions = []
    for column in based.T:
        column.setflags(write=False)
        motions.append(FreeMotion(column, weakest_named(conditioning.coordinate_names, column)))
    return tuple(motions)


def _summary(report: Determinacy) -> str:
    line = (
        f"{report.state}: {report.dof} DOF, {report.rank} independent of "
        f"{report.equations} equations"
    )
    if report.dependent:
        line += "; " + ", ".join(
            f"{d.kind} '{d.name}'"
            + ("" if d.dependent == d.rows else f" ({d.dependent} of {d.rows} rows)")
            for d in report.dependent
        )
    if report.free_motions:
        count = len(report.free_motions)
        line += f"; {count} free motion{'s' if count > 1 else ''}: " + ", ".join(
            "+".join(f"'{n}'" for n in m.names) for m in report.free_motions
        )
    return line


def measure_determinacy(
    jacobians: PoseJacobians, conditioning: Conditioning, unmet: tuple[str, ...]
) -> Determinacy:
    """The determinacy report of a solved pose.

    Args:
        jacobians: what the solve kept of its final evaluation.
        conditioning: the read-out of the same pose (its dof, rank and null space are used).
        unmet: names of the constraints not met at the pose (conflicting vs redundant).
    """
    equations, dependent = _dependent(jacobians, unmet)
    dof, rank = conditioning.dof, conditioning.rank
    if equations > rank:
        state = OVER
    elif rank < dof:
        state = UNDER
    else:
        state = EXACT
    report = Determinacy(
        dof=dof,
        rank=rank,
        equations=equations,
        state=state,
        dependent=dependent,
        free_motions=_free_motions(conditioning),
        coordinate_names=conditioning.coordinate_names,
        summary="",
    )
    return replace(report, summary=_summary(report))
