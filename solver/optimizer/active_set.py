"""Active rows ``A_q`` and ``(A_q^T A_q)^{-1}`` kept by Goldfarb's recursion.

Goldfarb (1969) updates ``M = (A_q^T A_q)^{-1}`` when a row enters or leaves
instead of inverting again (Appendix, last paragraph): O(n q + q^2) per change,
so with ``q = O(n)`` rows an iteration stays O(n^2). No matrix is inverted.
"""

from __future__ import annotations

import numpy as np

from ..model.linear import LinearSystem

#: ``|P a|^2`` below which a unit row counts as dependent on the active rows.
DEPENDENT = 1e-8


class ActiveSet:
    """The active rows of ``system`` as columns ``N`` (n, q) and ``M`` (q, q).

    Attributes:
        rows: indices into ``system`` of the active rows, in the order they entered.
        N: (n, q) the active rows as columns (``A_q`` of the Appendix).
        M: (q, q) ``(A_q^T A_q)^{-1}``.
    """

    def __init__(self, system: LinearSystem) -> None:
        self.system = system
        n = system.A.shape[1]
        self.rows: list[int] = []
        self.N = np.zeros((n, 0))
        self.M = np.zeros((0, 0))

    def project(self, v: np.ndarray) -> np.ndarray:
        """``P v`` (n,) with ``P = I - A_q (A_q^T A_q)^{-1} A_q^T``."""
        if not self.rows:
            return v.copy()
        return v - self.N @ (self.M @ (self.N.T @ v))

    def multipliers(self, g: np.ndarray) -> np.ndarray:
        """``alpha = (A_q^T A_q)^{-1} A_q^T g`` (q,) of Step 2."""
        return self.M @ (self.N.T @ g) if self.rows else np.zeros(0)

    def add(self, i: int) -> None:
        """Append row ``i``: bordered-inverse update of ``M``.

        With ``w = M A_q^T a`` and ``c = |P a|^2 = a^T a - a^T A_q w``::

            M' = [[M + w w^T / c, -w / c], [-w^T / c, 1 / c]]

        Raises:
            ValueError: if the row depends on the active rows (``c`` below
                :data:`DEPENDENT`); callers check :meth:`is_dependent` first.
        """
        a = self.system.A[i]
        w = self.M @ (self.N.T @ a)
        r = a - self.N @ w  # P a; |P a|^2 = a^T a - u^T w without the cancellation
        c = float(r @ r)
        if c < DEPENDENT:
            raise ValueError(f"row {i} depends on the active rows (|Pa|^2 = {c:.3g})")
        q = len(self.rows)
        m = np.empty((q + 1, q + 1))
        m[:q, :q] = self.M + w[:, None] * w / c  # w w^T / c
        m[:q, q] = m[q, :q] = -w / c
        m[q, q] = 1.0 / c
        self.M = m
        self.N = np.concatenate((self.N, a[:, None]), axis=1)  # a as a new column
        self.rows.append(i)

    def remove(self, k: int) -> int:
        """Drop the ``k``-th active row (Goldfarb's downdate); returns its index.

        Deleting row/column ``k`` of ``(A^T A)^{-1}`` gives, by the Schur
        complement, ``M' = M_rest - M[rest, k] M[k, rest] / M[k, k]``.
        """
        keep = [j for j in range(len(self.rows)) if j != k]
        column = self.M[keep, k]
        self.M = self.M[np.ix_(keep, keep)] - np.outer(column, column) / self.M[k, k]
        self.N = self.N[:, keep]
        return self.rows.pop(k)

    def residual(self, i: int) -> np.ndarray:
        """``P a_i`` (n,): the part of row ``i`` outside the active rows' span."""
        return self.project(self.system.A[i])

    def is_dependent(self, i: int) -> bool:
        """Whether row ``i`` lies (numerically) in the span of the active rows."""
        r = self.residual(i)
        return float(r @ r) < DEPENDENT
