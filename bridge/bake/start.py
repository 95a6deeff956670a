"""Where a baked frame's solve starts: the last frame's motion continued.

A bake warm-starts every frame from the previous frame's solution (:mod:`.baking`). Targets
move smoothly over a shot, so the previous solution plus the previous frame's motion (a
linear extrapolation of the last two frames) is nearer the new solution, and the solver
needs fewer iterations per frame.

The motion of a frame is its solution minus the plain start it was solved from, in solver
coordinates (radians, scene units). It is added to the next plain start only on the
coordinates whose parametrisation held in between: where the plain start equals the last
solution (to :data:`SAME`). A ``LOCAL`` bone relinearised around its pose, an Euler bone read
on another branch, or a pole chain put at Blender's IK start (:mod:`..solve.pole_start`) starts
plain. A frame the solver did not solve passes no motion on, and neither does the first
frame (its "motion" is the jump from the rest pose).

Everything here is a function of the bake's earlier frames, so a bake stays deterministic.
"""

from __future__ import annotations

import numpy as np

#: Largest difference (solver coordinates) between the plain start and the last solution at
#: which a coordinate still counts as unchanged: round-trips of the pose state through its
#: channels differ by round-off only.
SAME = 1e-9


class MotionStart:
    """Start coordinates that continue the last solved frame's motion.

    Use per frame: ``x0 = starts.start(plain)``, solve from ``x0``, then
    ``starts.record(plain, result.x, solved)``.
    """

    def __init__(self) -> None:
        self.last: np.ndarray | None = None  # (n,) the last frame's solution
        self.motion: np.ndarray | None = None  # (n,) its solution minus its plain start

    def start(self, plain: np.ndarray) -> np.ndarray:
        """The start ``(n,)`` for a frame whose plain start (the last solution as the rig
        now reads it) is ``plain`` ``(n,)``: plus the last motion where it applies."""
        plain = np.asarray(plain, dtype=float)
        if self.last is None or self.motion is None or self.last.shape != plain.shape:
            return plain
        held = np.abs(plain - self.last) <= SAME
        return plain + np.where(held, self.motion, 0.0)

    def record(self, plain: np.ndarray, solution: np.ndarray, solved: bool) -> None:
        """Remember a frame's ``solution`` ``(n,)``, solved from the plain start ``plain``
        ``(n,)``; ``solved`` False (goals missed, time limit, first frame) passes no motion
        on to the next frame."""
        solution = np.asarray(solution, dtype=float)
        self.last = solution.copy()
        self.motion = solution - np.asarray(plain, dtype=float) if solved else None
