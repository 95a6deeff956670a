"""Live posing: re-solve an armature whenever one of its inputs changes, and on frame change.

Two switches on the armature's Reach settings drive it:

``live``
    After every depsgraph update that touched one of the armature's inputs (the armature,
    a target object or armature, see :func:`.inputs.input_ids`) and changed them (the
    :func:`.inputs.fingerprint` differs from the one taken after the last solve), the
    armature is solved warm from its current pose under a time budget (the add-on passes
    the preference, 16 ms by default: a frame at 60 fps; :data:`BUDGET` when none is
    given), the pose written and measured as a Solve does
    (:meth:`..session.rig_session.RigSession.solve_frame`, no keys). A solve that stops at the
    budget has written the best pose so far and is marked unfinished: :func:`resume_unfinished` (run
    from a timer by the add-on) and the next update continue from there. When the pose
    moved and Auto Keying is on, the changed channels are keyed as a transform would
    (:mod:`..write.autokey`).
``evaluate_on_frame_change``
    After every frame change the armature is solved from the animated targets and the pose
    written, never keyed: a preview of the bake. Each frame has the bake's own budget
    (:data:`..bake.baking.TIME_LIMIT`), so the preview is what a bake of that frame gives.

Neither runs while a Reach job (a Solve, a bake) holds the armature
(:mod:`..blender.busy_armatures`): the result of such a job, like the state after an undo or a load
(:func:`accept_restored`), is taken as it is, not solved again. A live solve's own updates are
ignored (re-entrancy guard), so writing the pose never starts another solve. Any error switches the
switch off and is reported once (:attr:`LiveState.error`, printed), instead of failing again on
every update. Rendering is the add-on's concern (it does not call in here while a render runs).
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import TYPE_CHECKING

import numpy as np

from ...props.access import settings_of
from ..bake import baking
from ..blender import busy_armatures
from ..blender.editable import why_not_editable
from ..joined.together import group_of
from ..measure.frame_report import STATUS_STOPPED, FrameReport
from ..rig.joints import rotation_values
from ..session import last_report
from ..session.kept import session_for
from ..write import keys
from ..write.autokey import autokey
from .inputs import fingerprint, input_ids
from .state import LiveState, plan_next

if TYPE_CHECKING:
    import bpy

#: Wall-time budget of one live update's solve when none is given, seconds (60 fps).
BUDGET = 0.016
#: A re-solve that moves no solved channel by more than this did not change the pose: no key.
UNCHANGED = 1e-6
#: The two switches, by what they react to.
LIVE, FRAME_CHANGE = "live", "evaluate_on_frame_change"


_STATES: dict[int, LiveState] = {}
_SOLVING: list[bool] = []  # not empty while a live solve runs: its own updates are ignored


def state_of(obj: bpy.types.Object) -> LiveState:
    """The live state of armature ``obj`` (created on first use)."""
    state = _STATES.get(obj.session_uid)
    if state is None:
        state = _STATES[obj.session_uid] = LiveState(releases=busy_armatures.releases(obj))
    return state


def live_error(obj: bpy.types.Object) -> str:
    """Why live posing (or frame-change evaluation) of ``obj`` was last switched off, or ""."""
    state = _STATES.get(obj.session_uid)
    return "" if state is None else state.error


def live_alone(obj: bpy.types.Object, view_layer: bpy.types.ViewLayer) -> str:
    """What the panel says when live posing ``obj`` leaves out armatures a Solve or Bake of it
    joins (:func:`..joined.together.group_of`): live posing solves each armature alone, another
    armature's bone read as a fixed target; "" when it joins none (or Live is off)."""
    if not settings_of(obj).live:
        return ""
    others = group_of(obj, view_layer)[1:]
    if not others:
        return ""
    names = ", ".join(f"'{other.name}'" for other in others)
    return f"Live solves '{obj.name}' alone; Solve and Bake join {names}"


def solving() -> bool:
    """Whether a live solve is running now (its own updates must be ignored)."""
    return bool(_SOLVING)


def forget() -> None:
    """Drop every armature's state (a file was loaded, or the add-on unregistered)."""
    _STATES.clear()


