"""What a bake tells the user: :class:`BakeReport` on success, :class:`BakeError` on failure.

Pure Python (no ``bpy``): the report is built by :mod:`.baking` and formatted here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ... import solver
from ..errors import RigError
from ..measure.frame_report import IGNORED, method_text, residual_text
from .mechanism import MechanismSummary
from .smooth import SmoothSummary
from .worst import Worst

if TYPE_CHECKING:
    from ..measure.conditioning_readout import ConditioningReadout


class BakeError(RigError):
    """A bake stopped; nothing was written. ``frame`` is where it stopped (None: not a frame)."""

    def __init__(self, message: str, frame: int | None = None) -> None:
        super().__init__(message)
        self.frame = frame


def describe(exc: BaseException) -> str:
    """One line for a report: Reach's messages as they are, other exceptions with their type."""
    if isinstance(exc, solver.ReachError):  # RigError is one
        return str(exc)
    return f"{type(exc).__name__}: {exc}"


@dataclass(frozen=True)
class BakeReport:
    """Outcome of a finished bake.

    Attributes:
        frames: the baked frames, in order.
        constraints: names of the baked constraints.
        worst: per constraint, the worst (distance in scene units or None, angle in degrees
            or None, satisfied on every frame) over the baked frames: measured on Blender's
            evaluated pose when ``measured``, else the solver's model.
        modelled: the same from the solver's model.
        measured: whether ``worst`` was measured on Blender's evaluated pose.
        n_keys: keys written.
        n_channels: channels keyed.
        n_dof: degrees of freedom of the solved figure.
        iterations: solver iterations, summed over frames.
        solve_seconds: time spent in the solver, seconds.
        seconds: wall time of the whole bake, seconds.
        notes: what the solve does not model (from the rig).
        overrides: what changes the baked channels on playback (one line each).
        reasons: per constraint the solve reached but playback misses, why (one line).
        time_limited: frames whose solve hit the per-frame time limit.
        time_limit: that limit, seconds.
        method: the solve method of the frames solved one by one (a
            :data:`solver.methods.METHODS` name): every frame, unless :attr:`batched`.
        smooth: a smooth bake's bound and the frames it held (:mod:`.smooth`); None
            for an unbounded bake.
        conditioning: the conditioning of the last baked frame's solved pose, computed
            when first read (the panel draws it), or None.
        ignored: the constraints of weight 0 (left out of the solve: neither satisfied nor
            unreached, and not counted by :attr:`satisfied`).
        mechanism: a rig with Driven bones: the sub-steps taken and the frames whose loop
            could not close (:mod:`.mechanism`); None for any other rig.
        batched: the method of the frames solved in batches (:mod:`.batched`: ``"dls"``), or
            "" when every frame was solved one after another by :attr:`method`.
        targets_read: how a batched bake read its targets after the first frame:
            ``"F-curves"`` (composed from them, :mod:`..measure.target_curves`), or
            ``"stepping the scene: <why>"``; "" for a bake solved one frame after another.
        sequential: why a bake of several frames solved them one after another (e.g.
            ``"bone 'Hips' moves at frame 2"``); "" when :attr:`batched`.
    """

    frames: tuple[int, ...]
    constraints: tuple[str, ...]
    worst: Worst
    n_keys: int
    n_channels: int
    n_dof: int
    iterations: int
    solve_seconds: float
    seconds: float
    modelled: Worst = field(default_factory=dict)
    measured: bool = False
    notes: tuple[str, ...] = ()
    overrides: tuple[str, ...] = ()
    reasons: dict[str, str] = field(default_factory=dict)
    time_limited: tuple[int, ...] = ()
    time_limit: float | None = None
    method: str = ""
    smooth: SmoothSummary | None = None
    conditioning: ConditioningReadout | None = field(default=None, repr=False)
    ignored: tuple[str, ...] = ()
    mechanism: MechanismSummary | None = None
    batched: str = ""
    targets_read: str = ""
    sequential: str = ""

    @property
    def satisfied(self) -> bool:
        """Every constraint (but the :attr:`ignored` ones) satisfied on every baked frame."""
        return all(ok for name, (_d, _a, ok) in self.worst.items() if name not in self.ignored)

    def residual_lines(self) -> list[str]:
        """One line per constraint: worst distance, angle and whether it is satisfied."""
        lines = []
        for name, (distance, angle, ok) in self.worst.items():
            if name in self.ignored:
                lines.append(f"  {name}: {residual_text(distance, angle)} ({IGNORED})")
                continue
            state = "satisfied" if ok else "UNREACHED"
            model = self.modelled.get(name)
            if self.measured and not ok and model is not None and model[2]:
                state += f" on playback; the solve reached it ({residual_text(*model[:2])})"
                if self.reasons.get(name):
                    state += f": {self.reasons[name]}"
            lines.append(f"  {name}: {residual_text(distance, angle)} ({state})")
        return lines

    def path_lines(self) -> list[str]:
        """How the frames after the first were solved and their targets read, and why (no
        line for a bake of one frame): one line each, without indent."""
        if self.batched:
            if self.targets_read == "F-curves":
                return ["targets: read from their F-curves"]
            how = self.targets_read.removeprefix("stepping the scene: ")
            return [f"targets: read by stepping the scene to each frame: {how}"]
        if self.sequential:
            return [f"frames: solved one after another: {self.sequential}"]
        return []

    def _time_limit_lines(self) -> list[str]:
        if not self.time_limited:
            return []
        frames = ", ".join(str(f) for f in self.time_limited[:10])
        more = ", ..." if len(self.time_limited) > 10 else ""
        return [
            f"  note: {len(self.time_limited)} frame(s) stopped at the time limit of "
            f"{self.time_limit:g} s per frame ({frames}{more}): they keep the best pose found, "
            "which can differ on a faster or slower machine"
        ]

    def text(self) -> str:
        """The summary shown to the user (several lines)."""
        n = len(self.frames)
        how = "measured on Blender's pose" if self.measured else "solver's model"
        head = (
            f"Reach: baked {n} frames ({self.frames[0]}..{self.frames[-1]}) of "
            f"{len(self.constraints)} constraints, {self.n_dof} DOF, {method_text(self.method)}"
            f"{f'in-between frames batched ({self.batched}), ' if self.batched else ''}"
            f"{self.n_channels} channels, "
            f"{self.n_keys} keys in {self.seconds:.2f} s "
            f"({n / max(self.seconds, 1e-9):.0f} frames/s); worst residuals ({how}):"
        )
        return "\n".join([
            head,
            *self.residual_lines(),
            *(f"  {line}" for line in self.path_lines()),
            *(f"  playback: {line}" for line in self.overrides),
            *self._time_limit_lines(),
            *(self.smooth.lines() if self.smooth is not None else ()),
            *(self.mechanism.lines() if self.mechanism is not None else ()),
            *(f"  note: {note}" for note in self.notes),
        ])  # fmt: skip
