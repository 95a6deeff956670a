"""Bake Reach constraints over a frame range into keys on the solved channels.

:class:`BakeJob` solves one frame per :meth:`~BakeJob.step` (the modal operator calls it from
a timer) and writes every key in bulk in :meth:`~BakeJob.finish`; :func:`bake` runs a job to
the end with a progress callback. Both give a :class:`BakeReport`.

Start pose (why a bake is deterministic). The first frame is solved from the solved
channels' **rest** values (identity rotation, zero location for solved location channels),
whatever the current pose or the keys already on those channels; every later frame starts
from the previous frame's solution (warm start). Everything else the solve reads (unsolved
bones, targets) comes from the scene's animation evaluated at that frame. So baking the same
shot twice, or after saving and reloading the file, writes identical keys: a re-bake does not
start from the pose an earlier bake keyed.

Failure and cancel. The scene state the bake may change is captured first
(:class:`.restore.SceneState`). Any exception — a :class:`.rig.RigError`, a solver error or
anything else (a bone renamed or a target deleted mid-bake, a bug) — and :meth:`BakeJob.cancel`
put it all back: the keys of every channel keyframe by keyframe, the action and animation
data, Blender's IK constraints muted for the bake, the current frame and the pose. Nothing
is written. The exception is re-raised as :class:`BakeError` naming the frame.

``bpy`` is used only through the objects passed in.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from .. import solver
from . import keys, rotations
from .playback import builtin_ik
from .restore import SceneState
from .rig import Rig, RigError, build_rig, solver_options

MODES = ("REPLACE", "LAYER")

Worst = dict[str, tuple[float | None, float | None, bool]]  # name -> (distance, angle, ok)


class BakeError(RigError):
    """A bake stopped; nothing was written. ``frame`` is where it stopped (None: setup)."""

    def __init__(self, message: str, frame: int | None = None) -> None:
        super().__init__(message)
        self.frame = frame


def describe(exc: BaseException) -> str:
    """One line for a report: Reach's messages as they are, other exceptions with their type."""
    if isinstance(exc, RigError | solver.ReachError):
        return str(exc)
    return f"{type(exc).__name__}: {exc}"


@dataclass(frozen=True)
class BakeReport:
    """Outcome of a finished bake.

    Attributes:
        frames: the baked frames, in order.
        constraints: names of the baked constraints.
        worst: per constraint, the worst (distance in scene units or None, angle in degrees
            or None, satisfied on every frame) over the baked frames.
        n_keys: keys written.
        n_channels: channels keyed.
        n_dof: degrees of freedom of the solved figure.
        iterations: solver iterations, summed over frames.
        solve_seconds: time spent in the solver, seconds.
        seconds: wall time of the whole bake, seconds.
        notes: what the solve does not model (from the rig).
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
    notes: tuple[str, ...] = ()

    @property
    def satisfied(self) -> bool:
        """Every constraint satisfied on every baked frame."""
        return all(ok for _d, _a, ok in self.worst.values())

    def residual_lines(self) -> list[str]:
        """One line per constraint: worst distance, angle and whether it is satisfied."""
        lines = []
        for name, (distance, angle, ok) in self.worst.items():
            parts = []
            if distance is not None:
                parts.append(f"{distance:.2e} units")
            if angle is not None:
                parts.append(f"{angle:.3f} deg")
            lines.append(
                f"  {name}: {', '.join(parts) or '-'} ({'satisfied' if ok else 'UNREACHED'})"
            )
        return lines

    def text(self) -> str:
        """The summary shown to the user (several lines)."""
        n = len(self.frames)
        head = (
            f"Reach: baked {n} frames ({self.frames[0]}..{self.frames[-1]}) of "
            f"{len(self.constraints)} constraints, {self.n_dof} DOF, {self.n_channels} channels, "
            f"{self.n_keys} keys in {self.seconds:.2f} s "
            f"({n / max(self.seconds, 1e-9):.0f} frames/s)"
        )
        lines = [head, *self.residual_lines(), *(f"  note: {note}" for note in self.notes)]
        return "\n".join(lines)


def _fold(worst: Worst, residuals: Sequence[object]) -> None:
    """Fold one frame's residuals into per-constraint worst values."""
    for r in residuals:
        old = worst.get(r.name, (None, None, True))
        distance = r.distance if old[0] is None else max(old[0], r.distance or 0.0)
        angle = r.angle if old[1] is None else max(old[1], r.angle or 0.0)
        worst[r.name] = (distance, angle, old[2] and r.satisfied)


def start_from_rest(rig: Rig) -> dict[str, np.ndarray]:
    """Put the rig's solved channels at rest; return their rest rotation channels per bone.

    This is the start pose of a bake (see the module docstring): identity rotation, zero
    location on solved location channels. The returned channels seed the Euler / quaternion
    continuity of the first frame.
    """
    previous = {}
    for name, info in rig.solved.items():
        rig.rotation[name] = np.eye(3)
        for axis, _joint in info.location_joints:
            rig.location[name][axis] = 0.0
        rig.base.pop(name, None)
        rig.local_values.pop(name, None)
        previous[name] = rotations.rotation_to_channels(np.eye(3), info.rotation_mode)
    rig.push_rest()
    return previous


