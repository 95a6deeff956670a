"""Whole-body cases on the procedural human figure (examples/human.py).

Each sample is a figure plus a list of constraints, solved from the neutral pose by Reach
IK (default options) and by scipy.optimize on the same problem. Grading is independent of
the solver: the segment frames come from :func:`bench.tree_fk.segment_frames` (plain 4x4
products over the figure's data) and each goal's error is recomputed here. TRAC-IK,
Blender's IK and ikpy cannot express these tasks (several end-effectors at once,
plane/line/aim goals), so they appear as "not expressible" cells.
"""

from __future__ import annotations

import math
import time
import traceback
import warnings
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

import solver
from bench.metrics import ANGLE_TOLERANCE, LIMIT_SLACK, POSITION_TOLERANCE, Record
from bench.peers.base import Deadline, SolveTimeoutError
from bench.peers.reach import FIRST_RUN_MISSED as FIRST
from bench.tree_fk import segment_frames

Task = tuple[solver.Figure, list[solver.Constraint]]


@dataclass(frozen=True)
class TaskCase:
    """``count`` samples; ``make(k)`` builds sample k's figure and constraints."""

    name: str
    make: Callable[[int], Task]
    count: int
    description: str


def _angle(a: np.ndarray, b: np.ndarray) -> float:
    """Radians between two directions (atan2: accurate at tiny angles)."""
    a = a / np.linalg.norm(a)
    b = b / np.linalg.norm(b)
    return math.atan2(np.linalg.norm(np.cross(a, b)), float(a @ b))


def constraint_errors(frames: dict[str, np.ndarray], constraint):
    """(distance or None, radians or None) of one constraint, from the bench's frames."""
    frame = frames[constraint.effector.segment]
    rot, origin = frame[:3, :3], frame[:3, 3]
    effector = constraint.effector
    p = origin + rot @ effector.point
    ex = None if effector.x is None else rot @ effector.x
    ey = None if effector.y is None else rot @ effector.y
    goal = constraint.goal
    if goal.carrier is not None:
        raise NotImplementedError("carried goals are not graded by the bench")
    if isinstance(goal, solver.PositionOrientationGoal | solver.OrientationGoal):
        angles = [_angle(e, g) for e, g in ((ex, goal.x), (ey, goal.y)) if g is not None]
        distance = None
        if isinstance(goal, solver.PositionOrientationGoal):
            distance = float(np.linalg.norm(p - goal.point))
        return distance, max(angles) if angles else None
    if isinstance(goal, solver.PositionGoal):
        return float(np.linalg.norm(p - goal.point)), None
    if isinstance(goal, solver.PlaneGoal):
        return abs(float((p - goal.point) @ goal.normal)), None
    if isinstance(goal, solver.LineGoal):
        d = p - goal.point
        return float(np.linalg.norm(d - (d @ goal.direction) * goal.direction)), None
    if isinstance(goal, solver.AimGoal):
        return None, _angle(goal.point - p, ex)
    raise NotImplementedError(f"no bench grading for {type(goal).__name__}")


def grade_task(task: Task, coords: np.ndarray | None, seconds: float, index: int, **extra):
    """A :class:`bench.metrics.Record` for a whole task: worst distance, worst angle."""
    figure, constraints = task
    if coords is None:
        detail = extra.get("detail", "no answer")
        outcome = "timeout" if detail.startswith("timeout") else "error"
        return Record(index, seconds, math.inf, math.inf, 0.0, outcome, detail=detail)
    distances, angles = [0.0], [0.0]
    frames = segment_frames(figure, coords)
    for c in constraints:
        d, a = constraint_errors(frames, c)
        distances += [] if d is None else [d]
        angles += [] if a is None else [a]
    q = figure.joint_values(coords)
    lower = np.array([j.lower for j in figure.joints])
    upper = np.array([j.upper for j in figure.joints])
    violation = float(max(0.0, (lower - q).max(), (q - upper).max()))
    distance, angle = max(distances), max(angles)
    if violation > LIMIT_SLACK:
        outcome = "limits"
    elif distance <= POSITION_TOLERANCE and angle <= ANGLE_TOLERANCE:
        outcome = "solved"
    else:
        outcome = "missed"
    return Record(
        index, seconds, distance, angle, violation, outcome, extra.get("iterations"), None, ""
    )


class ReachTask:
    """Reach IK with its default options on a task, from the neutral pose."""

    name = "Reach IK"
    restarts = "internal"

    def solve(self, task: Task, index: int) -> Record:
        """Build the Solver (untimed), time ``solve(initial=neutral)``, grade."""
        figure, constraints = task
        ik = solver.Solver(figure, constraints)
        start_pose = figure.neutral()
        start, cpu = time.perf_counter(), time.process_time()
        result = ik.solve(initial=start_pose)
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
        record = grade_task(task, np.asarray(result.x), seconds, index, iterations=int(result.nit))
        record = replace(record, cpu=cpu)
        if result.restarts:  # the first run missed by the solver's own test
            missed = Record(index, math.nan, math.inf, math.inf, 0.0, "missed", detail=FIRST)
            record = replace(record, single=missed, tries=1 + int(result.restarts))
        return record


