"""A Solve of several armatures at one frame as one system (:mod:`.figure`).

Every armature is read as for a Solve of it alone (its kept
:class:`..solve.armature_solver.ArmatureSolver`: pose, placement, targets), the join solves every
armature's joints in one solver run, each armature's share of the solution is written into its
own pose, Blender evaluates them all once, and every constraint is measured on that evaluation:
a goal between two armatures is measured between the two evaluated bones. Where Blender's pose
and the model disagree, correction passes run over the whole join (:mod:`.correction`). The
report is per armature (:class:`JoinedReport`).

:class:`JoinedSolve` runs it step by step (the first solve, then each correction pass), so the
Solve operator runs it modally as it runs a Solve of one armature (ESC: every pose put back);
:func:`solve_joined` runs it in one go.

Not done here (a Solve of one armature does them): swing-polygon refinement, and following
targets Blender does not evaluate (they are refused, naming them).
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ... import solver
from ..measure.diagnose import explain
from ..measure.frame_report import WEIGHT_ZERO, ConstraintOutcome, FrameReport, status_in_words
from ..measure.residuals import MeasuredResidual
from ..rig.build import Rig, solver_options
from ..rig.targets import check_targets
from ..solve.armature_solver import ArmatureSolver
from ..solve.frame_solve import MAX_PASSES
from ..solve.held_steps import HeldSteps
from ..solve.pole_start import start_at_poles
from ..solve.unevaluated import check_armature, refuse_unevaluated_targets
from ..write import keys
from ..write.saved_state import SavedPose
from .correction import correct_steps, evaluate, mismatched
from .figure import JoinedFigure

if TYPE_CHECKING:
    import bpy

    from ...props.groups import ReachSettings


@dataclass(frozen=True)
class JoinedReport:
    """The outcome of one solve (or bake) over several armatures.

    Attributes:
        reports: (armature name, its report) per armature, the active one first.
        dof: degrees of freedom of the joined figure.
        seconds: solver time of the one solve, seconds.
        crossing: constraints whose goal is a bone of another armature of the join.
    """

    reports: tuple[tuple[str, FrameReport], ...]
    dof: int
    seconds: float
    crossing: tuple[str, ...] = ()

    @property
    def satisfied(self) -> bool:
        """Every armature's constraints within tolerance on Blender's evaluated pose."""
        return all(report.satisfied for _name, report in self.reports)

    def text(self) -> str:
        """The operator report: one summary line, then each armature's report, indented."""
        names = ", ".join(f"'{name}'" for name, _report in self.reports)
        lines = [
            f"Reach: {len(self.reports)} armatures solved as one system ({names}), "
            f"{self.dof} DOF, {self.seconds * 1000.0:.1f} ms"
        ]
        for name, report in self.reports:
            lines.append(f"Armature '{name}':")
            lines += [f"  {line}" for line in report.text().splitlines()]
        return "\n".join(lines)


def joined_options(
    rigs: Sequence[tuple[Rig, ReachSettings]], time_limit: float | None = None
) -> solver.Options:
    """The join's solver options from each (rig, its settings): the first armature's, with the
    tightest tolerances and the largest iteration count of all of them (every armature gets at
    least what it asks for); ``time_limit`` (seconds) replaces the solver's when given."""
    each = [solver_options(rig, settings) for rig, settings in rigs]
    tolerances = [o.tolerance for o in each if o.tolerance is not None]
    options = each[0].replace(
        tolerance=min(tolerances) if tolerances else None,
        angle_tolerance=min(o.angle_tolerance for o in each),
        max_iterations=max(o.max_iterations for o in each),
    )
    return options if time_limit is None else options.replace(time_limit=time_limit)


def prepare_members(members: Sequence[ArmatureSolver]) -> None:
    """Read every armature as a Solve of it alone reads it (refusing what it would refuse)."""
    for member in members:
        check_armature(member.obj, member.view_layer)
        refuse_unevaluated_targets(member.obj, member.rig.bindings, member.view_layer)
        member.prepare()
        check_targets(member.rig)
        start_at_poles(member.rig)


