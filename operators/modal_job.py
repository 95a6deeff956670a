"""A Reach job run modally from an operator (Solve, Bake): timer, ESC, progress, status text.

A job (:class:`StepJob`: :class:`..bridge.solve.frame_solve.FrameSolve`,
:class:`..bridge.bake.baking.BakeJob`) does its work in steps and holds its armature busy
(:mod:`..bridge.blender.busy_armatures`) until it ends. :class:`ModalJob` runs one: ``invoke``
starts it (without a window, ``execute`` does the whole work in one go), each timer event runs
steps for up to the operator's ``time_slice`` seconds (at least one step), so Blender's event
loop sees ESC between them; the progress cursor and the status bar follow the job. ESC, or an
error in a step, cancels the job, which puts back what it changed: the operator returns
``CANCELLED``, so no undo step is pushed. The last step's ``FINISHED`` is the one undo step.

Each operator keeps only what is its own: how its job starts, how far it has come, what its
report says.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Generic, Protocol, TypeVar

import bpy

if TYPE_CHECKING:
    from bpy._typing.rna_enums import OperatorReturnItems

    _Operator = bpy.types.Operator  # what the mixin's methods may call on ``self``
else:
    _Operator = object  # the operator class lists bpy.types.Operator itself, after the mixin


class StepJob(Protocol):
    """What :class:`ModalJob` needs of a job."""

    @property
    def done(self) -> bool:
        """Whether the last step has run."""
        ...

    def step(self) -> object:
        """Run the next step (raises on failure)."""
        ...

    def cancel(self) -> None:
        """Stop and put back what the job changed (also after a failed step)."""
        ...

    def progress_text(self) -> str:
        """What the job does next, for the status bar."""
        ...


Job = TypeVar("Job", bound=StepJob)


def begin(operator: bpy.types.Operator, context: bpy.types.Context, total: int,
          text: str) -> object:  # fmt: skip
    """Start ``operator``'s modal run: progress over ``0..total`` steps, a timer event as
    often as Blender can send one, ``text`` in the status bar; return the timer."""
    wm = context.window_manager
    wm.progress_begin(0, total)
    timer = wm.event_timer_add(0.001, window=context.window)
    wm.modal_handler_add(operator)
    context.workspace.status_text_set(text)
    return timer


def end(context: bpy.types.Context, timer: object) -> None:
    """End a modal run :func:`begin` started: remove ``timer``, end the progress cursor and
    clear the status bar."""
    wm = context.window_manager
    wm.event_timer_remove(timer)  # pyright: ignore[reportArgumentType]  (the timer begin() made)
    wm.progress_end()
    context.workspace.status_text_set(None)


class ModalJob(Generic[Job], _Operator):
    """Mixin of an operator that runs a :class:`StepJob` modally (see the module doc).

    The operator class lists ``bpy.types.Operator`` after this mixin and gives the parts
    below marked "the operator's"; ``execute`` runs the work without a window.
    """

    #: Seconds of steps per timer event (at least one step each); 0: one step per event.
    time_slice = 0.0

    _job: Job | None = None
    _timer: object | None = None

    # ------------------------------------------------------------------ the operator's
    def _start_job(self, context: bpy.types.Context) -> Job | None:
        """The operator's: make the job (nothing has run yet), or report why not and return
        None."""
        raise NotImplementedError

    def _progress(self, job: Job) -> tuple[int, int]:
        """The operator's: steps run so far and the most there can be, for the progress
        cursor."""
        raise NotImplementedError

    def _status_text(self, job: Job) -> str:
        """The operator's: the status bar text while ``job`` runs (how ESC cancels it)."""
        raise NotImplementedError

    def _cancelled_text(self, job: Job) -> str:
        """The operator's: the warning after ESC cancelled ``job``."""
        raise NotImplementedError

    def _report_failure(self, job: Job, exc: Exception) -> set[OperatorReturnItems]:
        """The operator's: report a step's error (``job`` is cancelled already), or raise it
        again when it is no user's error; return ``{'CANCELLED'}``."""
        raise NotImplementedError

    def _finish_job(self, job: Job) -> set[OperatorReturnItems]:
        """The operator's: the report of a ``job`` whose last step has run."""
        raise NotImplementedError

    # ------------------------------------------------------------------ the modal run
    def invoke(
        self, context: bpy.types.Context, event: bpy.types.Event
    ) -> set[OperatorReturnItems]:
        """Start the job and its modal run; without a window (background) ``execute``."""
        if context.window is None:  # no event loop: the work in one go
            return self.execute(context)
        job = self._start_job(context)
        if job is None:
            return {"CANCELLED"}
        self._job = job
        _done, total = self._progress(job)
        self._timer = begin(self, context, total, self._status_text(job))
        return {"RUNNING_MODAL"}

    def modal(self, context: bpy.types.Context, event: bpy.types.Event) -> set[OperatorReturnItems]:
        """ESC cancels; a timer event runs steps; any other event passes through."""
        job = self._job
        assert job is not None, "invoke() starts the job before the modal handler runs"
        if event.type == "ESC":
            self._end_modal(context)
            job.cancel()
            self.report({"WARNING"}, self._cancelled_text(job))
            return {"CANCELLED"}  # no undo step: the job put back what it changed
        if event.type != "TIMER":
            return {"PASS_THROUGH"}
        deadline = time.perf_counter() + self.time_slice  # keep the UI responsive
        try:
            job.step()
            while not job.done and time.perf_counter() < deadline:
                job.step()
        except Exception as exc:
            self._end_modal(context)
            job.cancel()  # as for ESC: what the job changed is put back, no undo step
            return self._report_failure(job, exc)
        context.window_manager.progress_update(self._progress(job)[0])
        if not job.done:
            context.workspace.status_text_set(self._status_text(job))
            return {"RUNNING_MODAL"}
        self._end_modal(context)
        return self._finish_job(job)

    def _run_to_end(self, context: bpy.types.Context, job: Job) -> None:
        """Run ``job``'s steps in one go (``execute``: no window, or called from Python), the
        progress cursor following them; a step's error propagates."""
        wm = context.window_manager
        wm.progress_begin(0, self._progress(job)[1])
        try:
            while not job.done:
                job.step()
                wm.progress_update(self._progress(job)[0])
        finally:
            wm.progress_end()

    def _end_modal(self, context: bpy.types.Context) -> None:
        """:func:`end` the run, once (later calls do nothing)."""
        if self._timer is not None:
            end(context, self._timer)
            self._timer = None
