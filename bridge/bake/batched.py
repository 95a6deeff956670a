"""A bake's frames solved as batches (issue 21): the fast path of :class:`.baking.BakeJob`.

The sequential bake solves one frame after another, each from the previous frame's solution.
Its cost is a few hundred small array operations per frame. :class:`BatchedFrames` solves
the same frames by :func:`solver.batch` (damped least squares with a leading batch axis):

1. The first frame is solved as in the sequential bake (from the rest pose, the bake's own
   method). Its solution becomes the base every later frame's joints are measured from
   (``LOCAL`` bones are relinearised around it, :mod:`..rig.pose`), so every frame shares
   one figure.
2. Every later frame only has its targets read (the scene stepped to it) into one table;
   the figure's other inputs (unsolved bones, the armature's transform) must not change over
   the range, else the bake goes back to the sequential path (:meth:`BatchedFrames.read`
   says so).
3. Anchors: every :data:`ANCHOR_EVERY`-th frame and the last, solved one after another by the
   bake's own solver (its method), each from the anchor before it: the sequential bake's
   continuity at a coarser step.
4. In-betweens: started from the poses interpolated between their anchors (in solver
   coordinates, by the cubic through the anchors, :func:`hermite_starts`: on the demo 211
   iterations of the batch in 3 passes instead of 242 with straight lines between anchors),
   solved as one batch (damped least squares).
5. A frame whose solution leaves its neighbours' branch (it moved from its interpolated start
   by more than its anchors differ, plus :data:`BRANCH_MARGIN`), or that misses a goal within
   :data:`BATCH_ITERATIONS` (the batch does not restart), is solved again by the bake's solver
   from the previous frame's solution, in order: where a goal is out of reach, the bake's
   method decides the compromise as one frame after another (damped least squares' can give up
   other goals that the bake's method keeps).

Every step is a function of the shot (targets and first frame), so the bake stays
deterministic. Which bakes take this path: :func:`why_sequential`.

Pure numpy over the objects passed in; ``bpy`` only through :class:`~..rig.build.Rig`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, cast

import numpy as np

from ... import solver
from ...solver.assembly.step_bound import per_kind
from ...solver.batch import BatchResult, BatchSolver, check_structure

if TYPE_CHECKING:
    from ..rig.build import Rig

#: Every this many frames an anchor is solved from the anchor before it (step 3).
ANCHOR_EVERY = 12
#: Radians (or, for a coordinate that only slides, lengths of the rig: its characteristic
#: length, so a rig in centimetres and one in metres judge alike) a frame may move from its
#: interpolated start beyond the spread of its anchors before it counts as off its
#: neighbours' branch (step 5).
BRANCH_MARGIN = 0.1
#: Iterations a frame gets in the batch (no restarts there): a frame still short of a goal
#: after them is solved again by the bake's own solver (step 5), which restarts as a
#: sequential bake does.
BATCH_ITERATIONS = 40
#: Scene units: an aim target this close to its end-effector's point is checked by
#: :meth:`Rig.check_aim` (which refuses it within the same distance).
AIM_CHECK = 1e-6


def why_sequential(rig: Rig, *, smooth: bool, joined: bool, driven: bool) -> str | None:
    """Why a bake of ``rig`` takes the sequential path, or None: the batched path applies.

    Args:
        rig: the rig being baked.
        smooth: a smooth bake (each frame's bound is around the previous frame's solution).
        joined: a sub-range bake joining existing keys (frames start from the keys).
        driven: a rig with Driven bones (sub-steps and held poses, :mod:`.mechanism`).
    """
    if smooth:
        return "a smooth bake bounds each frame around the one before"
    if joined:
        return "the bake joins keys around its range"
    if driven:
        return "Driven bones are reached in sub-steps"
    try:
        check_structure(rig.figure, rig.constraints)
    except solver.InvalidInputError as exc:  # for the report: without the API's advice
        return str(exc).removesuffix("; solve it with solver.Solver").split(": solve with")[0]
    return None


def _aim_points(rig: Rig) -> list[tuple[solver.AimGoal, np.ndarray]]:
    """Each aim goal with its end-effector's point (3,) at the rig's pose: what
    :meth:`Rig.check_aim` compares its target with, the same at every frame of a batched
    bake's reading (neither the figure nor the pose changes meanwhile)."""
    aims = [
        (spec, binding)
        for spec in rig.specs
        for binding in spec.bindings
        if isinstance(binding.goal, solver.AimGoal)
    ]
    if not aims:
        return []
    figure = rig.figure
    frames = figure.kinematics.forward(figure.coupling @ rig.initial())
    out = []
    for spec, binding in aims:
        s = figure.segment_index(spec.effector_segment)
        point = frames.rotations[s] @ spec.point + frames.origins[s]
        out.append((cast(solver.AimGoal, binding.goal), point))
    return out