def _switched_on(obj: bpy.types.Object, switch: str) -> bool:
    """``switch`` is on for an armature Reach may edit that has something to solve: without
    an enabled constraint there is nothing to do yet, which is no error (Live waits)."""
    if obj.type != "ARMATURE" or obj.mode == "EDIT":
        return False
    settings = settings_of(obj)
    return (
        bool(getattr(settings, switch))
        and any(item.enabled for item in settings.constraints)
        and why_not_editable(obj) is None
    )


def accept_current(objects: Iterable[bpy.types.Object]) -> None:
    """Take each armature's inputs as they are now, without solving (after a load: the file
    holds the world matrices, and the opened pose is what the user gets)."""
    for obj in objects:
        state = state_of(obj)
        state.seen = fingerprint(obj, state.bones)
        state.releases = busy_armatures.releases(obj)
        state.unfinished = state.accept_next = False


def accept_restored(objects: Iterable[bpy.types.Object]) -> None:
    """After an undo, a redo or a load: the next update takes each armature's inputs as they
    are, without solving (the restored pose is what the user gets). Not at once: Blender
    calls the undo and load handlers before it evaluates the restored scene, whose world
    matrices are not filled in yet."""
    for obj in objects:
        state = state_of(obj)
        state.accept_next = True
        state.unfinished = False


def _pose_values(obj: bpy.types.Object, bones: Iterable[str]) -> np.ndarray:
    parts = [np.zeros(0)]
    for name in bones:
        pb = obj.pose.bones[name]
        parts += [rotation_values(pb), np.array(pb.location, dtype=float)]
    return np.concatenate(parts)


def solve_now(
    obj: bpy.types.Object,
    scene: bpy.types.Scene,
    view_layer: bpy.types.ViewLayer,
    edit: bpy.types.PreferencesEdit | None,
    switch: str = LIVE,
    budget: float | None = None,
) -> FrameReport | None:
    """Solve ``obj`` warm from its pose within ``budget`` seconds and write the pose.

    With ``edit`` (the preferences' editing settings), a pose that moved is auto-keyed as a
    transform would be; None never keys. On any error ``switch`` is turned off, the reason
    kept in :attr:`LiveState.error` and printed, and None returned.
    """
    state = state_of(obj)
    settings = settings_of(obj)
    clock = time.perf_counter()
    _SOLVING.append(True)
    try:
        session = session_for(obj, settings, scene, view_layer)  # kept between updates
        limit = BUDGET if budget is None else budget
        limit *= state.budget_scale if switch == LIVE else 1  # this update's own time limit
        solved = list(session.rig.solved)
        before = _pose_values(obj, solved)
        options = session.solver.options.replace(time_limit=limit)
        report = session.solve_frame(follow_hidden=False, options=options)  # no relation changes
        state.bones = tuple(session.rig.bones)
        moved = np.abs(_pose_values(obj, solved) - before).max(initial=0.0) > UNCHANGED
        if edit is not None and moved:
            autokey(obj, scene, edit, lambda: keys.solved_channels(session.rig))
        state.solves += 1
        state.seconds.append(time.perf_counter() - clock)
        state.error = ""
        plan_next(state, report.status == STATUS_STOPPED, moved)
        last_report.store(obj, report)
        state.seen = fingerprint(obj, state.bones)
        state.releases = busy_armatures.releases(obj)
    except Exception as exc:  # reported once and switched off, never raised into Blender
        _switch_off(obj, switch, exc)
        return None
    finally:
        _SOLVING.pop()
    return report


def _switch_off(obj: bpy.types.Object, switch: str, exc: Exception) -> None:
    """Turn ``switch`` off after ``exc``; keep and print the reason once."""
    state = state_of(obj)
    setattr(settings_of(obj), switch, False)
    name = "Live" if switch == LIVE else "Evaluate on Frame Change"
    state.error = f"Reach: {name} switched off for '{obj.name}': {exc}"
    state.unfinished = False
    print(state.error)


def _needs_solve(
    obj: bpy.types.Object, state: LiveState, switch: str, updated: set[int] | None
) -> bool:
    """Whether ``obj`` needs a solve after an update that touched ``updated`` (None: a frame
    change, which may move anything); an error here switches ``switch`` off too."""
    try:
        if (
            updated is not None
            and not (state.unfinished or state.accept_next)
            and updated.isdisjoint(input_ids(obj))
        ):
            return False
        return _changed(obj, state)
    except Exception as exc:  # reported once and switched off, never raised into Blender
        _switch_off(obj, switch, exc)
        return False


