"""Scene builders and inspection helpers shared by the Reach operator tests (not a test file).

Import with ``from tests.blender.reach_scenes import ...`` (pytest runs with the repository root
on ``sys.path``).
"""

from __future__ import annotations

from collections.abc import Callable

import bpy
import numpy as np


def make_chain(
    name: str = "Chain", n: int = 3, length: float = 1.0, connected: bool = True
) -> bpy.types.Object:
    """An armature of ``n`` bones along +Z (b0 at the origin), active and selected."""
    scene = bpy.context.scene
    arm = bpy.data.armatures.new(name)
    obj = bpy.data.objects.new(name, arm)
    scene.collection.objects.link(obj)
    bpy.context.view_layer.objects.active = obj
    obj.select_set(True)
    bpy.ops.object.mode_set(mode="EDIT")
    previous = None
    for i in range(n):
        bone = arm.edit_bones.new(f"b{i}")
        bone.head = (0.0, 0.0, i * length)
        bone.tail = (0.0, 0.0, (i + 1) * length)
        if previous is not None:
            bone.parent = previous
            bone.use_connect = connected
        previous = bone
    bpy.ops.object.mode_set(mode="OBJECT")
    return obj


def add_empty(name: str, location: tuple, rotation: tuple = (0.0, 0.0, 0.0)) -> bpy.types.Object:
    """An empty at ``location`` with Euler XYZ ``rotation`` (radians)."""
    empty = bpy.data.objects.new(name, None)
    bpy.context.scene.collection.objects.link(empty)
    empty.location = location
    empty.rotation_euler = rotation
    bpy.context.view_layer.update()
    return empty


def activate(obj: bpy.types.Object) -> None:
    """Make ``obj`` the active object (object mode)."""
    bpy.context.view_layer.objects.active = obj
    obj.select_set(True)


def add_constraint(obj: bpy.types.Object, bone: str, target: bpy.types.Object, goal: str,
                   **settings: object) -> object:  # fmt: skip
    """Add a constraint through ``reach.constraint_add``, then set extra item properties."""
    activate(obj)
    result = bpy.ops.reach.constraint_add(bone=bone, target=target.name, goal_type=goal)
    assert result == {"FINISHED"}
    item = obj.reach_ik.constraints[-1]
    for key, value in settings.items():
        setattr(item, key, value)
    return item


def follow_path(
    path: Callable[[int], tuple[float, float, float]], frames: int, goal: str = "POSITION"
) -> tuple[bpy.types.Object, bpy.types.Object]:
    """A 3-bone chain whose b2 follows an empty keyed at ``path(frame)`` on frames 1 to
    ``frames`` (the scene's range), through a ``goal`` constraint; at frame 1, the chain
    active. Returns the armature and the target."""
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, frames
    obj = make_chain()
    target = add_empty("T", path(1))
    for frame in range(1, frames + 1):
        target.location = path(frame)
        target.keyframe_insert("location", frame=frame)
    add_constraint(obj, "b2", target, goal)
    scene.frame_set(1)
    activate(obj)
    return obj, target


def fcurves(obj: bpy.types.Object) -> list:
    """F-curves of the object's assigned action (legacy on 4.2, channelbag on 4.4+)."""
    ad = obj.animation_data
    if ad is None or ad.action is None:
        return []
    if bpy.app.version < (4, 4, 0):
        return list(ad.action.fcurves)
    from bpy_extras import anim_utils

    bag = anim_utils.action_get_channelbag_for_slot(ad.action, ad.action_slot)
    return [] if bag is None else list(bag.fcurves)


def channel_set(obj: bpy.types.Object) -> set[tuple[str, int]]:
    """``{(data_path, index)}`` of every animated channel with at least one key."""
    return {(f.data_path, f.array_index) for f in fcurves(obj) if len(f.keyframe_points)}


