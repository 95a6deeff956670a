"""Reach IK's solver: spatial multi-constraint inverse kinematics (Zhao & Badler 1994).

Pure numpy; never imports Blender. Build a :class:`Figure`, attach goals to
end-effectors with :class:`Constraint`, and call :func:`solve` (or keep a
:class:`Solver` for sequences); :func:`solve_batch` solves many problems of one structure
at once (:mod:`.batch`).
"""

from .analysis.independence import independent_groups
from .batch import BatchResult, BatchSolver, solve_batch
from .errors import (
    FrozenError,
    InfeasibleError,
    InvalidInputError,
    ReachError,
    UnknownNameError,
)
from .goals import (
    AimGoal,
    Disjunction,
    Goal,
    HalfSpaceGoal,
    LineGoal,
    OrientationGoal,
    PlaneGoal,
    PositionGoal,
    PositionOrientationGoal,
)
from .model.constraint import Constraint, EndEffector
from .model.figure import Figure
from .model.urdf import URDFError, load_urdf, urdf_figure
from .optimizer import Status
from .options import Options
from .result import IKResult, Residual
from .solve import Solver, solve

__all__ = [
    "AimGoal",
    "BatchResult",
    "BatchSolver",
    "Constraint",
    "Disjunction",
    "EndEffector",
    "Figure",
    "FrozenError",
    "Goal",
    "HalfSpaceGoal",
    "IKResult",
    "InfeasibleError",
    "InvalidInputError",
    "LineGoal",
    "Options",
    "OrientationGoal",
    "PlaneGoal",
    "PositionGoal",
    "PositionOrientationGoal",
    "ReachError",
    "Residual",
    "Solver",
    "Status",
    "URDFError",
    "UnknownNameError",
    "independent_groups",
    "load_urdf",
    "solve",
    "solve_batch",
    "urdf_figure",
]
