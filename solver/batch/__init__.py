"""Many problems of one structure solved at once (issue 21): :func:`solve_batch`.

B problems that share a figure and its constraints but differ in goal targets and starts
are solved by damped least squares with every array carrying a leading batch axis:
:mod:`.model` is the batched assembler over the same :class:`~solver.model.kinematics.Kinematics`
as a single solve, :mod:`.dls` the run, :mod:`.search` the working set of first runs and
restarts, :mod:`.inputs` the targets and starts validated, :mod:`.solve` the entry points and
results, :mod:`.result` the :class:`BatchResult`.
"""

from .model import SUPPORTED_GOALS, BatchModel, check_structure
from .result import BatchResult
from .solve import BatchSolver, solve_batch

__all__ = [
    "SUPPORTED_GOALS",
    "BatchModel",
    "BatchResult",
    "BatchSolver",
    "check_structure",
    "solve_batch",
]