def _still_inputs(rig: Rig) -> np.ndarray:
    """What the figure reads besides the solved channels, flat: the armature's transform,
    every unsolved figure bone's rotation, the locations that place bones (not a Connected
    bone's, which Blender ignores: an FBX import keys it with ~1e-7 of noise)."""
    pose = rig.pose
    located = pose.located
    parts = [np.asarray(rig.obj.matrix_world, dtype=float).ravel()]
    for name in rig.bones:
        if name not in rig.solved:
            parts.append(pose.rotation[name].ravel())
        if name in located:
            parts.append(pose.location[name])
    return np.concatenate(parts)


def what_moved(rig: Rig, inputs: np.ndarray) -> str:
    """What first differs between the rig's :func:`_still_inputs` now and ``inputs`` (the
    first frame's), in words: "the armature's transform" or "bone '<name>'"."""
    now = _still_inputs(rig)
    if not np.array_equal(now[:16], inputs[:16]):
        return "the armature's transform"
    start = 16
    located = rig.pose.located
    for name in rig.bones:
        size = 0 if name in rig.solved else rig.pose.rotation[name].size
        size += 3 if name in located else 0
        if not np.array_equal(now[start : start + size], inputs[start : start + size]):
            return f"bone '{name}'"
        start += size
    return "the rig's pose"


