"""Blender-version differences, in one place.

Blender 4.4 introduced layered actions (slots, layers, strips, channelbags) and 5.0 removed
the legacy ``Action.fcurves`` collection. F-curves of an object are reached here through
:func:`fcurves` / :func:`ensure_fcurve`, which work on 4.2 LTS, 4.3, 4.4, 4.5 LTS and 5.x.
Where a function's signature changed within a line (``Action.fcurve_ensure_for_datablock``
takes ``group_name`` from 5.0 only), the branch is chosen by what the running Blender's API
declares, not by its version number.
"""

from __future__ import annotations

from typing import Any, Protocol

import bpy

#: Actions are layered (slots, layers, strips, channelbags; Blender 4.4 on): an object's
#: F-curves are those of its action slot's channelbag, not ``Action.fcurves``.
LAYERED_ACTIONS = "slots" in bpy.types.Action.bl_rna.properties


def _takes_parameter(struct: type, function: str, parameter: str) -> bool:
    """Whether ``struct``'s RNA function ``function`` declares ``parameter`` (False when the
    function itself is missing)."""
    declared = struct.bl_rna.functions.get(function)  # type: ignore[attr-defined]
    return declared is not None and parameter in declared.parameters


#: ``Action.fcurve_ensure_for_datablock`` puts the F-curve in a named group itself (5.0+); on
#: 4.4 and 4.5 it takes no group, which :func:`ensure_fcurve` then assigns.
ENSURE_TAKES_GROUP = _takes_parameter(bpy.types.Action, "fcurve_ensure_for_datablock", "group_name")


class FCurveContainer(Protocol):
    """What holds an object's F-curves and their groups: its action (4.2) or the channelbag
    of its action slot (4.4+), which offer the same two collections."""

    @property
    def fcurves(self) -> bpy.types.ActionFCurves: ...

    @property
    def groups(self) -> bpy.types.ActionGroups: ...


def _api_44(value: object) -> Any:
    """``value`` as seen through the Blender 4.4+ API (action slots, layers, channelbags and
    ``anim_utils``' channelbag lookup), which the 4.2 stubs the type check reads do not declare.
    Used only on branches guarded by :data:`LAYERED_ACTIONS` (and for ``PoseBone.select``)."""
    return value


def context() -> bpy.types.Context:
    """Blender's current context (for callbacks that take one, e.g. a keying set's)."""
    return bpy.context


def ensure_action(obj: bpy.types.Object) -> bpy.types.Action:
    """The object's action, created (and assigned, with a slot on 4.4+) if missing."""
    animation_data = obj.animation_data or obj.animation_data_create()
    if animation_data.action is None:
        animation_data.action = bpy.data.actions.new(f"{obj.name}Action")
    return animation_data.action


def fcurves(obj: bpy.types.Object) -> list[bpy.types.FCurve]:
    """All F-curves animating ``obj`` through its assigned action (slot) — may be empty."""
    animation_data = obj.animation_data
    if animation_data is None or animation_data.action is None:
        return []
    action = animation_data.action
    if not LAYERED_ACTIONS:
        return list(action.fcurves)
    return _slot_fcurves(action, _api_44(animation_data).action_slot)


def _slot_fcurves(action: bpy.types.Action, slot: Any) -> list[bpy.types.FCurve]:
    """The F-curves of ``slot`` of a layered ``action`` (4.4+); [] for no slot or none keyed."""
    from bpy_extras import anim_utils

    if slot is None:
        return []
    channelbag = _api_44(anim_utils).action_get_channelbag_for_slot(action, slot)
    return [] if channelbag is None else list(channelbag.fcurves)


def find_fcurve(obj: bpy.types.Object, data_path: str, index: int) -> bpy.types.FCurve | None:
    """The F-curve for ``data_path[index]`` on ``obj``, or None.

    Blender's own lookup (the first such F-curve, as a scan of :func:`fcurves` finds), in C:
    a scan in Python reads two properties of every F-curve, which made the start of a bake of
    the demo metarig's 66 channels on an action keying all its 159 bones (1576 F-curves) take
    about 80 ms of CPU instead of 15.
    """
    container = fcurve_container(obj)
    return None if container is None else container.fcurves.find(data_path, index=index)


def ensure_fcurve(
    obj: bpy.types.Object, data_path: str, index: int, group: str
) -> bpy.types.FCurve:
    """The F-curve for ``data_path[index]``, created in ``group`` if missing (an existing
    F-curve keeps the group it has)."""
    action = ensure_action(obj)
    if LAYERED_ACTIONS:
        if ENSURE_TAKES_GROUP:
            return _api_44(action).fcurve_ensure_for_datablock(
                obj, data_path, index=index, group_name=group
            )
        existing = find_fcurve(obj, data_path, index)
        if existing is not None:
            return existing
        fcurve = _api_44(action).fcurve_ensure_for_datablock(obj, data_path, index=index)
        container = fcurve_container(obj)
        assert container is not None  # the call above made the slot's channelbag
        fcurve.group = container.groups.get(group) or container.groups.new(group)
        return fcurve
    fcurve = action.fcurves.find(data_path, index=index)
    if fcurve is None:
        fcurve = action.fcurves.new(data_path, index=index, action_group=group)
    return fcurve


