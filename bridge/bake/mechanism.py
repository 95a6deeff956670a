"""Branch-safe motion of a mechanism in a bake: sub-steps when a Driven input jumps, and the
last closed pose held where a loop cannot close.

A rig with *Driven* bones (:func:`..rig.joints.is_driven`: a crank, a piston) is a mechanism:
its solve finds the other joints from the inputs, and a closed loop has several assemblies
(a four-bar's open and crossed branch) that Newton's method reaches from different starts.
Every baked frame starts from the previous one's solution (:mod:`.start`), which keeps the
branch only while the start is near the answer (seed 003: "the key to stability and rapid
convergence is an initial guess not too far from the final result"). So when an input changes
between two baked frames by more than :data:`SUBSTEP_ANGLE` (a turn) or :data:`SUBSTEP_SHIFT`
of the rig's size (a slide), the frame is reached in sub-steps: Blender is evaluated at
sub-frames between the two frames (``scene.frame_set(frame, subframe=s)``, the inputs'
animation interpolated as Blender plays it) and each sub-step is solved from the one before.
Only the whole frames are keyed.

Where the loop cannot close (a crank driven past a dead point of a non-Grashof linkage: some
constraint stays unmet), the frame keeps the last closed frame's solved pose, exactly (its
channels, so its keys are the same), and the report lists the frame with the best residual
the solve reached; the solve of the next frame starts from that held pose. A jump to whatever
pose the failed solve ended in never reaches the keys. Rigs without Driven bones bake as
before: no sub-steps, no held frames (a target out of reach keeps the closest pose).

Not sub-stepped: the first baked frame (solved from the rest pose, :mod:`.baking`), frames
that join existing keys (:mod:`.join`) and smooth bakes (:mod:`.smooth`, which bound each
joint's change around the previous frame instead).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from ... import solver
from ..measure.frame_report import residual_text
from ..rig.joints import is_driven
from ..solve.swing_refine import solve_refined

if TYPE_CHECKING:
    from bpy.types import Scene

    from ..rig.build import Rig

#: A constraint left open: (name, distance in scene units or None, angle in degrees or None).
Miss = tuple[str, float | None, float | None]

#: Largest turn (radians) of a Driven bone between two solved steps: 10 degrees. The four-bar
#: demo (5 degrees per frame) needs none; its crank jumping 90 degrees between two keys flips
#: it to the mirror assembly without sub-steps (tests/blender/test_mechanism_bake.py).
SUBSTEP_ANGLE = math.radians(10.0)
#: Largest slide of a Driven bone between two solved steps, as a share of the rig's size
#: (its characteristic length, :attr:`..rig.build.Rig.length`).
SUBSTEP_SHIFT = 0.1
#: At most this many steps per frame (a full turn of an input in one frame).
MAX_SUBSTEPS = 36


class DrivenInputs:
    """The Driven bones of a rig and their readings at the last solved frame.

    Args:
        rig: the built rig (its figure bones are searched for Driven ones).
    """

    def __init__(self, rig: Rig) -> None:
        bones = rig.obj.pose.bones
        self.names = tuple(name for name in rig.bones if is_driven(bones[name]))
        self.rotation: dict[str, np.ndarray] = {}  # (3, 3) per bone
        self.location: dict[str, np.ndarray] = {}  # (3,) armature units per bone
        self.scale = rig.scale
        self.length = rig.length

    def record(self, rig: Rig) -> None:
        """Remember the inputs as the rig's pose reads them now (after ``read_pose``)."""
        for name in self.names:
            self.rotation[name] = rig.pose.rotation[name].copy()
            self.location[name] = rig.pose.location[name].copy()

    def steps(self, rig: Rig) -> int:
        """How many solve steps reach the rig's current inputs from the recorded ones
        (1: the frame itself; at most :data:`MAX_SUBSTEPS`)."""
        need = 1.0
        for name in self.names:
            if name not in self.rotation:
                continue
            turn = self.rotation[name].T @ rig.pose.rotation[name]
            angle = math.acos(max(-1.0, min(1.0, (float(np.trace(turn)) - 1.0) / 2.0)))
            shift = self.scale * float(
                np.linalg.norm(rig.pose.location[name] - self.location[name])
            )
            need = max(need, angle / SUBSTEP_ANGLE, shift / (SUBSTEP_SHIFT * self.length))
        return min(MAX_SUBSTEPS, math.ceil(need - 1e-4))  # a hair over the bound is within it


@dataclass
class HeldPose:
    """A copy of the solved bones' pose state (:class:`..rig.pose.RigPose`'s readings, bases and
    joint values), taken at the last frame whose loop closed."""

    rotation: dict[str, np.ndarray]
    location: dict[str, np.ndarray]
    stretch: dict[str, float]
    base: dict[str, np.ndarray]
    local_values: dict[str, np.ndarray]

    @classmethod
    def capture(cls, rig: Rig) -> HeldPose:
        """The solved bones' state of ``rig``'s pose now."""
        pose, names = rig.pose, rig.solved.keys()

        def copied(values: dict) -> dict:
            return {n: np.copy(values[n]) for n in names if n in values}

        stretch = {n: pose.stretch[n] for n in names if n in pose.stretch}
        return cls(
            copied(pose.rotation), copied(pose.location), stretch,
            copied(pose.base), copied(pose.local_values),
        )  # fmt: skip

    def restore(self, rig: Rig) -> None:
        """Put the captured state back into ``rig``'s pose (the solved bones only)."""
        pose = rig.pose
        for mine, theirs in (
            (self.rotation, pose.rotation), (self.location, pose.location),
            (self.base, pose.base), (self.local_values, pose.local_values),
        ):  # fmt: skip
            for name in rig.solved:
                theirs.pop(name, None)
            theirs.update({n: np.copy(v) for n, v in mine.items()})
        for name in rig.solved:
            pose.stretch.pop(name, None)
        pose.stretch.update(self.stretch)


