"""Exact Euclidean projection onto a polyhedron (a least-distance quadratic program).

Solves ``min |x - v|^2 / 2`` subject to ``A_i . x <= b_i`` (``== b_i`` for
equality rows) with Goldfarb and Idnani's dual active-set method (Math.
Programming 27, 1983) for the identity Hessian: start at the unconstrained
minimum ``v``, add the most violated row, and move along the null space of the
active rows while keeping every active inequality's multiplier non-negative,
dropping a row whose multiplier would turn negative. Each step is exact, so the
answer is the projection up to round-off (no tolerance is left over as with
alternating projections), and an empty feasible set is detected exactly: a
violated row that the active rows span with multipliers that cannot be relaxed.

Nearly parallel rows are the one place where round-off decides: a violated row
within :data:`SPANNED` of the active rows' span cannot be stepped on, and it then
counts as holding if its violation is within :data:`FEASIBLE_WITHIN` (a thin wedge
between two rows whose right-hand sides differ at that level is feasible); only a
larger violation is a conflict.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: Row violation (relative to ``1 + |b_i|``) treated as round-off when choosing rows.
VIOLATION_TOLERANCE = 1e-12

#: Violation (relative to ``1 + |b_i|``, unit rows) within which a row that the active rows
#: span counts as holding: feasibility is decided to this tolerance, not to round-off
#: (``solver.model.linear.FEASIBILITY_TOLERANCE``).
FEASIBLE_WITHIN = 1e-9

#: ``|P n|^2 / |n|^2`` below which a violated row counts as spanned by the active ones
#: (angle 1e-10 rad): a step along ``P n`` would be round-off. Rows at a larger angle
#: are stepped on exactly, however thin the wedge between them.
SPANNED = 1e-20


@dataclass
class Projection:
    """Result of :func:`least_distance`.

    Attributes:
        x: (n,) the nearest feasible point, or the last iterate if infeasible.
        feasible: False if the rows admit no point.
        conflict: indices of rows that together admit no point (empty if feasible).
    """

    x: np.ndarray
    feasible: bool
    conflict: list[int]


def _null_step(normals: np.ndarray, a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``z = (I - N N^+) a`` and ``r = N^+ a`` for active normals ``N`` (n, q)."""
    if normals.shape[1] == 0:
        return a.copy(), np.zeros(0)
    r, *_ = np.linalg.lstsq(normals, a, rcond=None)
    return a - normals @ r, r


