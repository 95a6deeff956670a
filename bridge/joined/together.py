"""Several armatures solved or baked as one system: the kept sessions joined
(:mod:`.figure`, :mod:`.solve`).

The operators ask :func:`group_of` which armatures a Solve or bake of the active one joins; for
more than one they call :func:`solve_together` instead of one session's Solve, and
:func:`start_bake_together` (modal) or :func:`bake_together` (in one go) instead of one
armature's bake; a modal Solve starts with :func:`start_solve_together`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from ...props.access import settings_of
from ..blender import busy_armatures
from ..errors import RigError
from ..session import last_report
from ..session.kept import session_for
from .bake import JoinedBakeJob, JoinedBakeReport, bake_joined
from .group import armature_group
from .solve import JoinedReport, JoinedSolve, solve_joined

if TYPE_CHECKING:
    import bpy

    from ..session.rig_session import RigSession

__all__ = [
    "JoinedBakeJob",
    "JoinedBakeReport",
    "JoinedReport",
    "JoinedSolve",
    "bake_together",
    "group_of",
    "keep_reports",
    "solve_together",
    "start_bake_together",
    "start_solve_together",
]


def group_of(
    active: bpy.types.Object,
    view_layer: bpy.types.ViewLayer,
    selected: Iterable[bpy.types.Object] = (),
) -> list[bpy.types.Object]:
    """The armatures a Solve or bake of ``active`` joins (``active`` first; see
    :func:`.group.armature_group`)."""
    return armature_group(active, view_layer.objects, selected)


def _check_free(objects: Sequence[bpy.types.Object]) -> None:
    """RigError naming an armature a modal Solve or bake is working on (the active one's is
    refused by the operators' poll; the others are checked here)."""
    for obj in objects:
        if busy_armatures.is_busy(obj):
            raise RigError(
                f"Armature '{obj.name}' is being solved or baked now (ESC cancels it): it cannot "
                "join this one until that ends"
            )


def _members(
    objects: Sequence[bpy.types.Object], scene: bpy.types.Scene, view_layer: bpy.types.ViewLayer
) -> list[RigSession]:
    """The kept session of each armature, once none is held by a modal job (:func:`_check_free`)."""
    _check_free(objects)
    return [session_for(o, settings_of(o), scene, view_layer) for o in objects]


def solve_together(
    objects: Sequence[bpy.types.Object],
    scene: bpy.types.Scene,
    view_layer: bpy.types.ViewLayer,
    insert_keys: bool = False,
    frame: float | None = None,
) -> JoinedReport:
    """Solve ``objects``' armatures in one system at the current frame (keys at ``frame``);
    each armature's part of the report is kept as its last report (the panel's Last Solve).

    Raises:
        RigError: an armature or a target cannot be solved, or a modal job holds one (named).
    """
    members = _members(objects, scene, view_layer)
    report = solve_joined(members, insert_keys, frame)
    keep_reports(objects, report)
    return report


def start_solve_together(
    objects: Sequence[bpy.types.Object],
    scene: bpy.types.Scene,
    view_layer: bpy.types.ViewLayer,
    insert_keys: bool = False,
    frame: float | None = None,
) -> JoinedSolve:
    """A Solve of ``objects``' armatures in one system, ready for its first step at a later
    event (:class:`.solve.JoinedSolve`; every armature's pose recorded for ESC). The
    operator keeps each armature's part of its report (:func:`keep_reports`).

    Raises:
        RigError: an armature cannot be read, or a modal job holds one (named).
    """
    members = _members(objects, scene, view_layer)
    for member in members:
        member.mark_stale()  # the first step runs at a later event: the scene is read then
    return JoinedSolve(members, insert_keys, frame)


def start_bake_together(
    objects: Sequence[bpy.types.Object],
    frames: Sequence[int],
    mode: str,
    scene: bpy.types.Scene,
    depsgraph: bpy.types.Depsgraph,
    time_limit: float,
    unsupported: Sequence[str] = (),
) -> JoinedBakeJob:
    """A bake of ``frames`` of ``objects``' armatures as one system, ready for its first step
    (:class:`.bake.JoinedBakeJob`); ``unsupported``: bake options given that a join does not
    offer (named in the error).

    Raises:
        BakeError: the armatures cannot be baked (named cause); nothing was written.
        RigError: a modal Solve or bake holds one of the armatures (named).
    """
    _check_free(objects)
    return JoinedBakeJob(objects, frames, mode, scene=scene, depsgraph=depsgraph,
                         time_limit=time_limit, unsupported=unsupported)  # fmt: skip


def keep_reports(
    objects: Sequence[bpy.types.Object], report: JoinedReport | JoinedBakeReport
) -> None:
    """Keep each armature's part of a joined Solve's or bake's ``report`` as its last
    report."""
    for obj, (_name, part) in zip(objects, report.reports, strict=True):
        last_report.store(obj, part)


def bake_together(
    objects: Sequence[bpy.types.Object],
    frames: Sequence[int],
    mode: str,
    scene: bpy.types.Scene,
    depsgraph: bpy.types.Depsgraph,
    time_limit: float,
    unsupported: Sequence[str] = (),
) -> JoinedBakeReport:
    """Bake ``frames`` of ``objects``' armatures as one system in one go
    (:func:`.bake.bake_joined`: the job :func:`start_bake_together` makes, run to its end); each
    armature's part of the report is kept as its last report.

    Raises:
        BakeError: the bake stopped (named frame and cause); nothing was written.
        RigError: a modal Solve or bake holds one of the armatures (named).
    """
    _check_free(objects)
    report = bake_joined(objects, frames, mode, scene=scene, depsgraph=depsgraph,
                         time_limit=time_limit, unsupported=unsupported)  # fmt: skip
    keep_reports(objects, report)
    return report
