"""The passes of a joined Solve: write and measure a joined solution, then correction passes
while Blender's pose and the model disagree, as a Solve of one armature runs them
(:mod:`..solve.correction`, :class:`..solve.frame_solve.FrameSolve`).

Each pass moves the world goals of every armature's mismatched constraints by the discrepancy
Blender's evaluation adds (the join shares those goal objects with the rigs); a goal another
armature's bone carries follows its rig's corrected world goal, point only, as an offset of the
target (:meth:`.figure.JoinedFigure.shift`); then it solves the whole join again from
the written pose without restarts; the pass with the smallest measured error over every
armature is kept. Goals carried by a bone of their own armature are left as they are.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from dataclasses import dataclass

from ... import solver
from ..measure.residuals import MeasuredResidual, measure
from ..rig.build import BoneChannels
from ..rig.size import distance_tolerance
from ..solve.armature_solver import ArmatureSolver
from ..solve.correction import Corrector
from ..solve.frame_solve import MAX_PASSES, STALL_PASSES
from .figure import JoinedFigure


@dataclass(frozen=True)
class JoinedPass:
    """One joined solution as Blender evaluated it.

    Attributes:
        result: the join's solver result.
        parts: its share per armature (:meth:`.figure.JoinedFigure.split`), in member order.
        channels: the channel values written, per armature.
        measured: each armature's constraints measured on Blender's evaluated pose.
    """

    result: solver.IKResult
    parts: tuple[solver.IKResult, ...]
    channels: tuple[dict[str, BoneChannels], ...]
    measured: tuple[list[MeasuredResidual], ...]

    def error(self, members: Sequence[ArmatureSolver]) -> float:
        """Measured error beyond tolerance over every counted constraint (weight > 0) of every
        armature, in tolerances: 0 when all are reached."""
        total = 0.0
        for member, measured in zip(members, self.measured, strict=True):
            tolerance = _tolerance(member)
            angle_tolerance = member.settings.angle_tolerance
            for m, c in zip(measured, member.rig.constraints, strict=True):
                if c.weight > 0.0:
                    beyond = (m.distance or 0.0) / max(tolerance, m.resolution)
                    total += max(beyond - 1.0, 0.0)
                    total += max((m.angle or 0.0) / angle_tolerance - 1.0, 0.0)
        return total


def _tolerance(member: ArmatureSolver) -> float:
    """The member's distance tolerance, scene units."""
    return distance_tolerance(member.settings, member.rig.length)


def evaluate(
    members: Sequence[ArmatureSolver], join: JoinedFigure, result: solver.IKResult
) -> JoinedPass:
    """Write each armature's share of ``result``, let Blender evaluate them all, measure."""
    parts = tuple(join.split(result))
    channels = []
    for member, part in zip(members, parts, strict=True):
        member.rig.apply(part)
        channels.append(member.rig.channels())
        member.rig.write_pose(channels[-1])
    members[0].view_layer.update()
    measured = tuple(
        measure(m.rig, m.view_layer.depsgraph, _tolerance(m), m.settings.angle_tolerance)
        for m in members
    )
    return JoinedPass(result, parts, tuple(channels), measured)


def mismatched(members: Sequence[ArmatureSolver], first: JoinedPass) -> list[list[int]]:
    """Per armature, the counted constraints Blender's pose misses where the model's does
    not agree (by more than the tolerance and the float32 resolution)."""
    out = []
    for member, part, measured in zip(members, first.parts, first.measured, strict=True):
        tolerance = _tolerance(member)
        wrong = []
        for i, (m, r) in enumerate(zip(measured, part.residuals, strict=True)):
            d = abs((m.distance or 0.0) - (r.distance or 0.0))
            a = abs((m.angle or 0.0) - (r.angle or 0.0))
            off = d > max(tolerance, m.resolution) or a > member.settings.angle_tolerance
            if not m.satisfied and off and member.rig.constraints[i].weight > 0.0:
                wrong.append(i)
        out.append(wrong)
    return out


def correct_steps(
    members: Sequence[ArmatureSolver],
    join: JoinedFigure,
    ik: solver.Solver,
    options: solver.Options,
    first: JoinedPass,
    wrong: Sequence[Sequence[int]],
) -> Generator[int, None, tuple[JoinedPass, int]]:
    """Correction passes on the ``wrong`` constraints (see the module doc), yielding the
    number of passes run after each one (a modal Solve's step); returns the best measured
    pass, written in every pose, and the number of passes run. Closed early (a cancelled
    Solve), it puts the goals back on the true targets."""
    best = last = first
    passes = stalled = 0
    if not any(wrong):
        return best, 0
    correctors = [Corrector() for _ in members]
    refining = options.replace(restarts=0)  # refine, never jump away
    try:
        while passes < MAX_PASSES and stalled < STALL_PASSES and best.error(members) > 0.0:
            for member, corrector, part, measured, indices in zip(
                members, correctors, last.parts, last.measured, wrong, strict=True
            ):
                rig = member.rig
                frames = rig.figure.forward(part.x)
                depsgraph = member.view_layer.depsgraph
                for i in indices:
                    spec = rig.specs[i]
                    frame = frames[spec.effector_segment]
                    corrector.retarget(rig, spec, measured[i], frame, depsgraph)
                    for binding in spec.bindings:  # the rig's goal moved: the join's follows
                        if join.carried_across(rig.obj, binding.name):
                            point = getattr(binding.solver_goal(), "point", None)
                            if point is not None:
                                true = binding.target_frame(depsgraph)[0]
                                join.shift(rig.obj, binding.name, point - true)
                rig.push_rest()
            join.sync()
            last = evaluate(members, join, ik.solve(join.start(), options=refining))
            passes += 1
            if last.error(members) < best.error(members):
                best, stalled = last, 0
            else:
                stalled += 1
            yield passes
    finally:
        join.unshift()
        for member in members:
            member.rig.update_targets()  # the goals back on the true targets
    if best is not last:  # later passes did worse: keep the best pose
        for member, channels in zip(members, best.channels, strict=True):
            member.rig.write_pose(channels)
        members[0].view_layer.update()
        for member in members:
            member.rig.read_pose(solved_too=True)
            member.rig.push_rest()
    return best, passes
