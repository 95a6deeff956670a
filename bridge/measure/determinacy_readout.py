"""The Last Solve box's determinacy line: the solver's report, with bone names.

The solver counts, at the pose a solve wrote (:mod:`solver.analysis.determinacy`), the degrees of
freedom, the independent constraint equations and the state (under-, exactly or
over-constrained), names the redundant or conflicting constraints and gives the free
motions over the figure's coordinates. Here each coordinate is the bone whose channels it
drives (:func:`.conditioning_readout.coordinate_bones`), so the line reads "Determinacy:
under-constrained, 9 DOF, 3 independent of 3 equations; free: forearm, upper_arm+hand".
Nothing is computed until the line is first asked for (the panel draws it).

Pure Python (no ``bpy``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from ... import solver
from ...solver.analysis.determinacy import Determinacy
from ..rig.joints import SolvedBone
from .conditioning_readout import coordinate_bones, motion_bones

#: At most this many free motions are spelled out on the line (then "and N more").
SHOWN_MOTIONS = 4


def determinacy_line(determinacy: Determinacy, bones: dict[str, str]) -> str:
    """One line for the Last Solve box, e.g. "Determinacy: over-constrained, 2 DOF, 2
    independent of 6 equations; conflicting: right" (free motions by bone when any)."""
    d = determinacy
    line = f"Determinacy: {d.state}, {d.dof} DOF, {d.rank} independent of {d.equations} equations"
    if d.conflicting:
        line += "; conflicting: " + ", ".join(d.conflicting)
    if d.redundant:
        line += "; redundant: " + ", ".join(d.redundant)
    groups: list[str] = []
    for motion in d.free_motions:
        group = "+".join(motion_bones(d.coordinate_names, motion.motion, bones))
        if group and group not in groups:
            groups.append(group)
    if groups:
        more = len(groups) - SHOWN_MOTIONS
        line += "; free: " + ", ".join(groups[:SHOWN_MOTIONS])
        line += f" and {more} more" if more > 0 else ""
    return line


@dataclass(frozen=True)
class DeterminacyReadout:
    """The determinacy of a solve's written pose, read on first use.

    Attributes:
        result: the solver result whose pose was written.
        solved: the rig's solved bones (which coordinate is which bone).
    """

    result: solver.IKResult = field(repr=False)
    solved: tuple[SolvedBone, ...] = field(repr=False)

    @property
    def determinacy(self) -> Determinacy:
        """The solver's report (computed once, by the result)."""
        return self.result.determinacy

    @cached_property
    def line(self) -> str:
        """The Last Solve box's line (:func:`determinacy_line`)."""
        return determinacy_line(self.determinacy, coordinate_bones(self.solved))