def on_update(
    objects: Iterable[bpy.types.Object],
    updated: set[int],
    scene: bpy.types.Scene,
    view_layer: bpy.types.ViewLayer,
    edit: bpy.types.PreferencesEdit | None,
    budget: float | None = None,
    defer: bool = False,
) -> int:
    """After a depsgraph update: solve every live armature whose inputs changed.

    Args:
        objects: the candidates (the view layer's objects).
        updated: ``session_uid`` of every data-block the update touched (originals).
        edit: the preferences' editing settings, for auto keying (None: never key).
        defer: do not solve now; mark each such armature unfinished, so the add-on's timer
            (:func:`resume_unfinished`) solves it once the update is over. For an update in
            which Blender rebuilt its dependency graph: a pose written and evaluated again
            inside such an update's handler makes Blender (4.2 and 5.0) crash at a later
            update.

    Returns:
        The number of armatures solved (or marked, with ``defer``).
    """
    if _SOLVING:
        return 0
    count = 0
    for obj in objects:
        if not _switched_on(obj, LIVE) or busy_armatures.is_busy(obj):
            continue
        state = state_of(obj)
        if _needs_solve(obj, state, LIVE, updated):
            if defer:
                state.unfinished = True
            else:
                solve_now(obj, scene, view_layer, edit, LIVE, budget)
            count += 1
    return count


def _changed(obj: bpy.types.Object, state: LiveState) -> bool:
    """Whether ``obj`` needs a solve: its inputs changed since the last look, or the last
    solve is unfinished. What a Reach job (Solve, bake) wrote since is accepted as it is."""
    now = fingerprint(obj, state.bones)
    if state.accept_next or busy_armatures.releases(obj) != state.releases:
        state.seen, state.releases, state.unfinished = now, busy_armatures.releases(obj), False
        state.accept_next = False
        return False
    return state.unfinished or not now.same_as(state.seen)


def resume_unfinished(
    objects: Iterable[bpy.types.Object],
    scene: bpy.types.Scene,
    view_layer: bpy.types.ViewLayer,
    edit: bpy.types.PreferencesEdit | None,
    budget: float | None = None,
) -> bool:
    """Continue every live armature whose last solve stopped at its budget; return whether
    one is still unfinished (the add-on's timer then runs again)."""
    if _SOLVING:
        return True
    left = False
    for obj in objects:
        if not _switched_on(obj, LIVE) or busy_armatures.is_busy(obj):
            continue
        state = state_of(obj)
        if state.unfinished:
            solve_now(obj, scene, view_layer, edit, LIVE, budget)
            left = left or state.unfinished
    return left


def frame_change_wanted(objects: Iterable[bpy.types.Object]) -> bool:
    """Whether :func:`on_frame_change` may solve one of ``objects``: one has *Evaluate on
    Frame Change* on and no Reach job holds it. False (every frame of a bake of the only such
    armature, or of a file without one): the frame-change handler returns at once."""
    return any(
        obj.type == "ARMATURE"
        and getattr(settings_of(obj), FRAME_CHANGE)
        and not busy_armatures.is_busy(obj)
        for obj in objects
    )


def on_frame_change(
    objects: Iterable[bpy.types.Object],
    scene: bpy.types.Scene,
    view_layer: bpy.types.ViewLayer,
    budget: float | None = None,
) -> int:
    """After a frame change: solve every armature evaluated on frame change whose inputs
    changed (a frame where nothing moves, e.g. the frame restored after a render, is not
    solved again), without keys.

    Returns the number of armatures solved.
    """
    if _SOLVING:
        return 0
    count = 0
    for obj in objects:
        if (
            _switched_on(obj, FRAME_CHANGE)
            and not busy_armatures.is_busy(obj)
            and _needs_solve(obj, state_of(obj), FRAME_CHANGE, None)
        ):
            solve_now(obj, scene, view_layer, None, FRAME_CHANGE, budget or baking.TIME_LIMIT)
            count += 1
    return count