def member_report(
    member: ArmatureSolver,
    result: solver.IKResult,
    measured: Sequence[MeasuredResidual],
    wrong: Sequence[int],
    counts: tuple[solver.IKResult, int, int, str],
    others: str,
) -> FrameReport:
    """``member``'s report from its constraints ``measured`` on Blender's pose: ``result`` is
    its share of the kept pass, ``wrong`` the constraints correction passes ran for;
    ``counts``: the first joined result (status), the passes, the keys written and the solve
    method; ``others`` names the other armatures."""
    rig, obj = member.rig, member.obj
    first, passes, n_keys, method = counts
    outcomes = []
    for i, (spec, c, m, r) in enumerate(
        zip(rig.specs, rig.constraints, measured, result.residuals, strict=True)
    ):
        reason = ""
        if c.weight == 0.0:
            reason = WEIGHT_ZERO
        elif i in wrong and not m.satisfied:  # the model reached it, Blender's pose did not
            reason = explain(obj, spec, rig.solved)
        elif i in wrong:
            reason = f"reached after correction ({explain(obj, spec, rig.solved)})"
        outcomes.append(ConstraintOutcome(m, r.distance, r.angle, reason, c.weight == 0.0))
    counted = [o for o, c in zip(outcomes, rig.constraints, strict=True) if c.weight > 0.0]
    satisfied = all(o.satisfied for o in counted)
    status = status_in_words(
        satisfied,
        all(r.satisfied for r in result.residuals),
        first.status in (solver.Status.MAX_ITERATIONS, solver.Status.TIME_LIMIT),
        bool(result.active_set),
    )
    return FrameReport(
        status=status,
        satisfied=satisfied,
        constraints=tuple(outcomes),
        passes=passes,
        iterations=first.nit,
        seconds=first.time,
        dof=len(rig.figure.coordinate_names),
        bones=len(rig.solved),
        keys=n_keys,
        notes=(*rig.notes, f"solved as one system with {others}"),
        method=method,
    )


def _key(rig: Rig, channels: dict, frame: float) -> int:
    """Key ``rig``'s solved channels at ``frame``; return the number of keys."""
    data = {
        key: (np.array([frame]), np.array([keys.channel_value(channels, *key)]))
        for key in keys.solved_channels(rig)
    }
    return keys.write_keys(rig.obj, data, (frame, frame), "LAYER")


@dataclass(frozen=True)
class _KeptJoin:
    """The last join a Solve built, kept for the next Solve of the same rigs (the kept sessions
    give the same rig objects while nothing their build read has changed)."""

    rigs: tuple[Rig, ...]
    versions: tuple[int, ...]  # each rig figure's ``version`` (its layout, limits) at the build
    join: JoinedFigure
    solver: solver.Solver

    def fits(self, rigs: Sequence[Rig]) -> bool:
        """Whether this join holds ``rigs`` as a new one would (the same rig objects, none of
        whose figures changed its layout or limits since)."""
        return (
            len(rigs) == len(self.rigs)
            and all(a is b for a, b in zip(rigs, self.rigs, strict=True))
            and tuple(r.figure.version for r in rigs) == self.versions
        )


#: The last join (at most one: a join holds every member's rig).
_KEPT: list[_KeptJoin] = []


def _join_for(rigs: Sequence[Rig], options: solver.Options) -> _KeptJoin:
    """The kept join of ``rigs`` when it still fits, else a new one (kept in its place; its
    solver made with ``options``, each solve passes its own)."""
    if _KEPT and _KEPT[0].fits(rigs):
        return _KEPT[0]
    join = JoinedFigure(rigs)
    kept = _KeptJoin(tuple(rigs), tuple(r.figure.version for r in rigs), join,
                     solver.Solver(join.figure, join.constraints, options))  # fmt: skip
    _KEPT[:] = [kept]
    return kept


def clear() -> None:
    """Forget the kept join (tests, unregister)."""
    _KEPT.clear()


