"""Powell's inexact line search (Appendix, eq. 31) with cubic Hermite interpolation.

Finds the biggest step ``0 < t <= t_max`` with

    G(y + t s) <= G(y) + delta1 t g^T s         (sufficient decrease)
    g(y + t s)^T s >= delta2 g^T s              (curvature)

accepting ``t_max`` itself when only the first holds there (the step is
capped by the nearest inactive constraint or by 1).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Protocol, TypeVar

import numpy as np

DELTA1 = 1e-4
DELTA2 = 0.5


class Evaluated(Protocol):
    """What the line search needs of an evaluation."""

    f: float
    g: np.ndarray


E = TypeVar("E", bound=Evaluated)  # the caller's evaluation type, handed back unchanged


def cubic_minimiser(a: float, fa: float, da: float, b: float, fb: float, db: float) -> float:
    """Minimiser of the cubic Hermite interpolant of (f, f') at ``a`` and ``b``.

    Falls back to the midpoint when the cubic has no interior minimum.
    """
    d1 = da + db - 3.0 * (fa - fb) / (a - b)
    disc = d1 * d1 - da * db
    if disc < 0.0 or not math.isfinite(disc):
        return 0.5 * (a + b)
    d2 = math.copysign(math.sqrt(disc), b - a)
    denom = db - da + 2.0 * d2
    if denom == 0.0:
        return 0.5 * (a + b)
    return b - (b - a) * (db + d2 - d1) / denom


def powell_search(
    evaluate: Callable[[np.ndarray], E],
    y: np.ndarray,
    s: np.ndarray,
    start: E,
    t_max: float,
    max_evaluations: int = 30,
) -> tuple[float, E | None]:
    """Step length along descent direction ``s`` from ``y``.

    Args:
        evaluate: objective/gradient at a point.
        y: (n,) current point; s: (n,) descent direction (g^T s < 0).
        start: evaluation at ``y``.
        t_max: largest admissible step (min of 1 and the nearest constraint).
    Returns:
        ``(t, evaluation at y + t s)``, or ``(0, None)`` if no step decreases G.
    """
    f0, d0 = start.f, float(start.g @ s)
    lo, f_lo, d_lo, e_lo = 0.0, f0, d0, None
    hi = f_hi = d_hi = math.nan
    t = t_max
    for _ in range(max_evaluations):
        e = evaluate(y + t * s)
        ft, dt = e.f, float(e.g @ s)
        if not math.isfinite(ft) or ft > f0 + DELTA1 * t * d0 or (e_lo is not None and ft >= f_lo):
            hi, f_hi, d_hi = t, ft, dt
        elif dt >= DELTA2 * d0 or t >= t_max:
            return t, e
        else:
            lo, f_lo, d_lo, e_lo = t, ft, dt, e
        width = hi - lo
        if width <= 1e-15 * max(1.0, t_max):
            break
        if math.isfinite(f_hi) and math.isfinite(d_hi):
            t = cubic_minimiser(lo, f_lo, d_lo, hi, f_hi, d_hi)
        else:
            t = 0.5 * (lo + hi)
        # Safeguard: stay well inside the bracket so it shrinks.
        t = min(max(t, lo + 0.1 * width), hi - 0.1 * width)
    if e_lo is not None:
        return lo, e_lo
    return 0.0, None