@dataclass(frozen=True)
class HeldFrame:
    """A baked frame whose loop could not close.

    Attributes:
        frame: the frame.
        held_from: the frame whose solved pose it keeps.
        residuals: (constraint, distance in scene units or None, angle in degrees or None) of
            each unmet constraint, as the solve came closest.
    """

    frame: int
    held_from: int
    residuals: tuple[Miss, ...]


@dataclass
class MechanismSummary:
    """What a mechanism's bake did about its branch: sub-steps and held frames.

    Attributes:
        substeps: frame -> the extra solve steps taken on the way to it (only frames with any).
        held: the frames whose loop could not close, in order.
    """

    substeps: dict[int, int] = field(default_factory=dict)
    held: list[HeldFrame] = field(default_factory=list)

    def lines(self) -> list[str]:
        """The report's lines (none when nothing happened)."""
        out = []
        if self.substeps:
            total = sum(self.substeps.values())
            frames = ", ".join(f"{f} ({n})" for f, n in list(self.substeps.items())[:10])
            more = ", ..." if len(self.substeps) > 10 else ""
            out.append(
                f"  sub-steps: {total} extra solve(s) on {len(self.substeps)} frame(s) where a "
                f"Driven input jumped (frame (extra steps): {frames}{more})"
            )
        for held in self.held[:10]:
            misses = "; ".join(
                f"'{name}' {residual_text(distance, angle)}"
                for name, distance, angle in held.residuals
            )
            out.append(
                f"  frame {held.frame}: the loop cannot close ({misses} at best); "
                f"the pose of frame {held.held_from} is held"
            )
        if len(self.held) > 10:
            out.append(f"  ... and {len(self.held) - 10} more frame(s) held")
        return out


class Mechanism:
    """A bake's branch keeping: sub-steps and held frames (see the module). Does nothing for a
    rig without Driven bones (:attr:`active` False).

    Args:
        rig: the built rig, its pose at the bake's first frame.
        ik: the bake's solver.
        tolerance: distance (scene units) within which a loop counts as closed.
        angle_tolerance: the same for angles (degrees).

    Attributes:
        summary: what it did, for the bake report.
        iterations: solver iterations spent in sub-steps.
        seconds: solver time spent in sub-steps.
    """

    def __init__(
        self, rig: Rig, ik: solver.Solver, tolerance: float, angle_tolerance: float
    ) -> None:
        self.rig = rig
        self.ik = ik
        self.tolerance = tolerance
        self.angle_tolerance = angle_tolerance
        self.inputs = DrivenInputs(rig)
        self.inputs.record(rig)
        self.summary = MechanismSummary()
        self.closed: tuple[int, HeldPose] | None = None  # the last frame whose loop closed
        self.iterations = 0
        self.seconds = 0.0

    @property
    def active(self) -> bool:
        """Whether the rig has Driven bones."""
        return bool(self.inputs.names)

    def record(self) -> None:
        """Remember the inputs of the frame just read (after ``read_pose``)."""
        self.inputs.record(self.rig)

    def substeps(self, scene: Scene, before: int, frame: int) -> bool:
        """Reach ``frame`` from the baked frame ``before`` in sub-steps when a Driven input
        jumped in between: solve at sub-frames, each from the one before (a sub-step whose loop
        cannot close keeps the pose before it), then read ``frame``'s pose again. Call after
        reading ``frame``'s pose. Returns whether it stepped."""
        rig = self.rig
        steps = self.inputs.steps(rig) if self.active else 1
        if steps <= 1:
            return False
        kept = HeldPose.capture(rig)
        for step in range(1, steps):
            moment = before + (frame - before) * step / steps
            whole = math.floor(moment)
            scene.frame_set(whole, subframe=moment - whole)
            rig.read_pose(solved_too=False)
            rig.push_rest()
            rig.update_targets()
            result = solve_refined(self.ik, rig.solved.values(), rig.initial())
            self.iterations += result.nit
            self.seconds += result.time
            if self.misses(result):
                kept.restore(rig)
                continue
            rig.apply(result)
            kept = HeldPose.capture(rig)
        self.summary.substeps[frame] = steps - 1
        scene.frame_set(frame)
        rig.read_pose(solved_too=False)
        return True

    def misses(self, result: solver.IKResult) -> tuple[Miss, ...]:
        """The constraints ``result`` leaves open beyond the tolerances; none when inactive."""
        if not self.active:
            return ()
        return tuple(
            (r.name, r.distance, r.angle)
            for r in result.residuals
            if not r.satisfied
            and ((r.distance or 0.0) > self.tolerance or (r.angle or 0.0) > self.angle_tolerance)
        )

    def apply(self, frame: int, result: solver.IKResult) -> None:
        """Move ``result`` into the rig's pose; where the loop cannot close, hold the last
        closed frame's pose instead and note the frame."""
        misses = self.misses(result)
        if misses and self.closed is not None:
            held_from, pose = self.closed
            pose.restore(self.rig)
            self.summary.held.append(HeldFrame(frame, held_from, misses))
            return
        self.rig.apply(result)
        if self.active and not misses:
            self.closed = (frame, HeldPose.capture(self.rig))
