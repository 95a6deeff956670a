"""A Solve at one frame, in steps: the first solve, then each correction pass, then the keys.

:meth:`..session.rig_session.RigSession.solve_frame` drives a :class:`FrameSolve` to the end in one
call (scripts, live posing, background Blender); the modal Solve operator calls
:meth:`FrameSolve.step` once per timer event, so ESC is seen between steps, and
:meth:`FrameSolve.cancel` puts the pose back exactly as it was before the first step. Each step
solves, writes the pose, lets Blender evaluate it and measures every constraint on that evaluation
(:mod:`..measure.residuals`); correction passes (:mod:`.correction`) run while Blender's pose and
the model disagree.

``bpy`` is reached only through the objects passed in.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ... import solver
from ..blender.model_space import model_space
from ..measure.conditioning_readout import ConditioningReadout
from ..measure.determinacy_readout import DeterminacyReadout
from ..measure.diagnose import explain
from ..measure.frame_report import WEIGHT_ZERO, ConstraintOutcome, FrameReport, status_in_words
from ..measure.playback_overrides import builtin_ik
from ..measure.residuals import MeasuredResidual, measure
from ..rig.build import BoneChannels
from ..rig.size import distance_tolerance
from ..rig.targets import check_targets
from ..write import keys
from ..write.saved_state import SavedPose
from .correction import Corrector
from .held_steps import HeldSteps
from .pole_start import start_at_poles
from .swing_refine import solve_refined
from .unevaluated import FollowedTargets, check_armature, refuse_unevaluated_targets

if TYPE_CHECKING:
    import bpy

    from .armature_solver import ArmatureSolver

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
        constraints (weight > 0): 0 when every one of them is reached (a distance within the
        float32 resolution of its coordinates counts as reached, see :mod:`..measure.residuals`)."""
        total = 0.0
        for m, count in zip(self.measured, counted, strict=True):
            if not count:
                continue
            if m.distance is not None:
                total += max(m.distance / max(tolerance, m.resolution) - 1.0, 0.0)
            if m.angle is not None:
                total += max(m.angle / angle_tolerance - 1.0, 0.0)
        return total


