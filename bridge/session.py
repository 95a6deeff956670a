"""``RigSession``: one armature's way from the scene to the solver and back.

Data flows scene -> bridge -> solver -> bridge -> scene: the session builds the rig from the
armature and its Reach settings, solves, writes the pose, lets Blender evaluate it, measures
every constraint on that evaluation (:mod:`.measure`), runs correction passes when Blender's
pose and the model disagree (:mod:`.correction`), and returns a :class:`.report.FrameReport`
that only says "reached" for what was measured within tolerance. Operators call it and turn
its errors into reports; ``bpy`` is reached only through the objects passed in.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .. import solver
from . import bake, busy, convert, keys
from .bake import BakeReport
from .convert import Conversion
from .correction import Corrector
from .diagnose import explain
from .measure import MeasuredResidual, measure
from .model_space import model_space
from .playback import builtin_ik
from .pole_start import start_at_poles
from .report import WEIGHT_ZERO, ConstraintOutcome, FrameReport, status_in_words
from .rig import BoneChannels, Rig, RigError, build_rig, solver_options
from .rig_goals import ConstraintPlan
from .swing_refine import solve_refined

if TYPE_CHECKING:
    import bpy

    from ..operators.properties import ReachSettings

#: Correction passes at most after the first solve (each: solve, write, evaluate, measure).
MAX_PASSES = 12
#: Correction stops after this many passes in a row without a better measured pose.
STALL_PASSES = 3


@dataclass
class _Pass:
    """One solve's outcome as Blender evaluated it."""

    result: solver.IKResult
    channels: dict[str, BoneChannels]
    measured: list[MeasuredResidual]

    def score(self, tolerance: float, angle_tolerance: float, counted: Sequence[bool]) -> float:
        """Sum of the measured errors beyond tolerance, in tolerances, over the ``counted``
        constraints (weight > 0): 0 when every one of them is reached."""
        total = 0.0
        for m, count in zip(self.measured, counted, strict=True):
            if not count:
                continue
            if m.distance is not None:
                total += max(m.distance / tolerance - 1.0, 0.0)
            if m.angle is not None:
                total += max(m.angle / angle_tolerance - 1.0, 0.0)
        return total