class BakeJob:
    """A bake in progress: :meth:`step` solves one frame, then :meth:`finish` or :meth:`cancel`.

    Args:
        obj: the armature object.
        settings: its Reach settings (``obj.reach_ik``).
        frames: frames to bake, in order (not empty).
        mode: what happens to existing keys, ``"REPLACE"`` or ``"LAYER"`` (see :mod:`.keys`).
        scene: the scene whose frame is stepped.
        only_selected: bake only constraints whose Select box is ticked.

    Raises:
        BakeError: the rig cannot be solved (the scene is left as it was).
    """

    def __init__(self, obj: object, settings: object, frames: Sequence[int], mode: str, *,
                 scene: object, only_selected: bool = False) -> None:  # fmt: skip
        if len(frames) == 0:
            raise BakeError("Reach bake: the frame range is empty")
        if mode not in MODES:
            raise BakeError(f"Reach bake: mode must be one of {MODES}, not {mode!r}")
        self.obj = obj
        self.scene = scene
        self.frames = [int(f) for f in frames]
        self.mode = mode
        self.index = 0
        self.closed = False
        self.worst: Worst = {}
        self.iterations = 0
        self.solve_seconds = 0.0
        self.clock = time.perf_counter()
        self.state = SceneState.capture(scene, obj)
        try:
            scene.frame_set(self.frames[0])
            self.rig = build_rig(obj, settings, only_selected)
            self.solver = solver.Solver(
                self.rig.figure, self.rig.constraints, **solver_options(settings)
            )
            self.channels = keys.solved_channels(self.rig)
            self.state.save_channels((path, index) for path, index, _group in self.channels)
            self.state.mute(builtin_ik(self.rig))
            self.previous = start_from_rest(self.rig)
        except Exception as exc:
            self._fail(exc, None)
        self.values = np.zeros((len(self.channels), len(self.frames)))

    @property
    def done(self) -> bool:
        """Whether every frame is solved."""
        return self.index >= len(self.frames)

    @property
    def frame(self) -> int:
        """The frame the next :meth:`step` solves (the last one once done)."""
        return self.frames[min(self.index, len(self.frames) - 1)]

    def _fail(self, exc: BaseException, frame: int | None) -> None:
        """Restore the scene, then raise :class:`BakeError` from ``exc``."""
        self.cancel()
        where = "" if frame is None else f" stopped at frame {frame}"
        raise BakeError(f"Reach bake{where}, nothing written: {describe(exc)}", frame) from exc

    def step(self) -> None:
        """Solve the next frame; on any error restore the scene and raise :class:`BakeError`."""
        if self.closed or self.done:
            raise BakeError("Reach bake: the job is finished or cancelled")
        frame = self.frames[self.index]
        try:
            self._solve(frame)
        except Exception as exc:
            self._fail(exc, frame)

    def _solve(self, frame: int) -> None:
        rig = self.rig
        if self.index > 0:
            self.scene.frame_set(frame)
            rig.read_pose(solved_too=False)
            rig.push_rest()
            rig.update_targets()
        result = self.solver.solve(rig.initial())
        rig.apply(result)
        channels = rig.channels(self.previous)
        self.previous = {name: rot for name, (rot, _loc) in channels.items()}
        column = [keys.channel_value(channels, *key) for key in self.channels]
        if not np.all(np.isfinite(column)):
            raise RigError(f"the solve at frame {frame} gave non-finite channel values")
        self.values[:, self.index] = column
        _fold(self.worst, result.residuals)
        self.iterations += result.nit
        self.solve_seconds += result.time
        self.index += 1

    def cancel(self) -> None:
        """Stop without writing anything and put the scene back (idempotent)."""
        if not self.closed:
            self.closed = True
            self.state.restore()

    def finish(self) -> BakeReport:
        """Write all keys in bulk, restore frame / constraints / unkeyed pose; the report.

        Raises:
            BakeError: writing failed (everything restored, nothing written).
        """
        if self.closed or not self.done:
            raise BakeError("Reach bake: finish() needs every frame solved and the job open")
        frames = np.array(self.frames, dtype=float)
        data = {key: (frames, self.values[row]) for row, key in enumerate(self.channels)}
        try:
            n_keys = keys.write_keys(self.obj, data, (frames[0], frames[-1]), self.mode)
            self.state.finish({path for path, _index, _group in self.channels})
        except Exception as exc:
            self._fail(exc, None)
        self.closed = True
        return BakeReport(
            frames=tuple(self.frames),
            constraints=tuple(c.name for c in self.rig.constraints),
            worst=dict(self.worst),
            n_keys=n_keys,
            n_channels=len(self.channels),
            n_dof=len(self.rig.figure.coordinate_names),
            iterations=self.iterations,
            solve_seconds=self.solve_seconds,
            seconds=time.perf_counter() - self.clock,
            notes=tuple(self.rig.notes),
        )


def bake(obj: object, settings: object, frames: Sequence[int], mode: str = "REPLACE",
         progress: Callable[[int, int], None] | None = None, *, scene: object,
         only_selected: bool = False) -> BakeReport:  # fmt: skip
    """Bake ``frames`` in one go; ``progress(done, total)`` is called after every frame.

    Arguments as for :class:`BakeJob`. Any exception (from the bake or from ``progress``)
    restores the scene; Reach's and others are raised as :class:`BakeError`.
    """
    job = BakeJob(obj, settings, frames, mode, scene=scene, only_selected=only_selected)
    try:
        while not job.done:
            job.step()
            if progress is not None:
                progress(job.index, len(job.frames))
    except BakeError:
        raise
    except Exception as exc:
        job._fail(exc, job.frame)
    return job.finish()