class FrameSolve(HeldSteps[FrameReport]):
    """One Solve of ``session``'s armature at the current frame, run step by step.

    Construction records every pose channel of the armature when ``restorable`` (nothing is
    solved yet), so :meth:`cancel` can put them back. Each :meth:`step` does one solver run
    and its measurement (the first solve, or one correction pass); the last step also keys the
    solved channels (when ``insert_keys``) and makes the :attr:`report`. Keys are written only
    by that last step, so a Solve cancelled between steps has written none. While unfinished,
    the armature is held (:mod:`..blender.busy_armatures`): live posing leaves it alone.
    A step raises RigError for a target deleted, not finite or at infinity, an aim target on
    its effector, an armature Blender does not evaluate, or a target it does not evaluate when
    ``follow_hidden`` is False (the hold is released; the pose is as the failing step left it).

    Args:
        session: the armature's session (its rig, solver and settings).
        insert_keys: key the solved channels (only those) at ``frame``.
        frame: the frame keys go on (the scene's current frame when None).
        restorable: record the pose for :meth:`cancel`
            (:meth:`..session.rig_session.RigSession.solve_frame`, which never cancels, does not).
        follow_hidden: follow targets Blender does not evaluate for the time of the solve
            (:class:`.unevaluated.FollowedTargets`); False refuses them (live posing, whose
            handlers must not change the depsgraph's relations).
        options: the solver options of this Solve (None: the session solver's own); the
            correction passes use them without restarts.

    Attributes:
        report: the finished Solve's report (None until :attr:`done`).
        passes: correction passes run so far.
        options: the solver options of this Solve.
    """

    def __init__(
        self,
        session: ArmatureSolver,
        insert_keys: bool = False,
        frame: float | None = None,
        restorable: bool = True,
        follow_hidden: bool = True,
        options: solver.Options | None = None,
    ) -> None:
        self.session = session
        self.options = session.solver.options if options is None else options
        self.follow_hidden = follow_hidden
        self._followed: FollowedTargets | None = None
        self.insert_keys = insert_keys
        self.frame = frame
        self.report: FrameReport | None = None
        self.passes = 0
        self._started = False  # the first solve has run
        self._iterations = 0  # solver iterations over all solves so far
        self._seconds = 0.0  # solver seconds over all solves so far
        # One foreach_get per channel kind (about 0.1 ms on Rigify's 159-bone metarig, where
        # reading each bone's channels took 1 ms); not for one-call solves, which never cancel.
        self._pose = SavedPose.capture(session.obj) if restorable else None
        self._steps = self._run()

    def progress_text(self) -> str:
        """What the next step does, for the status bar: "Reach: solving 'Armature' - first
        solve", then "... - pass 3/12" (a correction pass, of at most :data:`MAX_PASSES`)."""
        what = f"pass {self.passes + 1}/{MAX_PASSES}" if self._started else "first solve"
        return f"Reach: solving '{self.session.obj.name}' - {what}"

    def cancel(self) -> None:
        """Stop, and put every pose channel of the armature back as it was at construction
        (bit for bit: the values read are written back) and let Blender evaluate it.

        Raises:
            InvalidInputError: the solve was made with ``restorable=False``.
        """
        if self._pose is None:
            raise solver.InvalidInputError("restorable=False: no pose was recorded to restore")
        self._steps.close()
        self._ended = True
        session = self.session
        self._pose.restore(session.obj)  # the channels that differ; deleted bones skipped
        session.view_layer.update()
        session.mark_stale()  # the rig holds the solved pose: re-read it before a solve
        self._release()

    def _held_objects(self) -> Sequence[bpy.types.Object]:
        return (self.session.obj,)

    def _release(self) -> None:
        if self._followed is not None:
            self._followed.release()
        super()._release()

    def _follow(self) -> None:
        """Before the scene is read: refuse an armature Blender does not evaluate, and follow
        (or refuse) targets it does not evaluate (:mod:`.unevaluated`)."""
        session = self.session
        check_armature(session.obj, session.view_layer)
        bindings = session.rig.bindings
        if not self.follow_hidden:
            refuse_unevaluated_targets(session.obj, bindings, session.view_layer)
            return
        targets = [b.target for b in bindings]
        self._followed = FollowedTargets(session.obj, targets, session.view_layer)
        if self._followed.objects:
            session.mark_stale()  # the targets moved to this frame: read them again

    # ------------------------------------------------------------------ the steps
    def _run(self) -> Generator[None, None, None]:
        """The steps; each ``yield`` ends one solver run and its measurement."""
        session = self.session
        rig = session.rig
        self._follow()
        session.prepare()
        check_targets(rig)  # refused at infinity, as a bake refuses it
        start_at_poles(rig)  # converted pole chains start where Blender's IK starts
        first = self._evaluate(self._solve())
        self._started = True
        modelled = first.result.residuals
        counted = [c.weight > 0.0 for c in rig.constraints]
        wrong = [
            i
            for i, (m, r) in enumerate(zip(first.measured, modelled, strict=True))
            if not m.satisfied and self._disagrees(m, r) and counted[i]
        ]
        best = yield from self._correct(first, wrong, counted)
        n_keys = self._key(best) if self.insert_keys else 0
        self.report = self._report(first, best, wrong, n_keys)

    def _evaluate(self, result: solver.IKResult) -> _Pass:
        """Apply a solution, write it, let Blender evaluate it and measure it."""
        session = self.session
        rig = session.rig
        rig.apply(result)
        channels = rig.channels()
        rig.write_pose(channels)
        session.view_layer.update()
        settings = session.settings
        measured = measure(rig, session.view_layer.depsgraph, self._tolerance(),
                           settings.angle_tolerance)  # fmt: skip
        self._iterations += result.nit
        self._seconds += result.time
        return _Pass(result, channels, measured)

    def _solve(self, options: solver.Options | None = None) -> solver.IKResult:
        """Solve from the rig's start with ``options`` (None: :attr:`options`), refining the
        swing polygons that hold the pose."""
        session, rig = self.session, self.session.rig
        return solve_refined(session.solver, rig.solved.values(), rig.initial(),
                             self.options if options is None else options)  # fmt: skip

    def _tolerance(self) -> float:
        """The distance tolerance, scene units (relative to the rig when *Automatic*)."""
        return distance_tolerance(self.session.settings, self.session.rig.length)

    def _disagrees(self, measured: MeasuredResidual, modelled: solver.Residual) -> bool:
        """Measured and modelled residuals differ by more than the tolerance and by more than
        the float32 resolution of the coordinates (Blender's round-off is no model mismatch;
        a distance in a sheared armature's space may be up to its spread shorter in the
        world)."""
        settings = self.session.settings
        space = model_space(np.array(self.session.obj.matrix_world, dtype=float))
        d = space.beyond(modelled.distance or 0.0, measured.distance or 0.0)
        a = abs((measured.angle or 0.0) - (modelled.angle or 0.0))
        return d > max(self._tolerance(), measured.resolution) or a > settings.angle_tolerance

    def _correct(
        self, first: _Pass, wrong: list[int], counted: list[bool]
    ) -> Generator[None, None, _Pass]:
        """Correction passes on the ``wrong`` constraints (see :mod:`.correction`), one step
        each (the first solve's step ends before the first pass); returns the best measured
        pass, written in the pose."""
        session = self.session
        rig = session.rig
        tol, angle_tol = self._tolerance(), session.settings.angle_tolerance
        best = last = first
        stalled = 0  # passes in a row that did not improve on the best
        if not wrong:  # Blender's pose agrees with the model: no pass, goals untouched
            return best
        depsgraph = session.view_layer.depsgraph
        corrector = Corrector()
        refining = self.options.replace(restarts=0)  # refine, never jump away
        try:
            while wrong and self.passes < MAX_PASSES and stalled < STALL_PASSES:
                if best.score(tol, angle_tol, counted) == 0.0:
                    break
                yield  # the first solve, or the previous pass, is one step
                frames = rig.figure.forward(last.result.x)  # the model's segment frames
                for i in wrong:
                    spec = rig.specs[i]
                    frame = frames[spec.effector_segment]
                    corrector.retarget(rig, spec, last.measured[i], frame, depsgraph)
                rig.push_rest()
                last = self._evaluate(self._solve(refining))
                self.passes += 1
                if last.score(tol, angle_tol, counted) < best.score(tol, angle_tol, counted):
                    best, stalled = last, 0
                else:
                    stalled += 1
        finally:
            rig.update_targets()  # the goals back on the true targets
        if best is not last:  # later passes did worse: keep the best pose
            rig.write_pose(best.channels)
            session.view_layer.update()
            rig.read_pose(solved_too=True)
            rig.push_rest()
        return best

    def _key(self, chosen: _Pass) -> int:
        """Key the solved channels of ``chosen`` at the frame; return the number of keys."""
        session = self.session
        at = float(self.frame if self.frame is not None else session.scene.frame_current)
        data = {
            key: (np.array([at]), np.array([keys.channel_value(chosen.channels, *key)]))
            for key in keys.solved_channels(session.rig)
        }
        return keys.write_keys(session.obj, data, (at, at), "LAYER")

    def _report(self, first: _Pass, best: _Pass, wrong: list[int], n_keys: int) -> FrameReport:
        session = self.session
        rig, obj = session.rig, session.obj
        outcomes = []
        for i, (m, r) in enumerate(zip(best.measured, first.result.residuals, strict=True)):
            reason = ""
            if rig.constraints[i].weight == 0.0:
                reason = WEIGHT_ZERO
            elif i in wrong and not m.satisfied:
                reason = explain(obj, rig.specs[i], rig.solved)
            elif i in wrong:
                reason = f"reached after correction ({explain(obj, rig.specs[i], rig.solved)})"
            ignored = rig.constraints[i].weight == 0.0
            outcomes.append(ConstraintOutcome(m, r.distance, r.angle, reason, ignored))
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
        if self._followed is not None:
            notes += self._followed.notes
        return FrameReport(
            status=status,
            satisfied=satisfied,
            constraints=tuple(outcomes),
            passes=self.passes,
            iterations=self._iterations,
            seconds=self._seconds,
            dof=len(rig.figure.coordinate_names),
            bones=len(rig.solved),
            keys=n_keys,
            notes=tuple(notes),
            method=self.options.method_name,
            conditioning=ConditioningReadout(result, tuple(rig.solved.values())),
            determinacy=DeterminacyReadout(result, tuple(rig.solved.values())),
        )