def remove_fcurve(obj: bpy.types.Object, fcurve: bpy.types.FCurve) -> None:
    """Delete an F-curve from the object's action."""
    animation_data = obj.animation_data
    if animation_data is None or animation_data.action is None:
        raise ValueError(f"remove_fcurve: obj '{obj.name}' has no action, so no F-curve")
    action = animation_data.action
    if not LAYERED_ACTIONS:
        action.fcurves.remove(fcurve)
        return
    from bpy_extras import anim_utils

    channelbag = _api_44(anim_utils).action_get_channelbag_for_slot(
        action, _api_44(animation_data).action_slot
    )
    channelbag.fcurves.remove(fcurve)


def fcurve_container(obj: bpy.types.Object) -> FCurveContainer | None:
    """What holds ``obj``'s F-curves and groups: the slot's channelbag (4.4+) or the action."""
    animation_data = obj.animation_data
    if animation_data is None or animation_data.action is None:
        return None
    if not LAYERED_ACTIONS:
        return animation_data.action
    from bpy_extras import anim_utils

    slot = _api_44(animation_data).action_slot
    return (
        None
        if slot is None
        else _api_44(anim_utils).action_get_channelbag_for_slot(animation_data.action, slot)
    )


def action_layout(obj: bpy.types.Object) -> tuple:
    """What :func:`ensure_fcurve` may create on ``obj``'s action: an opaque record for
    :func:`restore_action_layout` (animation data, action, slot, layers, channelbag)."""
    animation_data = obj.animation_data
    if animation_data is None:
        return (False, None, None, 0, False)
    action = animation_data.action
    if action is None or not LAYERED_ACTIONS:
        return (True, action, None, 0, fcurve_container(obj) is not None)
    return (True, action, _api_44(animation_data).action_slot, len(_api_44(action).layers),
            fcurve_container(obj) is not None)  # fmt: skip


def restore_action_layout(obj: bpy.types.Object, layout: tuple) -> None:
    """Undo what :func:`ensure_fcurve` created since :func:`action_layout` returned ``layout``.

    An action created since is unassigned and deleted (when nothing else uses it); a slot,
    layer or channelbag created in a pre-existing action is removed; animation data created
    since is cleared.
    """
    had_animation_data, action, slot, n_layers, had_container = layout
    animation_data = obj.animation_data
    if animation_data is None:
        return
    current = animation_data.action
    if current is not None and current != action:
        animation_data.action = None
        if current.users == 0:
            bpy.data.actions.remove(current)
    if action is not None and LAYERED_ACTIONS:
        if not had_container and slot is not None:
            for layer in action.layers:
                for strip in layer.strips:
                    bag = strip.channelbag(slot)
                    if bag is not None:
                        strip.channelbags.remove(bag)
        while len(action.layers) > n_layers:
            action.layers.remove(action.layers[-1])
        slotted = _api_44(animation_data)
        new_slot = slotted.action_slot
        if slot is None and new_slot is not None:
            slotted.action_slot = None
            action.slots.remove(new_slot)
    if not had_animation_data:
        obj.animation_data_clear()


def constraint_enabled(con: bpy.types.Constraint) -> bool:
    """Whether a constraint is active (``enabled`` is the inverse of ``mute``)."""
    return not con.mute


def set_constraint_enabled(con: bpy.types.Constraint, enabled: bool) -> None:
    """Enable or disable (mute) a constraint."""
    con.mute = not enabled


def new_action(name: str, like: bpy.types.Action | None = None) -> bpy.types.Action:
    """A new action named ``name`` (Blender adds a suffix if taken): a copy of ``like`` (keys,
    groups and, on 4.4+, slots) or an empty one."""
    action = bpy.data.actions.new(name) if like is None else like.copy()
    action.name = name
    return action


def delete_action(action: bpy.types.Action) -> None:
    """Remove ``action`` from the file (whoever still uses it)."""
    bpy.data.actions.remove(action)


def assigned_action(obj: bpy.types.Object) -> tuple[bpy.types.Action | None, Any]:
    """The object's action and (4.4+) action slot; ``(None, None)`` without animation data."""
    animation_data = obj.animation_data
    if animation_data is None:
        return None, None
    slot = _api_44(animation_data).action_slot if LAYERED_ACTIONS else None
    return animation_data.action, slot


def assign_action(obj: bpy.types.Object, action: bpy.types.Action | None, slot: Any = None) -> None:
    """Make ``action`` (and, on 4.4+, ``slot`` when given) the object's action."""
    animation_data = obj.animation_data or obj.animation_data_create()
    animation_data.action = action
    if LAYERED_ACTIONS and action is not None and slot is not None:
        _api_44(animation_data).action_slot = slot


def set_strip_slot(strip: bpy.types.NlaStrip, slot: Any) -> None:
    """Play ``slot`` of the strip's action (4.4+; 4.2 actions have no slots)."""
    if LAYERED_ACTIONS and slot is not None:
        _api_44(strip).action_slot = slot


def pose_bone_selected(pose_bone: bpy.types.PoseBone) -> bool:
    """Whether a pose bone is selected (``PoseBone.select`` on 5.0, ``Bone.select`` before)."""
    # Whichever has it (the 4.2 stubs the type check reads know only Bone.select).
    holder = pose_bone if hasattr(pose_bone, "select") else pose_bone.bone
    return bool(_api_44(holder).select)


def strip_fcurves(strip: bpy.types.NlaStrip) -> list[bpy.types.FCurve]:
    """The F-curves an NLA strip plays: its action's (4.2), or its action slot's (4.4+)."""
    action = strip.action
    if action is None:
        return []
    if not LAYERED_ACTIONS:
        return list(action.fcurves)
    return _slot_fcurves(action, _api_44(strip).action_slot)
