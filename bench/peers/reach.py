"""Reach IK as a peer, with its DEFAULT options: one reusable :class:`solver.Solver` per chain.

Nothing is tuned for the bench: the goal's orientation weight, the tolerances, the
iteration limit, restarts and time limit are the solver's defaults. The solver stops by
its own tolerance check (inside the timed call, like TRAC-IK's). Its default distance
tolerance is relative to the chain's reach (``solver.solve.RELATIVE_TOLERANCE`` of it); a
second peer, :data:`GRADED`, sets ``tolerance`` to the graded 1e-5 m like every other
peer's stop test, all else default.
"""

from __future__ import annotations

import math
import time
from dataclasses import replace
from typing import Any

import numpy as np

import solver
from bench.figures import chain_figure, chain_tip, set_goal, tip_goal
from bench.peers.base import Attempt, Track
from bench.serial import SerialChain, forward

GRADED = "Reach IK, tolerance 1e-5"
"""Name of the peer whose ``tolerance`` is the graded 1e-5 m (all other options default)."""


class ReachModel:
    """Figure, tip constraint and a Solver of a chain (default options, or the ``options``
    given: ``tolerance``, ``method``, ``restarts``, ...)."""

    def __init__(self, chain: SerialChain, orientation: bool, **options: Any) -> None:
        self.chain = chain
        self.orientation = orientation
        self.figure = chain_figure(chain)
        start_position, start_rotation = forward(chain, chain.mid_range())
        self.goal = tip_goal(start_position, start_rotation if orientation else None)
        constraint = solver.Constraint(chain_tip(chain, orientation), self.goal, name="tip")
        self.solver = solver.Solver(self.figure, [constraint], **options)
        # No joint groups: coordinates are the joint values, in the chain's order.
        assert self.figure.coordinate_names == chain.joints
        self.seed = chain.mid_range()

    def retarget(self, position: np.ndarray, rotation: np.ndarray | None) -> None:
        """Point the tip goal at a new target (rotation ignored without orientation)."""
        set_goal(self.goal, position, rotation if self.orientation else None)


FIRST_RUN_MISSED = "first run missed its goal (restarted)"


def first_run(attempt: Attempt, restarts: int) -> Attempt:
    """``attempt`` with its single-start outcome when Reach IK restarted by itself.

    A restart means the first run from the seed did not meet the goal by the solver's own
    test, so the first try counts as a miss (its answer is not returned by the solver).
    """
    if restarts <= 0:
        return attempt
    missed = Attempt(None, math.nan, error=FIRST_RUN_MISSED)
    return replace(attempt, single=missed, tries=1 + restarts)


class ReachChain:
    """Reach IK solving from the mid-range seed pose for every target.

    ``tolerance`` (the :data:`GRADED` peer) and the other ``options`` are
    :class:`solver.Solver`'s; ``name`` replaces the default peer name.
    """

    def __init__(
        self,
        chain: SerialChain,
        orientation: bool,
        tolerance: float | None = None,
        name: str | None = None,
        **options: Any,
    ) -> None:
        if tolerance is not None:
            options["tolerance"] = tolerance
        self.name = name or ("Reach IK" if tolerance is None else GRADED)
        self.model = ReachModel(chain, orientation, **options)

    def solve(self, position: np.ndarray, rotation: np.ndarray | None) -> Attempt:
        """Solve for one target from the seed pose; times only ``Solver.solve``."""
        self.model.retarget(position, rotation)
        start = time.perf_counter()
        result = self.model.solver.solve(initial=self.model.seed)
        seconds = time.perf_counter() - start
        attempt = Attempt(np.array(result.x, dtype=float), seconds, iterations=int(result.nit))
        return first_run(attempt, int(result.restarts))

    def track(self, positions: np.ndarray) -> Track:
        """Follow ``positions`` (T, 3), warm-starting every frame from the previous solution."""
        angles, seconds = [], []
        initial = self.model.seed
        for position in positions:
            self.model.retarget(position, None)
            start = time.perf_counter()
            result = self.model.solver.solve(initial=initial)
            seconds.append(time.perf_counter() - start)
            initial = None
            angles.append(np.array(result.x, dtype=float))
        angles_array = np.array(angles)
        tips = np.array([forward(self.model.chain, a)[0] for a in angles_array])
        return Track(tips=tips, seconds=np.array(seconds), angles=angles_array)