class BatchedFrames:
    """The targets of a bake's frames, read one frame at a time, then solved at once.

    Args:
        rig: the rig (its first frame already solved, its pose holding that solution).
        single: the bake's solver (its method; anchors and frames solved again use it); the
            batch runs its options with the method ``"dls"``.
        count: the number of frames of the bake.
    """

    def __init__(self, rig: Rig, single: solver.Solver, count: int) -> None:
        self.rig = rig
        self.single = single
        self.options = single.options.replace(
            method="dls",
            restarts=0,
            max_iterations=min(single.options.max_iterations, BATCH_ITERATIONS),
        )
        self.count = count
        self.inputs = _still_inputs(rig)
        self.attributes = [
            (c.name, part.attribute) for c in rig.constraints for part in c.goal.geometry_parts
        ]
        self.table = {key: np.zeros((count, 3)) for key in self.attributes}
        self.aims = _aim_points(rig)
        self.read(0)
        self.resolved: list[int] = []  # frames solved again from their neighbour (step 5)

    def read(self, index: int, still: bool = False) -> bool:
        """Record the goals' targets (as the rig last read them) as frame ``index``'s; False
        when the figure's other inputs differ from the first frame's (the sequential path);
        ``still``: they are known not to change (not compared).

        Raises:
            RigError: an aim target on its end-effector (as the solve would refuse it).
        """
        for goal, point in self.aims:  # the check of Rig.check_aim, its pose read once
            if np.linalg.norm(goal.point - point) <= AIM_CHECK:
                self.rig.check_aim()
        for c in self.rig.constraints:
            for part in c.goal.geometry_parts:
                self.table[c.name, part.attribute][index] = getattr(c.goal, part.attribute)
        return index == 0 or still or bool(np.array_equal(_still_inputs(self.rig), self.inputs))

    def fill(self, points: dict[int, np.ndarray], start: int) -> np.ndarray:
        """Record the goals' points of frames ``start`` on at once (each goal reads its point
        alone): ``points`` maps ``id`` of each goal to its points (F, 3) at every frame, as
        :meth:`read` would record them one frame at a time. Returns (F,) the frames whose
        aim check (:meth:`Rig.check_aim`) :meth:`read` must make, frame by frame."""
        goals = {c.name: c.goal for c in self.rig.constraints}
        for (name, attribute), values in self.table.items():
            given = points.get(id(goals[name])) if attribute == "point" else None
            values[start:] = getattr(goals[name], attribute) if given is None else given[start:]
        check = np.zeros(self.count, dtype=bool)
        for goal, point in self.aims:
            given = points.get(id(goal))
            if given is not None:
                check |= np.linalg.norm(given - point, axis=1) <= AIM_CHECK
        check[:start] = False
        return check

    def _set_goals(self, index: int) -> None:
        """Put frame ``index``'s targets into the goals (for a single solve)."""
        goals = {c.name: c.goal for c in self.rig.constraints}
        for (name, attribute), values in self.table.items():
            setattr(goals[name], attribute, values[index])

    def _single(self, index: int, start: np.ndarray) -> solver.IKResult:
        """Frame ``index`` solved alone from ``start`` (n,) by the bake's own solver: an
        anchor, or a frame solved again from its neighbour (a single solve of the bake's
        method converges in fewer iterations than dls from a start frames away)."""
        self._set_goals(index)
        return self.single.solve(start)

    def _targets(self, index: Sequence[int] | np.ndarray) -> dict[str, dict[str, np.ndarray]]:
        out: dict[str, dict[str, np.ndarray]] = {}
        for (name, attribute), values in self.table.items():
            out.setdefault(name, {})[attribute] = values[index]
        return out

    def solve(self, first_result: solver.IKResult) -> SolvedFrames:
        """Every frame but the first (whose result is ``first_result``), solved (steps 1 and
        3-5 of the module), in coordinates around the first frame's pose (now the figure's)."""
        rig = self.rig
        for name in rig.solved:  # relinearise LOCAL bones around the first frame's pose
            rig.pose.turn(name, rig.pose.rotation[name])
        rig.push_rest()
        first = rig.initial()
        last = self.count - 1
        anchors = [*range(ANCHOR_EVERY, last, ANCHOR_EVERY), last]
        x = np.zeros((self.count, len(first)))
        x[0] = first
        singles: dict[int, solver.IKResult] = {0: first_result}
        before = 0
        for anchor in anchors:
            singles[anchor] = self._single(anchor, x[before])
            x[anchor] = singles[anchor].x
            before = anchor
        known = [0, *anchors]
        between = np.array([i for i in range(self.count) if i not in singles], dtype=int)
        done = None
        if len(between):
            batch = BatchSolver(rig.figure, rig.constraints, self.options)
            right = np.searchsorted(known, between)
            a, b = np.array(known)[right - 1], np.array(known)[right]
            starts = hermite_starts(np.array(known), x[known], between)
            done = batch.solve(self._targets(between), starts)
            unit = per_kind(rig.figure, 1.0, rig.length)
            again = off_branch(starts, done.x, x[a], x[b], unit) | ~done.success
            x[between] = done.x
            for k in np.flatnonzero(again).tolist():
                i = int(between[k])
                singles[i] = self._single(i, x[i - 1])
                x[i] = singles[i].x
                self.resolved.append(i)
        self._set_goals(last)  # as a sequential bake leaves them
        return SolvedFrames(rig.figure, self.count, singles, done, between)


class SolvedFrames:
    """The frames of a batched bake after the first, solved: those solved alone (anchors,
    frames solved again) as their :class:`solver.IKResult`, the others as rows of the
    batch's :class:`solver.batch.BatchResult`, read in bulk (an ``IKResult`` object per frame
    is built only on demand, :meth:`result`).

    Args:
        figure: the figure solved (its joint names).
        count: the number of frames, the first included.
        singles: frame index -> its result, for the frames solved alone (0 among them).
        batch: the batch's result, None when no frame is batched.
        between: (k,) the batch's frame indices, in order (row ``r`` of ``batch`` is frame
            ``between[r]``).
    """

    def __init__(
        self,
        figure: solver.Figure,
        count: int,
        singles: dict[int, solver.IKResult],
        batch: BatchResult | None,
        between: np.ndarray,
    ) -> None:
        self.singles = singles
        self.batch = batch
        self.count = count
        self.joint_names = figure.joint_names
        #: (count,) the batch's row of each frame, -1 for a frame solved alone
        self.row = np.full(self.count, -1)
        kept = np.array([i not in singles for i in between.tolist()], dtype=bool)
        self.row[between[kept]] = np.flatnonzero(kept)

    def result(self, index: int) -> solver.IKResult:
        """Frame ``index``'s result, as a single solve gives it."""
        row = int(self.row[index])
        if row < 0:
            return self.singles[index]
        assert self.batch is not None, "a frame of the batch"
        return self.batch.result(row)

    def joint_values(self) -> np.ndarray:
        """(count - 1, n_joints) the joint values of frames 1 on."""
        out = np.empty((self.count - 1, len(self.joint_names)))
        batched = np.flatnonzero(self.row[1:] >= 0)
        if self.batch is not None and len(batched):
            out[batched] = self.batch.joint_values[self.row[1:][batched]]
        for index, result in self.singles.items():
            if index:
                out[index - 1] = result.joint_values
        return out

    def batched_rows(self) -> np.ndarray:
        """(k,) the rows of the batch whose frames kept the batch's answer."""
        return self.row[self.row >= 0]


