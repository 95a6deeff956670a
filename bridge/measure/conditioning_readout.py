"""The Last Solve box's conditioning line: the solver's read-out, with bone names.

The solver measures the conditioning of the pose a solve wrote (:mod:`solver.analysis.conditioning`:
``kappa`` of the stacked, weighted constraint Jacobian over the coordinates the solve moves)
and names the figure's coordinates that make up the weakest motion. Here each coordinate
is the bone whose channels it drives (:class:`..rig.joints.SolvedBone`), so the line reads
"Conditioning: kappa 3.2e4 (ill-conditioned), weakest: forearm" (after a bake: of the last
frame's solved pose, "Conditioning at frame 120: ..."). Nothing is computed until
the line is first asked for (the panel draws it, or a report's text is made), so a live
update that nobody looks at pays nothing for it.

Pure Python (no ``bpy``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from ... import solver
from ...solver.analysis.conditioning import Conditioning, kappa_text, weakest_named
from ..rig.joints import SolvedBone


def coordinate_bones(solved: Iterable[SolvedBone]) -> dict[str, str]:
    """The bone each solver coordinate moves: rotation and location joints, a bone's IK
    segment coordinates and its stretch parameter, keyed by coordinate name."""
    bones = {}
    for info in solved:
        names = [joint for _, joint in (*info.rotation_joints, *info.location_joints)]
        names += info.coordinates
        if info.stretch:
            names.append(info.stretch)
        bones.update(dict.fromkeys(names, info.name))
    return bones


def motion_bones(
    names: tuple[str, ...], motion: np.ndarray, bones: dict[str, str]
) -> tuple[str, ...]:
    """The bones with the largest shares of a coordinate motion (n_coords,) over ``names``
    (the fewest reaching half of it, at most three; a bone's share sums its coordinates')."""
    shares: dict[str, float] = {}
    for name, value in zip(names, motion, strict=True):
        bone = bones.get(name)
        if bone is not None:
            shares[bone] = shares.get(bone, 0.0) + float(value) ** 2
    keys = tuple(shares)
    return weakest_named(keys, np.sqrt(np.array([shares[k] for k in keys])))


def weakest_bones(conditioning: Conditioning, bones: dict[str, str]) -> tuple[str, ...]:
    """The bones with the largest shares of the weakest motion (:func:`motion_bones`), or ()
    when there is none."""
    motion = conditioning.weakest_motion
    if motion is None:
        return ()
    return motion_bones(conditioning.coordinate_names, motion, bones)


def conditioning_line(
    conditioning: Conditioning, bones: dict[str, str], label: str = "Conditioning"
) -> str:
    """One line for the Last Solve box, e.g. "Conditioning: kappa 3.2e4 (ill-conditioned),
    weakest: forearm" (``label`` leads it)."""
    stacked = conditioning.stacked
    state = stacked.state
    if state == "unconstrained":
        return f"{label}: no goal constrains the pose here"
    if state == "singular":
        state = f"singular: rank {stacked.rank} of {len(stacked.singular_values)}"
    line = f"{label}: kappa {kappa_text(stacked.condition)} ({state})"
    weakest = weakest_bones(conditioning, bones) if stacked.ill_conditioned else ()
    return f"{line}, weakest: {', '.join(weakest)}" if weakest else line


@dataclass(frozen=True)
class ConditioningReadout:
    """The conditioning of a solve's written pose, read on first use.

    Attributes:
        result: the solver result whose pose was written.
        solved: the rig's solved bones (which coordinate is which bone).
        label: what the line starts with ("Conditioning", or "Conditioning at frame 120"
            for a bake's last frame).
    """

    result: solver.IKResult = field(repr=False)
    solved: tuple[SolvedBone, ...] = field(repr=False)
    label: str = "Conditioning"

    @property
    def conditioning(self) -> Conditioning:
        """The solver's read-out (computed once, by the result)."""
        return self.result.conditioning

    @property
    def ill_conditioned(self) -> bool:
        """The stacked ``kappa`` is above :data:`solver.analysis.conditioning.ILL_CONDITIONED`."""
        return self.conditioning.ill_conditioned

    @cached_property
    def line(self) -> str:
        """The Last Solve box's line (:func:`conditioning_line`)."""
        return conditioning_line(self.conditioning, coordinate_bones(self.solved), self.label)
