"""scipy.optimize on Reach IK's own objective: the same potential, gradient and bounds.

Only the optimiser differs, so this isolates what the solver's active-set BFGS buys over
SLSQP, trust-constr and L-BFGS-B. Every method gets the solver's stopping rule (stop as
soon as the tip is within tolerance, checked after each iteration with the chain's forward
kinematics) and tight internal tolerances otherwise, so it is not stopped early by a loose
default nor made to polish beyond what is asked.
"""

from __future__ import annotations

import time
import warnings

import numpy as np
from scipy.optimize import Bounds, minimize

from bench.chains import ChainSpec, direction_errors_degrees, forward
from bench.peers.base import Attempt, Deadline, SolveTimeoutError, Track
from bench.peers.reach import ANGLE_TOLERANCE, MAX_ITERATIONS, POSITION_TOLERANCE, ReachModel

METHOD_OPTIONS = {
    "SLSQP": {"ftol": 1e-16},
    "L-BFGS-B": {"ftol": 1e-16, "gtol": 1e-14, "maxfun": 20 * MAX_ITERATIONS},
    "trust-constr": {"gtol": 1e-14, "xtol": 1e-14},
}


class ScipyChain:
    """``scipy.optimize.minimize(method=...)`` with ``jac=True`` on ``Solver(...).problem``."""

    def __init__(
        self, spec: ChainSpec, orientation: bool, method: str, timeout: float = 10.0
    ) -> None:
        self.name = f"scipy {method}"
        self.method = method
        self.model = ReachModel(spec, orientation)
        self.problem = self.model.solver.problem
        lower, upper = self.problem.bounds
        self.bounds = Bounds(np.asarray(lower, dtype=float), np.asarray(upper, dtype=float))
        self.deadline = Deadline(timeout)
        self._target: tuple[np.ndarray, np.ndarray | None] = (np.zeros(3), None)

    def _value_and_gradient(self, y: np.ndarray) -> tuple[float, np.ndarray]:
        self.deadline.check()
        value, gradient = self.problem.value_and_gradient(y)
        return float(value), np.asarray(gradient, dtype=float)

    def _within_tolerance(self, y: np.ndarray) -> bool:
        angles = self.model.angles(self.problem.to_coordinates(y))
        tip, rotation = forward(self.model.spec, angles)
        position, target_rotation = self._target
        if np.linalg.norm(tip - position) > POSITION_TOLERANCE:
            return False
        if target_rotation is None:
            return True
        return direction_errors_degrees(rotation, target_rotation) <= ANGLE_TOLERANCE

    def _minimize(self, y0: np.ndarray) -> tuple[np.ndarray, int]:
        best = {"y": np.array(y0, dtype=float), "nit": 0}

        def callback(intermediate_result) -> None:
            best["y"] = np.array(intermediate_result.x, dtype=float)
            best["nit"] += 1
            if self._within_tolerance(best["y"]):
                raise StopIteration

        options = dict(METHOD_OPTIONS[self.method], maxiter=MAX_ITERATIONS)
        with warnings.catch_warnings():
            # trust-constr's quasi-Newton update warns on a zero step; not a failure.
            warnings.simplefilter("ignore", UserWarning)
            result = minimize(
                self._value_and_gradient,
                y0,
                jac=True,
                method=self.method,
                bounds=self.bounds,
                options=options,
                callback=callback,
            )
        return np.asarray(result.x, dtype=float), int(getattr(result, "nit", best["nit"]))

    def solve(self, position: np.ndarray, rotation: np.ndarray | None) -> Attempt:
        """Minimise from the mid-range seed; a solve over the time limit is a failure."""
        self.model.retarget(position, rotation)
        self._target = (np.asarray(position), rotation if self.model.orientation else None)
        y0 = np.asarray(self.problem.from_coordinates(self.model.seed), dtype=float)
        self.deadline.restart()
        start = time.perf_counter()
        try:
            y, nit = self._minimize(y0)
        except SolveTimeoutError as timeout:
            return Attempt(None, time.perf_counter() - start, error=f"timeout ({timeout})")
        seconds = time.perf_counter() - start
        angles = self.model.angles(self.problem.to_coordinates(y))
        return Attempt(angles, seconds, iterations=nit)

    def track(self, positions: np.ndarray) -> Track:
        """Follow ``positions`` (T, 3), each frame starting from the previous frame's answer."""
        y = np.asarray(self.problem.from_coordinates(self.model.seed), dtype=float)
        angles, seconds = [], []
        for position in positions:
            self.model.retarget(position, None)
            self._target = (np.asarray(position), None)
            self.deadline.restart()
            start = time.perf_counter()
            try:
                y, _ = self._minimize(y)
            except SolveTimeoutError:
                pass
            seconds.append(time.perf_counter() - start)
            angles.append(self.model.angles(self.problem.to_coordinates(y)))
        angles_array = np.array(angles)
        tips = np.array([forward(self.model.spec, a)[0] for a in angles_array])
        return Track(tips=tips, seconds=np.array(seconds), angles=angles_array)
