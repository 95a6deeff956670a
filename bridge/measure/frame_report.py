"""What a solve tells the user: measured residuals, a status in words, and why a goal missed.

A :class:`FrameReport` is built from the residuals :mod:`.residuals` read on Blender's evaluated
pose; the solver's own (modelled) residuals are kept beside them only to explain a
difference. "Satisfied" is never taken from the model.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .residuals import MeasuredResidual

if TYPE_CHECKING:
    from .conditioning_readout import ConditioningReadout
    from .determinacy_readout import DeterminacyReadout

STATUS_REACHED = "All goals reached (measured on Blender's pose)"
STATUS_LIMITED = "Closest reachable pose: joint limits / other goals stop it"
STATUS_COMPROMISE = "Closest reachable pose: the chain cannot reach / other goals pull away"
STATUS_STOPPED = "Stopped at the iteration or time limit before every goal was reached"
STATUS_BLENDER = "Blender moves the bones away from the solved pose"
WEIGHT_ZERO = "Constraint weight is 0: ignored"
#: The state of a weight-0 constraint in a report line (instead of reached / MISSED).
IGNORED = "ignored: weight 0"


@dataclass(frozen=True)
class ConstraintOutcome:
    """One constraint after a solve.

    Attributes:
        measured: the residual on Blender's evaluated pose (distance in scene units, angle in
            degrees) and whether it is within tolerance.
        modelled_distance, modelled_angle: the solver's own residual at its solution (None
            when the goal has no such part).
        reason: one line saying why measured and modelled differ, or a note such as
            :data:`WEIGHT_ZERO`; "" when there is nothing to say.
        ignored: the constraint has weight 0: the solve leaves it out, so it is neither
            reached nor missed (its residual is still measured and shown).
    """

    measured: MeasuredResidual
    modelled_distance: float | None
    modelled_angle: float | None
    reason: str = ""
    ignored: bool = False

    @property
    def name(self) -> str:
        """The constraint's name."""
        return self.measured.name

    @property
    def satisfied(self) -> bool:
        """Within tolerance on Blender's pose."""
        return self.measured.satisfied


@dataclass(frozen=True)
class FrameReport:
    """The outcome of one solve at one frame.

    Attributes:
        status: one line in words (no optimiser vocabulary).
        satisfied: every constraint within tolerance on Blender's evaluated pose.
        constraints: one :class:`ConstraintOutcome` per solver constraint.
        passes: correction passes run after the first solve (0 when none was needed).
        iterations: solver iterations over all passes.
        seconds: solver time over all passes, seconds.
        dof: degrees of freedom of the figure.
        bones: bones whose channels the solve writes.
        keys: keys written (0 without Solve & Key).
        notes: what the model does not cover, once each.
        method: the solve method (a :data:`solver.methods.METHODS` name).
        conditioning: the conditioning of the written pose, computed when first read (the
            panel draws it; :meth:`text` leaves it out, so a Solve pays nothing for it
            unless the panel is shown), or None.
        determinacy: the determinacy of the written pose, computed when first read (the
            panel draws it, like ``conditioning``), or None.
    """

    status: str
    satisfied: bool
    constraints: tuple[ConstraintOutcome, ...]
    passes: int
    iterations: int
    seconds: float
    dof: int
    bones: int
    keys: int = 0
    notes: tuple[str, ...] = field(default_factory=tuple)
    method: str = ""
    conditioning: ConditioningReadout | None = field(default=None, repr=False)
    determinacy: DeterminacyReadout | None = field(default=None, repr=False)

    def text(self) -> str:
        """The operator report: a summary line, then one line per constraint and note."""
        summary = (
            f"Reach: {self.status}. {len(self.constraints)} constraints, {self.bones} bones, "
            f"{self.dof} DOF, {method_text(self.method)}{self.iterations} iterations, "
            f"{self.seconds * 1000.0:.1f} ms"
        )
        if self.passes:
            summary += f", {self.passes} correction pass{'es' if self.passes > 1 else ''}"
        if self.keys:
            summary += f", {self.keys} keys"
        lines = [summary]
        lines += [f"  {outcome_text(c)}" for c in self.constraints]
        lines += [f"  note: {n}" for n in self.notes]
        return "\n".join(lines)


def method_text(method: str) -> str:
    """``"method dls, "`` for a report's summary line, or "" when the method is not known."""
    return f"method {method}, " if method else ""


def residual_text(distance: float | None, angle: float | None) -> str:
    """``"1.2e-03 units, 0.500 deg"`` (parts that exist), or ``"-"``."""
    parts = []
    if distance is not None:
        parts.append(f"{distance:.2e} units")
    if angle is not None:
        parts.append(f"{angle:.3f} deg")
    return ", ".join(parts) or "-"


def outcome_text(outcome: ConstraintOutcome) -> str:
    """One constraint's line: measured residual, state, and the reason if any."""
    m = outcome.measured
    if outcome.ignored:  # its reason (WEIGHT_ZERO) says the same
        return f"{m.name}: {residual_text(m.distance, m.angle)} ({IGNORED})"
    state = "reached" if m.satisfied else "MISSED"
    line = f"{m.name}: {residual_text(m.distance, m.angle)} ({state})"
    return f"{line}; {outcome.reason}" if outcome.reason else line


def status_in_words(
    measured_ok: bool, modelled_ok: bool, stopped_early: bool, limits_active: bool
) -> str:
    """The status line from what was measured and why the solver stopped.

    Args:
        measured_ok: every constraint within tolerance on Blender's pose.
        modelled_ok: every constraint within tolerance in the solver's model.
        stopped_early: the solver stopped at its iteration or time limit.
        limits_active: joint limits or linear constraints were active at the solution.
    """
    if measured_ok:
        return STATUS_REACHED
    if modelled_ok:
        return STATUS_BLENDER
    if stopped_early:
        return STATUS_STOPPED
    return STATUS_LIMITED if limits_active else STATUS_COMPROMISE