def keys_of(obj: bpy.types.Object) -> dict[tuple[str, int], np.ndarray]:
    """Every key ``(frame, value, handles...)`` per channel, for before/after comparisons."""
    out = {}
    for f in fcurves(obj):
        n = len(f.keyframe_points)
        data = []
        for prop in ("co", "handle_left", "handle_right"):
            a = np.empty(2 * n, dtype=np.float32)
            f.keyframe_points.foreach_get(prop, a)
            data.append(a)
        out[(f.data_path, f.array_index)] = np.concatenate(data)
    return out


def pose_of(obj: bpy.types.Object) -> dict[str, np.ndarray]:
    """All pose channels (location, every rotation kind, scale) per bone."""
    return {
        pb.name: np.concatenate([
            pb.location, pb.rotation_quaternion, pb.rotation_euler, pb.rotation_axis_angle,
            pb.scale,
        ])
        for pb in obj.pose.bones
    }  # fmt: skip


def bone_path(bone: str, prop: str) -> str:
    """RNA path of a pose bone property."""
    return f'pose.bones["{bone}"].{prop}'


def rotation_angle(matrix_a: np.ndarray, matrix_b: np.ndarray) -> float:
    """Angle (degrees) between two rotations (3, 3)."""
    r = np.asarray(matrix_a)[:3, :3].T @ np.asarray(matrix_b)[:3, :3]
    return float(np.degrees(np.arccos(np.clip((np.trace(r) - 1.0) / 2.0, -1.0, 1.0))))


def angle_between(u: np.ndarray, v: np.ndarray) -> float:
    """Angle (degrees) between two vectors."""
    u, v = np.asarray(u, dtype=float), np.asarray(v, dtype=float)
    c = np.dot(u, v) / (np.linalg.norm(u) * np.linalg.norm(v))
    return float(np.degrees(np.arccos(np.clip(c, -1.0, 1.0))))


def last_report(obj: bpy.types.Object) -> object:
    """The report of the last Solve of ``obj`` (kept at runtime by the installed extension)."""
    import importlib

    results = importlib.import_module("bl_ext.user_default.reach_ik.bridge.session.last_report")
    report = results.last(obj)
    assert report is not None, f"no solve report for '{obj.name}'"
    return report


def scene_state(obj: bpy.types.Object) -> tuple:
    """Keys, pose channels and object names, for :func:`assert_unchanged`."""
    return keys_of(obj), pose_of(obj), sorted(o.name for o in bpy.data.objects)


def assert_unchanged(before: tuple, after: tuple) -> None:
    """Two :func:`scene_state` snapshots are identical (keys, pose, objects)."""
    keys_before, pose_before, objects_before = before
    keys_after, pose_after, objects_after = after
    assert objects_before == objects_after
    assert keys_before.keys() == keys_after.keys()
    for channel, data in keys_before.items():
        assert np.array_equal(data, keys_after[channel]), channel
    for name, values in pose_before.items():
        assert np.array_equal(values, pose_after[name]), name


def call_reach(operator: str) -> set[str]:
    """Call a Reach operator as the Solve, Solve & Key, Bake or Clear Keys button does
    (``operator``: ``"solve"``, ``"solve_and_key"``, ``"bake"`` or ``"clear_keys"``)."""
    if operator == "solve_and_key":
        return bpy.ops.reach.solve(insert_keys=True)
    return {
        "solve": bpy.ops.reach.solve,
        "bake": bpy.ops.reach.bake,
        "clear_keys": bpy.ops.reach.clear_keys,
    }[operator]()


def tolerance_of(obj: bpy.types.Object) -> float:
    """The distance tolerance (scene units) the last solve or bake of ``obj`` judged its goals
    by: the Tolerance setting, or relative to the rig's size when it is Automatic."""
    import importlib

    bridge = "bl_ext.user_default.reach_ik.bridge"
    length = importlib.import_module(f"{bridge}.rig.size").rig_length(obj)
    assert length is not None, f"'{obj.name}' was never solved"
    rig_size = importlib.import_module(f"{bridge}.rig.size")
    return rig_size.distance_tolerance(obj.reach_ik, length)
