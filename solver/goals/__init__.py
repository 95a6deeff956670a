"""Goals of §5.2: each a potential with an analytic residual Jacobian."""

from .aim import AimGoal
from .base import Goal, Part, Report
from .disjunction import Disjunction
from .line import LineGoal
from .orientation import OrientationGoal
from .plane import HalfSpaceGoal, PlaneGoal
from .position import PositionGoal
from .position_orientation import PositionOrientationGoal

__all__ = [
    "AimGoal",
    "Disjunction",
    "Goal",
    "HalfSpaceGoal",
    "LineGoal",
    "OrientationGoal",
    "Part",
    "PlaneGoal",
    "PositionGoal",
    "PositionOrientationGoal",
    "Report",
]
