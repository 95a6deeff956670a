"""What a live armature's pose depends on, and a snapshot of it to tell real edits from echoes.

Live posing (:mod:`.live`) re-solves when an input of the armature changed. Blender's update
handler says *which* data-blocks were updated, not *what* changed: selecting a bone, drawing
a panel's result or writing the solved pose updates the armature too. So an update only
counts when it touches one of :func:`input_ids` and the :func:`fingerprint` of the inputs
differs from the one taken after the last solve (or after an undo, a load, a Reach job).

The fingerprint holds, as plain numbers:
- the armature object's world matrix;
- every constraint target's world matrix, and a target bone's pose matrix;
- the channels (location, the three rotation kinds, scale, rotation mode) and IK settings
  (locks, limits, stretch, stiffness) of the bones the last solve's figure had (every bone
  before the first solve), and those bones' Reach rigidity;
- the pose Blender evaluated for those bones (``PoseBone.matrix``, which Blender copies
  back to the original bones after each evaluation): an edit of the rig that moves them
  without touching a channel, a target or a Reach setting (a bone constraint added, muted or
  its influence changed, Inherit Rotation switched, a driver's input) shows there. Such
  edits are read through their effect only, with one ``foreach_get``: walking the bone
  constraints' RNA inside the update handler is what crashed Blender 5.0 before;
- every Reach setting of the armature except live posing's own switches, the constraints'
  Select boxes (only partial bakes read them) and the stored results.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .settings import armature_data, bone_settings_of, settings_of

if TYPE_CHECKING:  # the bridge uses Blender only through the objects passed in
    import bpy

#: Reach settings that do not change the solved pose.
IGNORED_SETTINGS = frozenset({
    "rna_type", "live", "evaluate_on_frame_change", "active_index", "select", "has_result",
    "status", "satisfied", "iterations", "dof_count", "solve_time", "residuals",
})  # fmt: skip

#: Pose bone properties read with ``foreach_get``: (name, values per bone).
BONE_CHANNELS = (
    ("location", 3), ("rotation_quaternion", 4), ("rotation_euler", 3),
    ("rotation_axis_angle", 4), ("scale", 3), ("rotation_mode", 1),
    ("lock_ik_x", 1), ("lock_ik_y", 1), ("lock_ik_z", 1),
    ("use_ik_limit_x", 1), ("use_ik_limit_y", 1), ("use_ik_limit_z", 1),
    ("ik_min_x", 1), ("ik_max_x", 1), ("ik_min_y", 1), ("ik_max_y", 1),
    ("ik_min_z", 1), ("ik_max_z", 1), ("ik_stretch", 1),
    ("ik_stiffness_x", 1), ("ik_stiffness_y", 1), ("ik_stiffness_z", 1),
)  # fmt: skip


#: The evaluated pose of each bone (armature space, 4x4, float32 in Blender).
EVALUATED_POSE = ("matrix", 16)


@dataclass(frozen=True)
class Fingerprint:
    """A snapshot of an armature's inputs: numbers (float64, any length) and settings."""

    numbers: np.ndarray
    settings: tuple

    def same_as(self, other: Fingerprint | None) -> bool:
        """Whether ``other`` holds exactly the same inputs."""
        return (
            other is not None
            and self.settings == other.settings
            and self.numbers.shape == other.numbers.shape
            and bool(np.array_equal(self.numbers, other.numbers))
        )


def targets(obj: bpy.types.Object) -> list[bpy.types.Object]:
    """The target objects of ``obj``'s enabled Reach constraints (each once)."""
    out: list[bpy.types.Object] = []
    for item in settings_of(obj).constraints:
        if item.enabled and item.target is not None and item.target not in out:
            out.append(item.target)
    return out


def input_ids(obj: bpy.types.Object) -> set[int]:
    """``session_uid`` of every data-block whose update may change ``obj``'s solved pose:
    the armature object and data, each target object and, for armature targets, its data."""
    ids = {obj.session_uid, armature_data(obj).session_uid}
    for target in targets(obj):
        ids.add(target.session_uid)
        if target.data is not None:
            ids.add(target.data.session_uid)
    return ids


def rna_values(group: bpy.types.bpy_struct) -> tuple:
    """Every stored property of a property group (collections item by item, pointers as the
    pointed data-block's ``session_uid``) except :data:`IGNORED_SETTINGS`."""
    out: list[object] = []
    for prop in group.bl_rna.properties:
        name = prop.identifier
        if name in IGNORED_SETTINGS:
            continue
        value = getattr(group, name)
        if prop.type == "COLLECTION":
            out.append(tuple(rna_values(item) for item in value))
        elif prop.type == "POINTER":
            out.append(None if value is None else getattr(value, "session_uid", None))
        elif getattr(prop, "is_array", False):
            out.append(tuple(value))
        else:
            out.append(value)
    return tuple(out)


def _bone_numbers(obj: bpy.types.Object, bones: Sequence[str] | None) -> list[np.ndarray]:
    pose_bones = obj.pose.bones
    n = len(pose_bones)
    parts = []
    for name, size in (*BONE_CHANNELS, EVALUATED_POSE):
        values = np.empty(n * size, dtype=np.float64)
        # The stubs accept a buffer only through ``__buffer__`` (numpy declares it for Python
        # >= 3.12); Blender's Python 3.11 reads any buffer-protocol object, ndarray included.
        pose_bones.foreach_get(name, values)  # pyright: ignore[reportArgumentType]
        parts.append(values.reshape(n, size))
    table = np.concatenate(parts, axis=1)  # (bones, channels)
    if bones is not None:
        index = {name: i for i, name in enumerate(pose_bones.keys())}
        table = table[[index[name] for name in bones if name in index]]
    return [table.ravel()]


def fingerprint(obj: bpy.types.Object, bones: Sequence[str] | None = None) -> Fingerprint:
    """The inputs of armature ``obj`` now; ``bones`` limits the pose part to these bones
    (the last solve's figure), None reads every bone."""
    numbers = [np.array(obj.matrix_world, dtype=np.float64).ravel()]
    for item in settings_of(obj).constraints:
        target = item.target
        if not item.enabled or target is None:
            continue
        numbers.append(np.array(target.matrix_world, dtype=np.float64).ravel())
        if target.type == "ARMATURE" and item.target_bone in target.pose.bones:
            numbers.append(np.array(target.pose.bones[item.target_bone].matrix).ravel())
    numbers += _bone_numbers(obj, bones)
    rigidity = _rigidity(obj, bones if bones is not None else obj.pose.bones.keys())
    return Fingerprint(np.concatenate(numbers), (rna_values(settings_of(obj)), rigidity))


def _rigidity(obj: bpy.types.Object, bones: Iterable[str]) -> tuple:
    pose_bones = obj.pose.bones
    out = []
    for name in bones:
        pb = pose_bones.get(name)
        if pb is not None:
            rigidity = bone_settings_of(pb)
            out.append((rigidity.use_rigidity, tuple(rigidity.rigidity)))
    return tuple(out)
