"""The report of a command as JSON: per armature and constraint the worst residual measured on
Blender's pose and the frame it happens on, the speed, the method, what missed.

Pure Python: it formats what :mod:`..bridge.measure.over_frames` and a
:class:`..bridge.bake.report.BakeReport` give. Exit codes: 0 every goal met, 1 some goal
missed (keys written, the report says where), 2 error (nothing written).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..bridge.bake.report import BakeReport
    from ..bridge.measure.over_frames import WorstOverFrames

MET, MISSED, ERROR = 0, 1, 2

#: Frames listed per missed constraint at most (the count is always given).
LISTED = 50


@dataclass(frozen=True)
class ArmatureOutcome:
    """One armature's result: its measured worst residuals and, after a bake, the bake's
    report (None for ``reach_check``)."""

    name: str
    frames: tuple[int, int]
    worst: Sequence[WorstOverFrames]
    bake: BakeReport | None = None
    keys: int | None = None

    @property
    def satisfied(self) -> bool:
        """Every constraint within tolerance on every frame."""
        return all(w.satisfied for w in self.worst)

    def lines(self) -> list[str]:
        """One line per constraint, for the terminal."""
        out = []
        for w in self.worst:
            parts = []
            if w.distance is not None:
                parts.append(f"{w.distance:.3g} units at frame {w.distance_frame}")
            if w.angle is not None:
                parts.append(f"{w.angle:.3g} deg at frame {w.angle_frame}")
            state = "ignored (weight 0)" if w.ignored else (
                "met" if not w.missed else f"MISSED on {len(w.missed)} frames")  # fmt: skip
            out.append(f"{self.name} / {w.name}: worst {', '.join(parts) or '-'}: {state}")
        return out

    def to_json(self) -> dict[str, Any]:
        """The armature's entry of the JSON report."""
        out: dict[str, Any] = {
            "armature": self.name, "frames": list(self.frames), "satisfied": self.satisfied,
            "constraints": [_constraint(w) for w in self.worst],
            "failures": [f"{w.name}: missed on {len(w.missed)} frames (first {w.missed[0]})"
                         for w in self.worst if not w.satisfied],
        }  # fmt: skip
        if self.keys is not None:
            out["keys"] = self.keys
        if self.bake is not None:
            b = self.bake
            n = len(b.frames)
            out.update({
                "method": b.method, "frames_solved": [b.frames[0], b.frames[-1]],
                "seconds": b.seconds, "frames_per_second": n / max(b.seconds, 1e-9),
                "keys": b.n_keys if self.keys is None else self.keys,
                "channels": b.n_channels, "dof": b.n_dof,
                "time_limited_frames": list(b.time_limited),
                "notes": list(b.notes) + list(b.overrides),
            })  # fmt: skip
        return out


def _constraint(w: WorstOverFrames) -> dict[str, Any]:
    return {
        "name": w.name, "satisfied": w.satisfied, "ignored": w.ignored,
        "worst_distance": w.distance, "worst_distance_frame": w.distance_frame,
        "worst_angle_degrees": w.angle, "worst_angle_frame": w.angle_frame,
        "missed_frames": len(w.missed), "missed": list(w.missed[:LISTED]),
    }  # fmt: skip


@dataclass
class CommandReport:
    """What a command prints and writes as JSON (see the module docstring)."""

    command: str
    file: str
    armatures: list[ArmatureOutcome] = field(default_factory=list)
    error: str | None = None
    saved: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    missed_ok: bool = False

    @property
    def satisfied(self) -> bool:
        """Every goal of every armature met on every frame."""
        return all(a.satisfied for a in self.armatures)

    @property
    def exit_code(self) -> int:
        """0 every goal met, 1 some missed (0 with ``missed_ok``), 2 error."""
        if self.error is not None:
            return ERROR
        return MET if self.satisfied or self.missed_ok else MISSED

    def lines(self) -> list[str]:
        """The terminal output: one line per constraint, then the verdict."""
        out = [line for a in self.armatures for line in a.lines()]
        if self.error is not None:
            out.append(f"{self.command}: ERROR, nothing written: {self.error}")
        else:
            verdict = "every goal met" if self.satisfied else "some goal missed"
            where = f"; saved {self.saved}" if self.saved else ""
            out.append(f"{self.command}: {verdict}{where}")
        return out

    def to_json(self, blender: str) -> dict[str, Any]:
        """The whole report (``blender``: the version string that ran it)."""
        return {
            "command": self.command, "exit_code": self.exit_code, "satisfied": self.satisfied,
            "file": self.file,
            "blender": blender, "saved": self.saved, "error": self.error,
            "armatures": [a.to_json() for a in self.armatures], **self.extra,
        }  # fmt: skip
