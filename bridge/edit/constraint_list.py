"""Editing an armature's list of Reach constraints: add, remove, move (Convert: :mod:`.convert`).

Each function changes the list (``settings.constraints``) and returns the sentence the
operator reports, or raises :class:`..rig.joints.RigError` (bad input, nothing changed) or
:class:`NothingToDoError` (nothing to change). ``bpy`` is used only through the objects passed in.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from ...props.access import armature_data
from ..errors import RigError
from ..rig.build import bone_world_matrix

if TYPE_CHECKING:
    import bpy

    from ...props.groups import ReachConstraint, ReachSettings


class NothingToDoError(RigError):
    """The request is valid but changes nothing (reported as a warning)."""


def _unique_name(settings: ReachSettings, base: str) -> str:
    names = {c.name for c in settings.constraints}
    if base not in names:
        return base
    k = 1
    while f"{base}.{k:03d}" in names:
        k += 1
    return f"{base}.{k:03d}"


def append(
    settings: ReachSettings,
    name: str,
    bone: str,
    target: bpy.types.Object | None,
    goal_type: str,
) -> ReachConstraint:
    """A new constraint item (name made unique), made the active one; returns it."""
    item = cast("ReachConstraint", settings.constraints.add())
    item.name = _unique_name(settings, name)
    item.bone = bone
    item.goal_type = goal_type
    item.target = target
    settings.active_index = len(settings.constraints) - 1
    return item


def check_bone(obj: bpy.types.Object, bone: str) -> str:
    """``bone`` if the armature has it; RigError naming it otherwise."""
    if not bone or bone not in armature_data(obj).bones:
        raise RigError(f"no active bone (or bone '{bone}' not found)")
    return bone


def remove_active(settings: ReachSettings) -> str:
    """Remove the active constraint; return the report sentence."""
    index = settings.active_index
    if not 0 <= index < len(settings.constraints):
        raise RigError("no constraint selected")
    name = settings.constraints[index].name
    settings.constraints.remove(index)
    settings.active_index = min(index, len(settings.constraints) - 1)
    return f"removed '{name}'"


def move_active(settings: ReachSettings, direction: str) -> str:
    """Move the active constraint one place ``"UP"`` or ``"DOWN"``."""
    index = settings.active_index
    new = index - 1 if direction == "UP" else index + 1
    if not (0 <= index < len(settings.constraints) and 0 <= new < len(settings.constraints)):
        raise NothingToDoError("cannot move further")
    settings.constraints.move(index, new)
    settings.active_index = new
    return f"moved '{settings.constraints[new].name}' to {new + 1}"


def empty_at_tail(
    context: bpy.types.Context, obj: bpy.types.Object, bone: str, suffix: str
) -> bpy.types.Object:
    """A new plain-axes empty ``"<bone>.<suffix>"`` at the bone's evaluated tail, with the
    bone's orientation, in the armature's first collection."""
    context.view_layer.update()  # pose matrices of the current frame
    matrix = bone_world_matrix(obj, bone, at_tail=True)  # (4, 4) world transform
    empty = context.blend_data.objects.new(f"{bone}.{suffix}", None)
    empty.empty_display_type = "PLAIN_AXES"
    empty.empty_display_size = 0.3 * armature_data(obj).bones[bone].length
    # Blender reads a nested sequence into a matrix property column by column.
    empty.matrix_world = matrix.T.tolist()  # pyright: ignore[reportAttributeAccessIssue]  # the stubs want a mathutils.Matrix; any 4x4 sequence is accepted
    collection = obj.users_collection
    (collection[0] if collection else context.scene.collection).objects.link(empty)
    return empty