def hermite_starts(knots: np.ndarray, values: np.ndarray, frames: np.ndarray) -> np.ndarray:
    """(k, n) starts of the in-between ``frames`` (k,) (each strictly between two knots):
    the cubic Hermite curve through the anchors' solutions ``values`` (m, n) at ``knots``
    (m,) (increasing frame indices, m >= 2), its tangent at each knot the slope there of the
    parabola through that knot and the knots either side (the two nearest knots at an end;
    the straight line when m = 2): exact for a motion at a steadily changing rate in every
    interval, the end ones and an uneven last one included, so nearer the in-betweens'
    solutions than the straight line between anchors where the motion curves (error O(h^3)
    against O(h^2)). On the demo the batch's frames then all converge within 2 iterations: 3
    passes of the batch instead of 4 with one-sided end tangents, which left 3 frames of the
    end intervals a third iteration."""
    knots = np.asarray(knots, dtype=float)
    slopes = _parabola_slopes(knots, values)
    right = np.searchsorted(knots, frames)
    a, b = right - 1, right
    h = (knots[b] - knots[a])[:, None]
    t = (frames - knots[a])[:, None] / h
    t2, t3 = t * t, t * t * t
    return (
        (2.0 * t3 - 3.0 * t2 + 1.0) * values[a]
        + (t3 - 2.0 * t2 + t) * h * slopes[a]
        + (3.0 * t2 - 2.0 * t3) * values[b]
        + (t3 - t2) * h * slopes[b]
    )


def _parabola_slopes(knots: np.ndarray, values: np.ndarray) -> np.ndarray:
    """(m, n) at each of ``knots`` (m,), the slope of the parabola through ``values`` (m, n)
    at that knot and its two neighbours (at an end, the two nearest knots); the slope of the
    straight line when m = 2."""
    m = len(knots)
    if m == 2:
        return np.broadcast_to((values[1] - values[0]) / (knots[1] - knots[0]), values.shape)
    middle = np.clip(np.arange(m), 1, m - 2)  # the middle knot of each one's three
    nodes = np.stack([middle - 1, middle, middle + 1], axis=1)  # (m, 3)
    x = knots
    p = knots[nodes]  # (m, 3)
    weights = np.empty((m, 3))
    for j in range(3):  # the derivative of the j-th Lagrange basis parabola at the knot
        own, q, r = p[:, j], p[:, (j + 1) % 3], p[:, (j + 2) % 3]
        weights[:, j] = ((x - q) + (x - r)) / ((own - q) * (own - r))
    return np.einsum("mj,mjn->mn", weights, values[nodes])


def off_branch(
    starts: np.ndarray, solved: np.ndarray, before: np.ndarray, after: np.ndarray,
    unit: np.ndarray,
) -> np.ndarray:  # fmt: skip
    """(k,) whether each in-between frame left its neighbours' branch (step 5 of the module):
    it moved from its interpolated start (``starts`` (k, n) to ``solved`` (k, n)) by more than
    its anchors ``before`` and ``after`` (k, n) differ plus :data:`BRANCH_MARGIN`, every
    coordinate measured in its ``unit`` (n,): 1 for radians, the rig's size for a coordinate
    that only slides (:func:`solver.assembly.step_bound.per_kind`)."""
    spread = (np.abs(after - before) / unit).max(axis=1) + BRANCH_MARGIN
    return (np.abs(solved - starts) / unit).max(axis=1) > spread


__all__ = [
    "ANCHOR_EVERY",
    "BRANCH_MARGIN",
    "BatchedFrames",
    "SolvedFrames",
    "hermite_starts",
    "off_branch",
    "what_moved",
    "why_sequential",
]
