"""The Appendix's optimiser: gradient projection with BFGS/DFP in an active-set frame.

:func:`minimize` runs it; :mod:`.hessian` holds the updates (30), (32), (33),
(34) and the strategies that seed ``H``; :mod:`.active_set` keeps
``(A_q^T A_q)^{-1}`` by Goldfarb's recursion.
"""

from .hessian import BFGS, HESSIANS, GaussNewtonHybrid, HessianStrategy, make_strategy
from .minimize import minimize
from .outcome import MESSAGES, Evaluation, Outcome, Status

__all__ = [
    "BFGS",
    "HESSIANS",
    "MESSAGES",
    "Evaluation",
    "GaussNewtonHybrid",
    "HessianStrategy",
    "Outcome",
    "Status",
    "make_strategy",
    "minimize",
]
