"""scipy.optimize on Reach IK's own objective: the same residuals, gradient and bounds.

Only the optimiser differs: ``least_squares`` (trust-region reflective with bounds; dogbox
when tracking from warm starts, where it needs far fewer evaluations) on
the residual vector whose squared norm is Reach IK's objective, and ``minimize`` with
SLSQP or L-BFGS-B on the objective and its analytic gradient. Each stops as soon as the
tip is within the graded tolerance, checked after every iteration by a callback with the
bench's forward kinematics; the callback's own time is measured and subtracted, so the
reported seconds are the optimiser's. Internal tolerances are tight so a loose default
never stops a run early. A single start is the mid-range pose; restarts from random
starts in the limits come from :func:`bench.peers.base.with_restarts`.
"""

from __future__ import annotations

import math
import time
import warnings

import numpy as np
from scipy.optimize import Bounds, least_squares, minimize

from bench.metrics import within_tolerance
from bench.peers import base
from bench.peers.reach import ReachModel
from bench.serial import SerialChain

MAX_ITERATIONS = 1000
"""Iteration cap of every scipy method (scipy's own defaults are lower for some)."""

METHOD_OPTIONS = {
    "SLSQP": {"ftol": 1e-16, "maxiter": MAX_ITERATIONS},
    "L-BFGS-B": {
        "ftol": 1e-16,
        "gtol": 1e-14,
        "maxfun": 20 * MAX_ITERATIONS,
        "maxiter": MAX_ITERATIONS,
    },
}
LEAST_SQUARES_OPTIONS = {"ftol": 1e-15, "xtol": 1e-15, "gtol": 1e-15, "max_nfev": MAX_ITERATIONS}
METHODS = ("least_squares", "SLSQP", "L-BFGS-B")


def residuals_and_jacobian(problem, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(m,) residuals r and (m, n) Jacobian with ``sum r^2`` = Reach IK's objective at ``y``."""
    e = problem.evaluate(y)
    rows = [(math.sqrt(t.weight), t) for t in e.terms if t.weight > 0.0]
    r = np.concatenate([s * t.residual for s, t in rows])
    j = np.vstack([s * t.jacobian for s, t in rows])
    return r, j


class ScipyChain:
    """One scipy method on the chain's Reach IK problem (same objective, same bounds)."""

    def __init__(
        self, chain: SerialChain, orientation: bool, method: str, timeout: float, budget: float
    ) -> None:
        if method not in METHODS:
            raise ValueError(f"method must be one of {METHODS}, got {method!r}")
        self.name = f"scipy {method}"
        self.method = method
        self.chain = chain
        self.model = ReachModel(chain, orientation)
        self.problem = self.model.solver.problem
        lower, upper = self.problem.bounds
        self.lower, self.upper = np.asarray(lower, float), np.asarray(upper, float)
        self.deadline = base.Deadline(timeout)
        self.budget = budget
        self.rng = np.random.default_rng(7)
        self._target: tuple[np.ndarray, np.ndarray | None] = (np.zeros(3), None)
        self._least_squares_method = "trf"
        self._checking = self._checking_cpu = 0.0
        self._nit = 0
        self._last: tuple[np.ndarray, np.ndarray, np.ndarray] = (np.zeros(0),) * 3

    # The problem's variables are the joint angles (no rigidity, no groups).
    def _angles(self, y: np.ndarray) -> np.ndarray:
        return np.asarray(self.problem.to_coordinates(y), dtype=float)

    def reached(self, angles: np.ndarray) -> bool:
        """Within the graded tolerances of the current target (bench FK)."""
        return within_tolerance(self.chain, angles, *self._target)

    def _callback(self, intermediate_result) -> None:
        start, cpu = time.perf_counter(), time.process_time()
        self._nit += 1
        done = self.reached(self._angles(intermediate_result.x))
        self._checking += time.perf_counter() - start
        self._checking_cpu += time.process_time() - cpu
        if done:
            raise StopIteration

    def _fun(self, y: np.ndarray) -> tuple[float, np.ndarray]:
        self.deadline.check()
        value, gradient = self.problem.value_and_gradient(y)
        return float(value), np.asarray(gradient, dtype=float)

    def _residuals(self, y: np.ndarray) -> np.ndarray:
        # One evaluation per point: the Jacobian least_squares asks for next is kept.
        self.deadline.check()
        self._last = (np.array(y), *residuals_and_jacobian(self.problem, y))
        return self._last[1]

    def _jacobian(self, y: np.ndarray) -> np.ndarray:
        if not np.array_equal(self._last[0], y):
            self._last = (np.array(y), *residuals_and_jacobian(self.problem, y))
        return self._last[2]

    def _run(self, y0: np.ndarray) -> np.ndarray:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if self.method == "least_squares":
                result = least_squares(
                    self._residuals,
                    y0,
                    jac=self._jacobian,
                    bounds=(self.lower, self.upper),
                    method=self._least_squares_method,
                    callback=self._callback,
                    **LEAST_SQUARES_OPTIONS,
                )
            else:
                result = minimize(
                    self._fun,
                    y0,
                    jac=True,
                    method=self.method,
                    bounds=Bounds(self.lower, self.upper),
                    options=METHOD_OPTIONS[self.method],
                    callback=self._callback,
                )
        return np.asarray(result.x, dtype=float)

    def attempt(self, start: np.ndarray) -> base.Attempt:
        """One minimisation from joint angles ``start``; seconds exclude the stop checks."""
        y0 = np.clip(
            np.asarray(self.problem.from_coordinates(start), float), self.lower, self.upper
        )
        self._checking, self._checking_cpu, self._nit = 0.0, 0.0, 0
        self.deadline.restart()
        began, began_cpu = time.perf_counter(), time.process_time()
        try:
            y = self._run(y0)
        except base.SolveTimeoutError as timeout:
            seconds = time.perf_counter() - began - self._checking
            return base.Attempt(None, seconds, error=f"timeout ({timeout})")
        seconds = time.perf_counter() - began - self._checking
        cpu = time.process_time() - began_cpu - self._checking_cpu
        return base.Attempt(self._angles(y), seconds, iterations=self._nit, cpu=cpu)

    def solve(self, position: np.ndarray, rotation: np.ndarray | None) -> base.Attempt:
        """From the mid-range seed, then random restarts within the budget."""
        self.model.retarget(position, rotation)
        self._target = (np.asarray(position, float), rotation if self.model.orientation else None)
        return base.with_restarts(
            self.attempt,
            self.model.seed,
            self.chain.lower,
            self.chain.upper,
            self.reached,
            self.budget,
            self.rng,
        )

    def track(self, positions: np.ndarray) -> base.Track:
        """Follow ``positions`` (T, 3), each frame starting from the previous frame's answer."""

        def retarget(position: np.ndarray) -> None:
            self.model.retarget(position, None)
            self._target = (position, None)

        # From a warm start trf's first steps overshoot (29 evaluations on a frame that
        # dogbox finishes in 5, measured); tracking gets least_squares' better method.
        self._least_squares_method = "dogbox"
        try:
            return base.warm_track(self.chain, self.model.seed, positions, retarget, self.attempt)
        finally:
            self._least_squares_method = "trf"
