"""What a command works on: the scene, its armatures with Reach constraints, the frames, and
each armature's own bake settings (Only Selected Bones, Smooth) as the Bake button reads them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import bpy

from ..bridge.blender import compat
from ..bridge.errors import RigError
from ..props.access import settings_of

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..props.groups import ReachSettings


class CommandError(RigError):
    """A command that cannot run on this file (a missing scene or armature...): exit code 2."""


def scene(name: str | None) -> bpy.types.Scene:
    """The scene named ``name``, else the window's (the file's current scene)."""
    if name is None:
        return bpy.context.scene
    found = bpy.data.scenes.get(name)
    if found is None:
        known = ", ".join(s.name for s in bpy.data.scenes)
        raise CommandError(f"--scene: no scene '{name}' in this file (scenes: {known})")
    return found


def depsgraph(of: bpy.types.Scene) -> bpy.types.Depsgraph:
    """The depsgraph of the view layer Blender evaluates ``of`` with."""
    view_layer = bpy.context.view_layer if of == bpy.context.scene else of.view_layers[0]
    return view_layer.depsgraph


def armatures(of: bpy.types.Scene, names: Sequence[str]) -> list[bpy.types.Object]:
    """The armatures named ``names`` in the scene, or (none named) every armature of the
    scene with an enabled Reach constraint, by name; CommandError when there are none."""
    in_scene = {obj.name: obj for obj in of.objects}
    if names:
        out = []
        for name in names:
            obj = in_scene.get(name)
            if obj is None or obj.type != "ARMATURE":
                what = "is not an armature" if obj is not None else "is not in the scene"
                raise CommandError(f"--armature: '{name}' {what} '{of.name}'")
            out.append(obj)
        return out
    found = [
        obj
        for _name, obj in sorted(in_scene.items())
        if obj.type == "ARMATURE" and any(c.enabled for c in settings_of(obj).constraints)
    ]
    if not found:
        raise CommandError(f"no armature in scene '{of.name}' has an enabled Reach constraint")
    return found


def frames(of: bpy.types.Scene, given: tuple[int, int] | None) -> list[int]:
    """``given`` (first, last) or the scene's frame range, as a list of frames."""
    first, last = given if given is not None else (of.frame_start, of.frame_end)
    return list(range(first, last + 1))


def bones_to_key(obj: bpy.types.Object, settings: ReachSettings) -> set[str] | None:
    """The selected pose bones when the armature's *Only Selected Bones* is ticked, else
    None (every solved bone), as the Bake button reads it."""
    if not settings.bake_only_selected_bones:
        return None
    return {pb.name for pb in obj.pose.bones if compat.pose_bone_selected(pb)}


def smooth_bound(settings: ReachSettings) -> float | None:
    """The armature's *Smooth* bake bound (degrees; scene units for locations), or None."""
    return float(settings.bake_max_change) if settings.bake_smooth else None