class RigSession:
    """Solve, measure and report for one armature.

    Args:
        obj: the armature object.
        settings: its Reach settings (``obj.reach_ik``).
        scene: the scene (``context.scene``): current frame, frame changes of a bake.
        view_layer: the view layer Blender evaluates the pose in (``context.view_layer``).
        only_selected: use only constraints whose Select box is ticked.

    Raises:
        RigError: the scene cannot be solved; the message names what to fix.
    """

    def __init__(
        self,
        obj: bpy.types.Object,
        settings: ReachSettings,
        scene: bpy.types.Scene,
        view_layer: bpy.types.ViewLayer,
        only_selected: bool = False,
    ) -> None:
        self.obj = obj
        self.settings = settings
        self.scene = scene
        self.view_layer = view_layer
        self.only_selected = only_selected
        self.rig: Rig = build_rig(obj, settings, only_selected)
        # Restarts bounded as in a bake: only near the current pose, so a Solve keeps the
        # pose's branch and an out-of-reach goal answers at once (the solver's default search
        # runs until its 1 s time limit whenever a goal is missed).
        self.solver = solver.Solver(
            self.rig.figure, self.rig.constraints, **solver_options(settings),
            restarts=bake.RESTARTS,
        )  # fmt: skip
        self._fresh = True  # the rig holds the scene as just read: no refresh before a solve

    def refresh(self) -> None:
        """Re-read what a solve starts from without rebuilding: the pose of every figure bone,
        the armature's placement and the targets (and check the aim goals again).

        :meth:`solve_frame` calls it, except right after the session was built.

        Raises:
            RigError: a target was deleted, is not finite, or sits on an aim effector.
        """
        rig = self.rig
        rig.read_pose(solved_too=True)
        rig.push_rest()
        rig.update_targets()
        ConstraintPlan(specs=rig.specs).check_aim(rig, RigError)
        self._fresh = True

    # ------------------------------------------------------------------ editing
    @staticmethod
    def convert_builtin_ik(context: bpy.types.Context, obj: bpy.types.Object) -> Conversion:
        """Turn ``obj``'s built-in IK constraints into Reach constraints (see :mod:`.convert`;
        ``context`` gives the file and scene where pole-plane helper empties are made).

        A static method: an armature with only built-in IK has no Reach constraint yet, so
        no session can be built for it before the conversion.
        """
        return convert.convert_builtin_ik(context, obj)

    # ------------------------------------------------------------------ a frame range
    def bake(
        self,
        frames: Sequence[int],
        mode: str = "REPLACE",
        progress: Callable[[int, int], None] | None = None,
    ) -> BakeReport:
        """Bake ``frames`` into keys on the solved channels (see :mod:`.bake`), residuals
        measured on Blender's pose at every frame.

        ``progress(done, total)`` is called after every step. Any exception restores the
        scene and is raised as :class:`.bake.BakeError`; nothing is written.
        """
        return bake.bake(self.obj, self.settings, frames, mode, progress, scene=self.scene,
                         only_selected=self.only_selected,
                         depsgraph=self.view_layer.depsgraph)  # fmt: skip

    # ------------------------------------------------------------------ one frame
    def _evaluate(self, result: solver.IKResult) -> _Pass:
        """Apply a solution, write it, let Blender evaluate it and measure it."""
        rig = self.rig
        rig.apply(result)
        channels = rig.channels()
        rig.write_pose(channels)
        self.view_layer.update()
        depsgraph = self.view_layer.depsgraph
        measured = measure(rig, depsgraph, self.settings.tolerance, self.settings.angle_tolerance)
        return _Pass(result, channels, measured)

    def _solve(self) -> solver.IKResult:
        """Solve from the rig's start, refining the swing polygons that hold the pose."""
        return solve_refined(self.solver, self.rig.solved.values(), self.rig.initial())

    def _disagrees(self, measured: MeasuredResidual, modelled: solver.Residual) -> bool:
        """Measured and modelled residuals differ by more than the tolerance (a distance in
        a sheared armature's space may be up to its spread shorter in the world)."""
        tol, angle_tol = self.settings.tolerance, self.settings.angle_tolerance
        space = model_space(np.array(self.obj.matrix_world, dtype=float))
        d = space.beyond(modelled.distance or 0.0, measured.distance or 0.0)
        a = abs((measured.angle or 0.0) - (modelled.angle or 0.0))
        return d > tol or a > angle_tol

    def solve_frame(self, insert_keys: bool = False, frame: float | None = None) -> FrameReport:
        """Solve at the current frame, write the pose (and keys), measure, correct, report.

        Args:
            insert_keys: key the solved channels (only those) at ``frame``.
            frame: the frame keys go on (the scene's current frame).

        Returns:
            The report; ``satisfied`` only when every constraint is within tolerance on
            Blender's evaluated pose.

        Raises:
            RigError: a target was deleted or is not finite, an aim target sits on its
                effector.
        """
        with busy.holding(self.obj):  # live posing leaves the armature alone meanwhile
            return self._solve_frame(insert_keys, frame)

    def _solve_frame(self, insert_keys: bool, frame: float | None) -> FrameReport:
        rig = self.rig
        if not self._fresh:
            self.refresh()
        self._fresh = False
        start_at_poles(rig)  # converted pole chains start where Blender's IK starts
        first = self._evaluate(self._solve())
        modelled = first.result.residuals
        counted = [c.weight > 0.0 for c in rig.constraints]
        wrong = [
            i
            for i, (m, r) in enumerate(zip(first.measured, modelled, strict=True))
            if not m.satisfied and self._disagrees(m, r) and counted[i]
        ]
        best, passes, iterations, seconds = self._correct(first, wrong, counted)
        n_keys = self._key(best, frame) if insert_keys else 0
        return self._report(first, best, wrong, passes, iterations, seconds, n_keys)

    def _correct(
        self, first: _Pass, wrong: list[int], counted: list[bool]
    ) -> tuple[_Pass, int, int, float]:
        """Correction passes on the ``wrong`` constraints (see :mod:`.correction`).

        Returns the best measured pass (written in the pose), the number of passes, and the
        solver iterations and seconds over all solves, the first included.
        """
        rig = self.rig
        tol, angle_tol = self.settings.tolerance, self.settings.angle_tolerance
        best = last = first
        passes, stalled = 0, 0  # stalled: passes in a row that did not improve on the best
        iterations, seconds = first.result.nit, first.result.time
        if not wrong:  # Blender's pose agrees with the model: no pass, goals untouched
            return best, passes, iterations, seconds
        depsgraph = self.view_layer.depsgraph
        corrector = Corrector()
        restarts, self.solver.restarts = self.solver.restarts, 0  # refine, never jump away
        try:
            while wrong and passes < MAX_PASSES and stalled < STALL_PASSES:
                if best.score(tol, angle_tol, counted) == 0.0:
                    break
                frames = rig.figure.forward(last.result.x)  # the model's segment frames
                for i in wrong:
                    spec = rig.specs[i]
                    frame = frames[spec.effector_segment]
                    corrector.retarget(rig, spec, last.measured[i], frame, depsgraph)
                rig.push_rest()
                last = self._evaluate(self._solve())
                passes += 1
                iterations += last.result.nit
                seconds += last.result.time
                if last.score(tol, angle_tol, counted) < best.score(tol, angle_tol, counted):
                    best, stalled = last, 0
                else:
                    stalled += 1
        finally:
            self.solver.restarts = restarts
            rig.update_targets()  # the goals back on the true targets
        if best is not last:  # later passes did worse: keep the best pose
            rig.write_pose(best.channels)
            self.view_layer.update()
            rig.read_pose(solved_too=True)
            rig.push_rest()
        return best, passes, iterations, seconds

    def _key(self, chosen: _Pass, frame: float | None) -> int:
        """Key the solved channels of ``chosen`` at ``frame``; return the number of keys."""
        rig = self.rig
        at = float(frame if frame is not None else self.scene.frame_current)
        data = {
            key: (np.array([at]), np.array([keys.channel_value(chosen.channels, *key)]))
            for key in keys.solved_channels(rig)
        }
        return keys.write_keys(self.obj, data, (at, at), "LAYER")

    def _unevaluated_targets(self) -> list[str]:
        """One note per target object outside the view layer: Blender never updates its
        world matrix, so the goal sits where that matrix last was (the origin if never)."""
        names = {b.target.name for spec in self.rig.specs for b in spec.bindings}
        return [
            f"target '{name}' is not in the view layer: Blender does not update its transform"
            for name in sorted(names)
            if self.view_layer.objects.get(name) is None
        ]

    def _report(
        self,
        first: _Pass,
        best: _Pass,
        wrong: list[int],
        passes: int,
        iterations: int,
        seconds: float,
        n_keys: int,
    ) -> FrameReport:
        rig = self.rig
        outcomes = []
        for i, (m, r) in enumerate(zip(best.measured, first.result.residuals, strict=True)):
            reason = ""
            if rig.constraints[i].weight == 0.0:
                reason = WEIGHT_ZERO
            elif i in wrong and not m.satisfied:
                reason = explain(self.obj, rig.specs[i])
            elif i in wrong:
                reason = f"reached after correction ({explain(self.obj, rig.specs[i])})"
            outcomes.append(ConstraintOutcome(m, r.distance, r.angle, reason))
        counted = [o for o, c in zip(outcomes, rig.constraints, strict=True) if c.weight > 0.0]
        satisfied = all(o.satisfied for o in counted)
        result = best.result
        status = status_in_words(
            satisfied,
            all(r.satisfied for r in first.result.residuals),
            result.status in (solver.Status.MAX_ITERATIONS, solver.Status.TIME_LIMIT),
            bool(result.active_set),
        )
        notes = list(rig.notes)
        ik = builtin_ik(rig)
        if ik:
            notes.append(f"{len(ik)} built-in IK constraint(s) still override these bones")
        notes += self._unevaluated_targets()
        return FrameReport(
            status=status,
            satisfied=satisfied,
            constraints=tuple(outcomes),
            passes=passes,
            iterations=iterations,
            seconds=seconds,
            dof=len(rig.figure.coordinate_names),
            bones=len(rig.solved),
            keys=n_keys,
            notes=tuple(notes),
        )