class JoinedSolve(HeldSteps[JoinedReport]):
    """One Solve of several armatures at the current frame as one system, run step by step
    (a :class:`..solve.frame_solve.FrameSolve` of several armatures): the first step solves
    the join, writes every armature's pose and measures it; each further step is one
    correction pass over the whole join (:func:`.correction.correct_steps`); the last one keys
    (when ``insert_keys``) and makes the :attr:`report`. Keys are written only by that last
    step. While unfinished, every armature is held (:mod:`..blender.busy_armatures`); a step
    raises RigError for an armature or target the join cannot solve (named; the hold is
    released, the poses are as the failing step left them).

    Args:
        members: one kept solver per armature (at least two), the active one first.
        insert_keys: key every armature's solved channels at ``frame``.
        frame: the frame keys go on (the scene's current frame when None).
        restorable: record every armature's pose for :meth:`cancel` (a Solve in one go,
            which never cancels, does not).

    Attributes:
        report: the finished Solve's report (None until :attr:`done`).
        passes: correction passes run so far.
    """

    def __init__(self, members: Sequence[ArmatureSolver], insert_keys: bool = False,
                 frame: float | None = None, restorable: bool = True) -> None:  # fmt: skip
        self.members = list(members)
        self.insert_keys = insert_keys
        self.frame = frame
        self.report: JoinedReport | None = None
        self.passes = 0
        self.names = ", ".join(f"'{m.obj.name}'" for m in self.members)
        self._started = False  # the first solve has run
        self._poses = [SavedPose.capture(m.obj) for m in self.members] if restorable else None
        self._steps = self._run()

    def progress_text(self) -> str:
        """What the next step does, for the status bar: "Reach: solving 'A', 'B' as one
        system - first solve", then "... - pass 3/12"."""
        what = f"pass {self.passes + 1}/{MAX_PASSES}" if self._started else "first solve"
        return f"Reach: solving {self.names} as one system - {what}"

    def cancel(self) -> None:
        """Stop, and put every pose channel of every armature back as it was at construction
        (bit for bit) and let Blender evaluate them.

        Raises:
            InvalidInputError: the Solve was made with ``restorable=False``.
        """
        if self._poses is None:
            raise solver.InvalidInputError("restorable=False: no pose was recorded to restore")
        self._steps.close()  # a correction pass's goals back on the true targets
        self._ended = True
        for member, pose in zip(self.members, self._poses, strict=True):
            pose.restore(member.obj)  # the channels that differ; deleted bones skipped
        self.members[0].view_layer.update()
        for member in self.members:
            member.mark_stale()  # the rig holds the solved pose: re-read it before a solve
        self._release()

    def _held_objects(self) -> Sequence[bpy.types.Object]:
        return [member.obj for member in self.members]

    def _run(self) -> Generator[None, None, None]:
        """The steps; each ``yield`` ends one solver run and its measurement."""
        members = self.members
        prepare_members(members)
        options = joined_options([(m.rig, m.settings) for m in members])
        kept = _join_for([m.rig for m in members], options)
        join = kept.join
        join.sync()
        first = evaluate(members, join, kept.solver.solve(join.start(), options=options))
        self._started = True
        yield
        wrong = mismatched(members, first)
        passes = correct_steps(members, join, kept.solver, options, first, wrong)
        try:
            while True:
                try:
                    self.passes = next(passes)
                except StopIteration as end:
                    best, self.passes = end.value
                    break
                yield
        finally:
            passes.close()  # cancelled mid-way: its goals back on the true targets
        frame = self.frame
        at = float(frame if frame is not None else members[0].scene.frame_current)
        reports = []
        for k, member in enumerate(members):
            n_keys = _key(member.rig, best.channels[k], at) if self.insert_keys else 0
            others = ", ".join(f"'{m.obj.name}'" for m in members if m is not member)
            counts = (first.result, self.passes, n_keys, options.method_name)
            report = member_report(member, best.parts[k], best.measured[k], wrong[k], counts,
                                   others)  # fmt: skip
            reports.append((member.obj.name, report))
        result = first.result
        self.report = JoinedReport(
            tuple(reports), len(join.figure.coordinate_names), result.time, join.crossing
        )


def solve_joined(
    members: Sequence[ArmatureSolver], insert_keys: bool = False, frame: float | None = None
) -> JoinedReport:
    """Solve ``members``' armatures at the current frame in one system, write each pose (and
    keys), measure each on Blender's evaluated pose (a :class:`JoinedSolve` run in one go).

    Args:
        members: one kept solver per armature (at least two), the active one first.
        insert_keys: key every armature's solved channels at ``frame``.
        frame: the frame keys go on (the scene's current frame when None).

    Raises:
        RigError: an armature or target the join cannot solve (named).
    """
    return JoinedSolve(members, insert_keys, frame, restorable=False).run()
