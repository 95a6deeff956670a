"""``HeldSteps``: a Solve run as a generator of steps, its armatures held busy while it runs.

A one-armature Solve (:class:`.frame_solve.FrameSolve`) and a Solve of several armatures as
one system (``joined.solve.JoinedSolve``) both run their first solve and each correction pass
as one step of a generator, and hold their armatures (:mod:`..blender.busy_armatures`) from the
first step until the last, a failure or a cancel. The driving of those steps lives here once.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from typing import TYPE_CHECKING, Generic, TypeVar

from ... import solver
from ..blender import busy_armatures

if TYPE_CHECKING:
    import bpy

Report = TypeVar("Report")


class HeldSteps(Generic[Report]):
    """The step driving of a Solve: the subclass makes ``_steps`` (from its ``_run``), sets
    ``report`` in the last step and says which armatures it holds."""

    report: Report | None
    _steps: Generator[None, None, None]
    _held: bool = False
    _ended: bool = False  # a step failed or cancel() ran: no further step

    def _held_objects(self) -> Sequence[bpy.types.Object]:
        """The armatures this Solve holds busy while it runs (the subclass's)."""
        raise NotImplementedError

    @property
    def done(self) -> bool:
        """Whether the last step has run (the report is ready)."""
        return self.report is not None

    def step(self) -> bool:
        """Run the next step; return :attr:`done`. The armatures are held from the first
        step until the last, or until a step fails (then released and the error raised).

        Raises:
            InvalidInputError: the Solve failed at an earlier step or was cancelled.
        """
        if self.done:
            return True
        if self._ended:
            raise solver.InvalidInputError("this solve failed or was cancelled: start a new one")
        if not self._held:  # released by the last step, a failure or cancel()
            for obj in self._held_objects():
                busy_armatures.hold(obj)
            self._held = True
        try:
            next(self._steps, None)
        except BaseException:
            self._ended = True
            self._release()
            raise
        if self.done:
            self._release()
        return self.done

    def run(self) -> Report:
        """Run every remaining step and return the report."""
        while not self.step():
            pass
        assert self.report is not None, "the last step makes the report"
        return self.report

    def _release(self) -> None:
        """Release the armatures this Solve holds (once)."""
        if self._held:
            for obj in self._held_objects():
                busy_armatures.release(obj)
            self._held = False