def least_distance(A: np.ndarray, b: np.ndarray, equality: np.ndarray, v: np.ndarray) -> Projection:
    """Nearest point to ``v`` (n,) with ``A x <= b`` / ``A x == b`` (rows (k, n), unit or not).

    Args:
        A: (k, n) row normals.
        b: (k,) right-hand sides.
        equality: (k,) True where the row is an equality.
        v: (n,) point to project.
    """
    A = np.asarray(A, dtype=float)
    b = np.asarray(b, dtype=float)
    norms = np.linalg.norm(A, axis=1) if len(b) else np.zeros(0)
    x = np.array(v, dtype=float)
    # Goldfarb-Idnani works with rows n . x >= c; an equality takes the sign of its side.
    sign = np.ones(len(b))
    active: list[int] = []
    u = np.zeros(0)  # multipliers of the active rows (>= 0 for inequalities)
    scale = 1.0 + np.abs(b)
    pending_equalities = [i for i in range(len(b)) if equality[i]]
    tolerated: list[int] = []  # spanned rows that held within FEASIBLE_WITHIN when chosen
    for _ in range(10 * len(b) + 10):
        slack = b - A @ x  # >= 0 where a row holds
        if pending_equalities:
            p = pending_equalities.pop(0)
            if abs(slack[p]) <= VIOLATION_TOLERANCE * scale[p]:
                z, _ = _null_step(_normals(A, sign, active), A[p])
                if float(z @ z) > 1e-24 * float(A[p] @ A[p]):
                    active.append(p)  # holds already; keep it holding from now on
                    u = np.append(u, 0.0)
                continue
            sign[p] = 1.0 if slack[p] < 0 else -1.0
        else:
            violated = np.where(equality, -np.inf, -slack / np.maximum(norms, 1e-300) / scale)
            violated[active] = -np.inf
            if tolerated:  # they hold within the tolerance until later steps push them out
                within = violated[tolerated] <= FEASIBLE_WITHIN
                violated[tolerated] = np.where(within, -np.inf, violated[tolerated])
            p = int(np.argmax(violated)) if len(b) else -1
            if p < 0 or violated[p] <= VIOLATION_TOLERANCE:
                return Projection(_polish(A, b, equality, active, v, x), True, [])
            sign[p] = 1.0
        # Row p as  n . x >= c  with n = -sign A_p, c = -sign b_p.
        n_p, c_p = -sign[p] * A[p], -sign[p] * b[p]
        u_p = 0.0
        while True:
            z, r = _null_step(_normals(A, sign, active), n_p)
            droppable = [k for k, i in enumerate(active) if not equality[i] and r[k] > 0.0]
            t1, k_drop = np.inf, -1
            for k in droppable:
                if u[k] / r[k] < t1:
                    t1, k_drop = u[k] / r[k], k
            s_p = float(n_p @ x) - c_p
            zz = _curvature(z, n_p)
            t2 = -s_p / zz if np.isfinite(zz) else np.inf
            if not np.isfinite(t1) and not np.isfinite(t2):
                if -s_p <= FEASIBLE_WITHIN * scale[p] * norms[p]:
                    tolerated.append(p)  # spanned, and holds within the tolerance
                    break
                return Projection(x, False, [*active, p])
            t = min(t1, t2)
            if np.isfinite(t2):
                x = x + t * z
            u = u - t * r
            u_p += t
            if t2 <= t1:
                active.append(p)
                u = np.append(u, u_p)
                break
            active.pop(k_drop)
            u = np.delete(u, k_drop)
    return Projection(x, False, active)


def _curvature(z: np.ndarray, n_p: np.ndarray) -> float:
    """``z . n_p = |z|^2`` for the step ``z = P n_p``, or inf if row ``n_p`` is spanned.

    Beyond the old threshold (``z . n_p > 1e-14 |n_p|^2``) the product is used as it is.
    Below it, ``z`` is tiny and its round-off component along ``n_p`` (~1e-16) swamps
    ``z . n_p``, so the exact equal ``z . z`` is used down to :data:`SPANNED`: nearly
    parallel rows are stepped on instead of being called a conflict.
    """
    nn = float(n_p @ n_p)
    zz = float(z @ n_p)
    if zz > 1e-14 * nn:
        return zz
    zz = float(z @ z)
    return zz if zz > SPANNED * nn else np.inf


def _violation(A: np.ndarray, b: np.ndarray, equality: np.ndarray, x: np.ndarray) -> float:
    slack = A @ x - b
    return float(np.where(equality, np.abs(slack), np.maximum(slack, 0.0)).max(initial=0.0))


def _polish(
    A: np.ndarray,
    b: np.ndarray,
    equality: np.ndarray,
    active: list[int],
    v: np.ndarray,
    x: np.ndarray,
) -> np.ndarray:
    """``v``'s projection onto the active rows taken as equalities, in one solve.

    At the answer every active row holds with equality, so ``x = v + d`` with
    ``d`` the least-norm solution of ``A_act d = b_act - A_act v``; this removes
    the round-off the individual steps accumulated. Kept only if no worse.
    """
    if not active:
        return x
    rows = A[active]
    d, *_ = np.linalg.lstsq(rows, b[active] - rows @ v, rcond=None)
    polished = v + d
    before = _violation(A, b, equality, x)
    return polished if _violation(A, b, equality, polished) <= before else x


def _normals(A: np.ndarray, sign: np.ndarray, active: list[int]) -> np.ndarray:
    """Active rows as ``n_i = -sign_i A_i`` stacked in columns (n, q)."""
    return (-sign[active, None] * A[active]).T.reshape(A.shape[1], len(active))
