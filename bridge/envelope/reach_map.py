"""A reach map: which sample points one constraint's end-effector reaches, and at what effort.

For the chosen constraint (a *Position* or *Position & Orientation* goal on a target in the
world) every sample point (:mod:`.samples`: a grid in the ball the chain can span, centred on
the head of the chain's top moving bone) is solved from the current pose with the goal moved
there and every other enabled constraint as it is (feet planted, gaze kept). A sample is
*reached* when the solve meets every goal (``IKResult.success``: the solver's tolerances, the
same as a Solve's). Only the constraints that interact with the moved one
(``solver.independent_groups``: their chains share or move each other's joints) are solved at
each sample; the others are met or missed whatever the moved one does, so they are solved
once, from the current pose, and every sample starts from where that leaves them; when one
of them cannot hold, no sample is reached (:attr:`Envelope.missed` names them). A sample
farther from the chain's top head than the end-effector can be is unreached without a solve
(:func:`.farthest.farthest`: the links and the hinges' limits, a proof; with a held
orientation, the farthest the segment's origin can be from where the orientation puts the
point; when the goal measures its point, and no solved joint moves that head or slides). The
others are solved
:data:`BATCH_SAMPLES` at a time by ``solver.BatchSolver`` (damped least squares over a batch
axis, the armature's tolerances, each from the current pose nudged once, no restarts) when
the batch covers the group (point and orientation goals in the world, joint limits that are
boxes), otherwise one by one by the armature's method (a polygon of IK limits, an aim or a
carried goal); then every sample the batch left unreached is solved again one by one, as a
Solve would: a batch's "reached" is a met goal, and every "unreached" is a Solve's. With
``orientation`` the end-effector must also hold the target's current orientation at every
point (for a *Position* constraint the bone's own axes are held to the target's: the bone's X
on the target's X, Y on Y).

Effort of a reached sample:

* ``"MOTION"``: how far the solved coordinates move from the current pose, ``|q - q0|``
  (radians; a moving root's translation counts in scene units);
* ``"LIMITS"``: how close the pose comes to a joint limit, ``max_i 1 - d_i / h_i`` over the
  coordinates the samples' solves move (the moved constraint's group) with both limits
  finite (``d_i`` the distance to the nearer limit, ``h_i`` half the range): 0 with every
  limited coordinate mid-range, 1 on a limit (0 without limits).

The rig is never written: the solves work on the solver's copy of the pose.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise
from typing import TYPE_CHECKING, cast

import numpy as np

from ... import solver
from ..blender.model_space import model_space
from ..errors import RigError
from ..rig.build import bone_world_matrix
from ..rig.size import solver_degrees
from ..solve.armature_solver import ArmatureSolver
from ..solve.unevaluated import FollowedTargets, check_armature
from .farthest import out_of_reach
from .samples import sphere_grid

if TYPE_CHECKING:
    import bpy

    from ...props.groups import ReachConstraint, ReachSettings
    from ..rig.goals import GoalBinding

#: Effort measures by name: (label, description).
EFFORTS = {
    "MOTION": ("Joint Motion", "How far the joints turn from the current pose"),
    "LIMITS": (
        "Limit Closeness",
        "How close the pose comes to a joint limit (0 mid-range, 1 at it)",
    ),
}
#: Samples solved one by one per step of the job (a step runs between two looks at ESC).
SAMPLES_PER_STEP = 50
#: Samples solved as one batch per step (``solver.BatchSolver``).
BATCH_SAMPLES = 500
#: Iterations a batched sample gets: one still short of its goal then is solved again one by
#: one (as a Solve), so the cap decides only how much of the work the batch does.
BATCH_ITERATIONS = 40
#: Length of the nudge off the current pose that every batched sample starts from (radians).
NUDGE = 1e-3
#: The sampled ball's radius over the chain's span: the boundary lies inside the grid.
MARGIN = 1.05
#: Goal kinds whose point an envelope moves.
POINT_KINDS = ("POSITION", "POSITION_ORIENTATION")


class EnvelopeError(RigError):
    """The envelope cannot be made for this constraint; the message names what to fix."""


@dataclass(frozen=True)
class Envelope:
    """The outcome of a reach map.

    Attributes:
        points: (N, 3) world sample points, scene units.
        reached: (N,) whether each was reached.
        effort: (N,) effort of each reached sample (NaN for the others).
        spacing: the grid's spacing, scene units.
        constraint: the constraint's name.
        effort_kind: a key of :data:`EFFORTS`.
        missed: the other constraints that cannot hold (then no sample is reached).
    """

    points: np.ndarray
    reached: np.ndarray
    effort: np.ndarray
    spacing: float
    constraint: str
    effort_kind: str
    missed: tuple[str, ...] = ()


def chain_span(
    obj: bpy.types.Object, bones: list[str], effector: np.ndarray
) -> tuple[np.ndarray, float]:
    """Centre (3,) and reach (scene units) of a chain in the current pose.

    Args:
        obj: the armature.
        bones: the chain from the end-effector's bone up to its top moving bone.
        effector: (3,) the end-effector's world point.

    Returns:
        The top bone's world head and the longest distance the effector can be from it: the
        sum of the distances between consecutive heads up the chain and from the effector's
        bone head to the effector (a chain of rigid links reaches no further).
    """
    heads = [bone_world_matrix(obj, name)[:3, 3] for name in bones]
    path = [effector, *heads]
    reach = sum(float(np.linalg.norm(a - b)) for a, b in pairwise(path))
    return heads[-1], reach


class EnvelopeJob:
    """Solve the samples of one constraint's envelope, a step at a time (ESC between steps).

    Args:
        obj: the armature.
        settings: its Reach settings.
        scene, view_layer: where it is evaluated.
        constraint: the Reach constraint's name.
        per_axis: grid points a side (:func:`.samples.sphere_grid`).
        effort_kind: a key of :data:`EFFORTS`.
        orientation: the end-effector must also hold the target's orientation.

    Raises:
        EnvelopeError: the constraint is missing, disabled, in a group, not a point goal, or
            its target hangs off a bone the solve moves.
        RigError: the armature cannot be solved (as for a Solve).
    """

    def __init__(
        self,
        obj: bpy.types.Object,
        settings: ReachSettings,
        scene: bpy.types.Scene,
        view_layer: bpy.types.ViewLayer,
        constraint: str,
        per_axis: int,
        effort_kind: str = "MOTION",
        orientation: bool = False,
    ) -> None:
        if effort_kind not in EFFORTS:
            raise EnvelopeError(
                f"Envelope: unknown effort {effort_kind!r} (one of {list(EFFORTS)})"
            )
        item = settings.constraints.get(constraint)
        if item is None:
            raise EnvelopeError(f"Envelope: '{obj.name}' has no Reach constraint '{constraint}'")
        if not item.enabled:
            raise EnvelopeError(f"Envelope: constraint '{constraint}' is disabled; enable it first")
        if item.group:
            raise EnvelopeError(
                f"Envelope: constraint '{constraint}' is in the group '{item.group}' (any member "
                "may be met); take it out of the group first"
            )
        if item.goal_type not in POINT_KINDS:
            raise EnvelopeError(
                f"Envelope: constraint '{constraint}' has a {item.goal_type.title()} goal; an "
                "envelope needs a Position or Position & Orientation goal"
            )
        # A target Blender does not evaluate is followed while the targets are read, as by a
        # Solve (..solve.unevaluated): else its matrix is where it was last evaluated.
        check_armature(obj, view_layer)
        targets = [i.target for i in settings.constraints if i.enabled and i.target]
        followed = FollowedTargets(obj, targets, view_layer)
        try:
            self._arm = ArmatureSolver(obj, settings, scene, view_layer)
            rig = self._arm.rig
            index = next(k for k, spec in enumerate(rig.specs) if spec.name == constraint)
            spec, base = rig.specs[index], rig.constraints[index]
            if spec.bindings[0].carrier is not None:
                raise EnvelopeError(
                    f"Envelope: the target of '{constraint}' hangs off a bone the solve moves; "
                    "an envelope needs a target in the world"
                )
            self._goal, effector = _moving_goal(base, spec.bindings[0], item, orientation, obj)
        finally:
            followed.release()
        #: One line per target followed, for the report.
        self.notes = tuple(followed.notes)
        self.constraint = constraint
        self.effort_kind = effort_kind
        self._effector = effector
        moved = solver.Constraint(effector, self._goal, base.weight, base.chain_root, base.name)
        constraints = [moved if k == index else c for k, c in enumerate(rig.constraints)]
        options = self._arm.solver.options
        # Only the constraints that interact with the moved one are solved at each sample; the
        # others are met or missed whatever it does: solved once, from the current pose.
        groups = solver.independent_groups(solver.Solver(rig.figure, constraints, options))
        mine = next(g for g in groups if index in g)
        others = [constraints[k] for g in groups if g != mine for k in g]
        self._start = rig.initial()
        self._held = self._start
        self.missed: tuple[str, ...] = ()  # other constraints that cannot hold
        if others:
            held = solver.Solver(rig.figure, others, options).solve(self._start)
            self._held = held.x
            self.missed = held.unmet
        group = [constraints[k] for k in mine]
        self._solver = solver.Solver(rig.figure, group, options)
        # The samples go in batches (damped least squares, the same tolerances and restarts)
        # while the batch covers the group; one by one by the armature's method otherwise.
        self._batch: solver.BatchSolver | None = solver.BatchSolver(
            rig.figure,
            group,
            options.replace(method="dls", restarts=0, max_iterations=BATCH_ITERATIONS),
        )
        self._name = moved.name
        # The coordinates the samples' solves move: the only ones whose limits effort reads.
        variables = self._solver.problem.variables
        lower, upper = rig.figure.coordinate_bounds()
        self._lower, self._upper = lower[variables], upper[variables]
        self._moved = variables
        # The batch starts every sample a little off the current pose (:func:`_nudge`): a
        # straight chain at rest is a saddle for every sample, which a single solve leaves
        # by its first restart (a nudge). One nudge up front and no restarts: an unreached
        # sample runs once, not twice.
        self._nudged = self._held.copy()
        self._nudged[variables] += _nudge(self._held[variables], self._lower, self._upper)
        self._space = model_space(np.array(obj.matrix_world, dtype=float))
        chain = _chain(obj, spec.bone, spec.root, set(rig.solved))
        if not chain:
            raise EnvelopeError(f"Envelope: no bone of '{constraint}'s chain moves in a solve")
        m = bone_world_matrix(obj, spec.bone)
        centre, reach = chain_span(obj, chain, m[:3, :3] @ spec.point + m[:3, 3])
        if not reach > 0.0:
            raise EnvelopeError(f"Envelope: the chain of '{constraint}' has no length")
        self.points, self.spacing = sphere_grid(centre, MARGIN * reach, per_axis)
        self.reached = np.zeros(len(self.points), dtype=bool)
        self.effort = np.full(len(self.points), np.nan)
        # Samples no pose can reach (:func:`.farthest.out_of_reach`): decided without a solve.
        model = (self.points - self._space.origin) @ self._space.linear.T
        self._beyond = out_of_reach(
            self._solver, self._held, chain[-1], self._effector, self._goal, model
        )
        self._queue = np.flatnonzero(~self._beyond)  # samples to solve, in order
        self._batched = self._batch is not None and not self.missed  # the queue's way
        self.index = int(self._beyond.sum())  # known unreached: nothing to solve

    @property
    def total(self) -> int:
        """Solves so far and still queued."""
        return self.index + len(self._queue)

    @property
    def done(self) -> bool:
        """Whether every sample has its verdict."""
        return not len(self._queue)

    def step(self) -> None:
        """Solve the next queued samples: :data:`BATCH_SAMPLES` as one batch, or
        :data:`SAMPLES_PER_STEP` one by one (the second pass, or a group the batch does not
        cover). When the batched pass ends, its unreached samples next to a reached one are
        queued again, to be solved one by one as a Solve would (see the module doc)."""
        size = BATCH_SAMPLES if self._batched else SAMPLES_PER_STEP
        chosen, self._queue = self._queue[:size], self._queue[size:]
        if not self.missed:  # nothing is reached while another constraint cannot hold
            world = self.points[chosen]
            model = (world - self._space.origin) @ self._space.linear.T
            reached, q = self._solve(model) if self._batched else self._solve_each(model)
            self.reached[chosen] = reached
            self.effort[chosen[reached]] = self._efforts(q[reached])
        self.index += len(chosen)
        if self._batched and not len(self._queue):
            self._batched = False
            self._queue = np.flatnonzero(~self.reached & ~self._beyond)

    def _solve(self, points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Whether each goal point (n, 3) (the model's world) is reached, and the solved
        coordinates (n, n_coords): one batch, or one by one when the batch refuses the
        group (from then on)."""
        assert self._batch is not None
        try:
            out = self._batch.solve({self._name: {"point": points}}, self._nudged)
        except solver.InvalidInputError:  # a goal or row the batch does not cover
            self._batch, self._batched = None, False
            return self._solve_each(points)
        return out.success, out.x

    def _solve_each(self, points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`_solve` one point at a time, as a Solve would (the armature's method)."""
        reached = np.zeros(len(points), dtype=bool)
        q = np.empty((len(points), len(self._held)))
        for k, point in enumerate(points):
            self._goal.point = point
            result = self._solver.solve(self._held)
            reached[k], q[k] = result.success, result.x
        return reached, q

    def cancel(self) -> None:
        """Stop; nothing was written, so nothing to put back."""
        self._queue = self._queue[:0]

    def progress_text(self) -> str:
        """What the job does next, for the status bar."""
        what = "sample" if self._batched or self._batch is None else "edge sample"
        return f"Reach envelope of '{self.constraint}': {what} {self.index + 1} of {self.total}"

    def result(self) -> Envelope:
        """The samples, their verdicts and efforts."""
        return Envelope(
            self.points, self.reached, self.effort, self.spacing, self.constraint,
            self.effort_kind, self.missed,
        )  # fmt: skip

    def _efforts(self, q: np.ndarray) -> np.ndarray:
        """The efforts (n,) (see the module doc) of solved coordinates ``q`` (n, n_coords)."""
        if self.effort_kind == "MOTION":
            return np.linalg.norm(q - self._start, axis=1)
        limited = np.isfinite(self._lower) & np.isfinite(self._upper) & (self._upper > self._lower)
        if not limited.any():
            return np.zeros(len(q))
        lo, hi = self._lower[limited], self._upper[limited]
        x = q[:, self._moved][:, limited]
        half = 0.5 * (hi - lo)
        return np.clip(1.0 - np.minimum(x - lo, hi - x) / half, 0.0, 1.0).max(axis=1)


def _nudge(q: np.ndarray, lower: np.ndarray, upper: np.ndarray) -> np.ndarray:
    """A fixed small step (n,) off coordinates ``q`` (n,) within ``lower``/``upper``: length
    :data:`NUDGE`, along a fixed pseudo-random direction whose components point into each
    limited coordinate's range (towards its middle), so no component is cut by a limit the
    coordinate rests on."""
    direction = np.abs(np.random.default_rng(0).standard_normal(len(q)))
    flip = np.random.default_rng(1).random(len(q)) < 0.5
    both = np.isfinite(lower) & np.isfinite(upper)
    middle = np.where(np.isfinite(lower), np.inf, -np.inf)  # one limit or none: away from it
    middle[both] = 0.5 * (lower[both] + upper[both])
    toward = np.where(np.isfinite(lower) | np.isfinite(upper), np.sign(middle - q), 0.0)
    sign = np.where(toward != 0.0, toward, np.where(flip, -1.0, 1.0))
    step = sign * direction
    return NUDGE * step / np.linalg.norm(step)


def _chain(obj: bpy.types.Object, bone: str, root: str | None, solved: set[str]) -> list[str]:
    """The chain's bones from ``bone`` up to its top moving bone (one of ``solved``), stopping
    at ``root`` when given; empty when none of them moves."""
    out: list[str] = []
    pb = cast("bpy.types.Pose", obj.pose).bones[bone]
    while pb is not None:
        out.append(pb.name)
        if pb.name == root:
            break
        pb = pb.parent
    while out and out[-1] not in solved:
        out.pop()
    return out


def _moving_goal(
    base: solver.Constraint,
    binding: GoalBinding,
    item: ReachConstraint,
    orientation: bool,
    obj: bpy.types.Object,
) -> tuple[solver.PositionGoal | solver.PositionOrientationGoal, solver.EndEffector]:
    """The goal whose point the envelope moves (the constraint's own when it asks what the
    envelope asks: this solver's rig is the envelope's), and the end-effector it acts on."""
    effector, goal = base.effector, base.goal
    if isinstance(goal, solver.PositionOrientationGoal):
        if orientation:
            return goal, effector
        return solver.PositionGoal(goal.point), solver.EndEffector(effector.segment, effector.point)
    assert isinstance(goal, solver.PositionGoal), "the item's goal type is checked first"
    if not orientation:
        return goal, effector
    # A Position constraint: the bone's own X and Y held to the target's axes.
    _point, axes = binding.target_frame()
    axes = model_space(np.array(obj.matrix_world, dtype=float)).direction(axes)
    held = solver.PositionOrientationGoal(
        goal.point, axes[:, 0], axes[:, 1], degrees=solver_degrees(item)
    )
    return held, solver.EndEffector(
        effector.segment, effector.point, (1.0, 0.0, 0.0), (0.0, 1.0, 0.0)
    )