class ScipyTask:
    """scipy.optimize on the task's own objective (or residuals) and bounds, from neutral.

    Single start; stops once every constraint is within tolerance (checked by a callback
    whose time is subtracted) or by its tight internal tolerances. The figure's linear
    constraints other than the joint limits are not passed to scipy.
    """

    restarts = "none"

    def __init__(self, method: str, timeout: float = 5.0) -> None:
        self.method = method
        self.name = f"scipy {method}"
        self.deadline = Deadline(timeout)

    def solve(self, task: Task, index: int) -> Record:
        """Minimise with tight tolerances; stop early once every constraint is within tolerance."""
        from scipy.optimize import Bounds, least_squares, minimize

        from bench.peers.scipy_peer import (
            LEAST_SQUARES_OPTIONS,
            METHOD_OPTIONS,
            residuals_and_jacobian,
        )

        figure, constraints = task
        problem = solver.Solver(figure, constraints).problem
        lower, upper = (np.asarray(b, dtype=float) for b in problem.bounds)
        y0 = np.clip(np.asarray(problem.from_coordinates(figure.neutral()), float), lower, upper)
        checking, cache = [0.0, 0.0], {}

        def fun(y):
            self.deadline.check()
            value, gradient = problem.value_and_gradient(y)
            return float(value), np.asarray(gradient, dtype=float)

        def residuals(y):
            self.deadline.check()
            cache["y"], (cache["r"], cache["j"]) = np.array(y), residuals_and_jacobian(problem, y)
            return cache["r"]

        def jacobian(y):
            if not np.array_equal(cache.get("y"), y):
                residuals(y)
            return cache["j"]

        def callback(intermediate_result) -> None:
            began, began_cpu = time.perf_counter(), time.process_time()
            coords = problem.to_coordinates(intermediate_result.x)
            done = grade_task(task, coords, 0.0, index).solved
            checking[0] += time.perf_counter() - began
            checking[1] += time.process_time() - began_cpu
            if done:
                raise StopIteration

        self.deadline.restart()
        start, cpu = time.perf_counter(), time.process_time()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                if self.method == "least_squares":
                    result = least_squares(
                        residuals,
                        y0,
                        jac=jacobian,
                        bounds=(lower, upper),
                        method="trf",
                        callback=callback,
                        **LEAST_SQUARES_OPTIONS,
                    )
                else:
                    result = minimize(
                        fun,
                        y0,
                        jac=True,
                        method=self.method,
                        bounds=Bounds(lower, upper),
                        options=METHOD_OPTIONS[self.method],
                        callback=callback,
                    )
        except SolveTimeoutError as timeout:
            return grade_task(
                task, None, time.perf_counter() - start, index, detail=f"timeout ({timeout})"
            )
        seconds = time.perf_counter() - start - checking[0]
        cpu = time.process_time() - cpu - checking[1]
        coords = problem.to_coordinates(result.x)
        record = grade_task(task, coords, seconds, index, iterations=int(getattr(result, "nit", 0)))
        return replace(record, cpu=cpu)


def run_task_case(
    case: TaskCase, peers: list, budget: float = 25.0, log: Callable[[str], None] = print
):
    """Every sample with every peer, alternating the peer order sample by sample.

    A peer that has spent ``budget`` seconds on the case stops there (reported).
    """
    from bench.harness import PeerRun

    runs = [PeerRun(p.name, restarts=p.restarts, planned=case.count) for p in peers]
    for k in range(case.count):
        shift = k % len(peers)
        for i in list(range(len(peers)))[shift:] + list(range(len(peers)))[:shift]:
            run = runs[i]
            if len(run.records) >= run.planned:
                continue
            if run.spent > budget:
                run.planned = len(run.records)
                run.note = f"stopped after {run.spent:.0f} s budget at {run.planned} samples"
                continue
            started = time.perf_counter()
            try:
                record = peers[i].solve(case.make(k), k)
            except Exception as error:  # a failed solve is reported, never dropped
                detail = "".join(traceback.format_exception_only(error)).strip()
                record = Record(k, math.nan, math.inf, math.inf, 0.0, "error", detail=detail)
            run.spent += time.perf_counter() - started
            run.records.append(record)
    for run in runs:
        s = run.summary()
        log(
            f"  {run.name:22s} {s.solved:4d}/{s.attempted:<4d} solved  "
            f"median {1e3 * s.median_time_all:9.3f} ms"
        )
    return runs
