"""Target Track: key an object's location along a preset path (:mod:`.track_paths`).

Which object: the one named; else, when the active object is an armature with Reach
constraints, the target of its active constraint (the animator sets up the constraint, then
moves its target: the armature stays active); else the active object itself (an empty
selected in object mode). The keys go on the object's three location channels, one key on
every frame of the range, and nothing else changes: every other channel, and every location
key outside the range, is left as it was; location keys inside the range are replaced.

``bpy`` is used only through the objects passed in.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ...props.access import settings_of
from ..blender import compat
from ..write.keys import read_points, write_keys, write_points
from .track_paths import PLANE_AXES, SHAPES, TrackError, track_points

if TYPE_CHECKING:
    import bpy

#: The F-curve group Blender itself files location keys under.
GROUP = "Object Transforms"
#: Half-step (frames) of the central difference that gives the path's slope at a key.
SLOPE_STEP = 1e-3
_LABELS = {key: label for key, label, _description in SHAPES}


def chosen_object(
    active: bpy.types.Object | None, named: bpy.types.Object | None
) -> bpy.types.Object:
    """The object Target Track animates (see the module docstring).

    Raises:
        TrackError: no object, an armature without a usable active constraint target (none,
            a bone, the armature itself), or a linked object (its keys would be lost on
            reload). To move an armature object itself, name it.
    """
    obj = named
    if obj is None and active is not None and active.type == "ARMATURE":
        settings = settings_of(active)
        if not settings.constraints:
            raise TrackError(
                f"armature '{active.name}' has no Reach constraint whose target to animate: "
                "add one, or make the target object (an empty) the active object"
            )
        item = settings.constraints[min(settings.active_index, len(settings.constraints) - 1)]
        if item.target is None:
            raise TrackError(f"Reach constraint '{item.name}' of '{active.name}' has no target")
        if item.target_bone:
            raise TrackError(
                f"the target of Reach constraint '{item.name}' is bone '{item.target_bone}' "
                f"of '{item.target.name}': Target Track moves an object; target an empty"
            )
        if item.target == active:
            raise TrackError(
                f"the target of Reach constraint '{item.name}' is armature '{active.name}' "
                "itself: Target Track would move the whole rig; target an empty"
            )
        obj = item.target
    if obj is None:
        obj = active
    if obj is None:
        raise TrackError(
            "no object to animate: make the target (an empty) the active object, or an "
            "armature whose active Reach constraint has a target"
        )
    if obj.library is not None:
        raise TrackError(
            f"object '{obj.name}' is linked from '{obj.library.filepath}' without a library "
            "override, so its keys would be lost on reload: make a library override first"
        )
    if obj.override_library is not None and obj.override_library.is_system_override:
        raise TrackError(
            f"object '{obj.name}' is a system library override, which Blender keeps locked: "
            "make it editable first (Outliner > Library Override > Make Editable)"
        )
    return obj


def channel_locations(obj: bpy.types.Object, points: np.ndarray) -> np.ndarray:
    """Location channel values (float, (n, 3)) that put ``obj``'s origin on world ``points``
    ((n, 3), scene units): through its parent (and constraints) as placed now, minus its
    delta location."""
    world = np.array(obj.matrix_world, dtype=float)
    basis = np.array(obj.matrix_basis, dtype=float)
    above = world @ np.linalg.inv(basis)  # parent, parent inverse and constraints, now
    local = np.linalg.solve(above, np.column_stack((points, np.ones(len(points)))).T).T[:, :3]
    return local - np.array(obj.delta_location, dtype=float)


def _set_slopes(obj: bpy.types.Object, index: int, frames: np.ndarray, slopes: np.ndarray) -> None:
    """Give the keys of ``location[index]`` on ``frames`` ((n,), as written, in order) aligned
    Bezier handles along the path's slope (``slopes`` (n,), scene units per frame), a third of
    a frame long: between keys the F-curve is then the cubic Hermite fit of the path. Measured
    (bpy 5.0.1 and 4.2, Size 1, every 0.05 frame): off the path by at most 1.2e-5 with 24
    keys a turn (circle, spiral, line; 9.5e-5 for the figure-eight, whose height goes round
    twice a turn), under 1e-6 with 48 (6.1e-6 figure-eight). Blender's own Auto Clamped
    handles lie flat on a curve's end keys and on every key whose neighbours are both higher
    or both lower, which took a spiral of 24 keys a turn 2.3e-3 off course."""
    fcurve = compat.find_fcurve(obj, "location", index)
    assert fcurve is not None, "write_keys made it"
    points = fcurve.keyframe_points
    n = len(points)
    co = np.empty(2 * n, dtype=np.float32)
    read_points(points, "co", co)
    rows = np.flatnonzero((co[0::2] >= frames[0] - 1e-4) & (co[0::2] <= frames[-1] + 1e-4))
    assert len(rows) == len(frames), "write_keys replaced every key in the range"
    kinds = np.empty(n, dtype=np.int32)
    aligned = points[0].bl_rna.properties["handle_left_type"].enum_items["ALIGNED"].value  # pyright: ignore[reportAttributeAccessIssue]  (an EnumProperty's items)
    for prop in ("handle_left_type", "handle_right_type"):
        read_points(points, prop, kinds)
        kinds[rows] = aligned
        write_points(points, prop, kinds)
    values = co[1::2][rows].astype(float)
    for prop, side in (("handle_left", -1.0 / 3.0), ("handle_right", 1.0 / 3.0)):
        handles = np.empty(2 * n, dtype=np.float32)
        read_points(points, prop, handles)
        handles[2 * rows] = frames + side
        handles[2 * rows + 1] = values + side * slopes
        write_points(points, prop, handles)
    fcurve.update()


def _view_axes(context: bpy.types.Context) -> tuple[np.ndarray, np.ndarray]:
    """The right and up directions (world, (3,) each) of the context's 3D view, else of the
    screen's first 3D view; TrackError if there is none."""
    region = getattr(context, "region_data", None)
    if region is None and context.screen is not None:
        for area in context.screen.areas:
            if area.type == "VIEW_3D":
                region = getattr(area.spaces.active, "region_3d", None)  # a SpaceView3D
                break
    if region is None:
        raise TrackError("plane 'VIEW' needs a 3D viewport: choose XY, XZ or YZ")
    rotation = np.array(region.view_rotation.to_matrix(), dtype=float)
    return rotation[:, 0], rotation[:, 1]


def plane_axes(context: bpy.types.Context, plane: str) -> tuple[np.ndarray, np.ndarray]:
    """The two world directions (3,) each spanning ``plane`` ('XY', 'XZ', 'YZ' or 'VIEW': the
    context's 3D view)."""
    if plane == "VIEW":
        return _view_axes(context)
    u, v = PLANE_AXES[plane]
    return np.array(u), np.array(v)


def track_center(
    obj: bpy.types.Object, scene: bpy.types.Scene, center_from: str, value: object
) -> np.ndarray:
    """The path's centre (3,) in world: the object's location ('OBJECT'), the 3D cursor
    ('CURSOR') or ``value`` ('VALUE')."""
    if center_from == "OBJECT":
        return np.array(obj.matrix_world.translation, dtype=float)
    if center_from == "CURSOR":
        return np.array(scene.cursor.location, dtype=float)
    return np.array(value, dtype=float)


def key_track(
    obj: bpy.types.Object,
    shape: str,
    frame_range: tuple[int, int],
    size: float,
    turns: float,
    center: np.ndarray,
    axes: tuple[np.ndarray, np.ndarray],
) -> str:
    """Key ``obj``'s location on every frame of ``frame_range`` (inclusive) along the path
    (:func:`.track_paths.track_points`, world space); return the sentence for the report.

    Raises:
        TrackError: a bad size, range, turns or shape, named with the object.
    """
    start, end = frame_range
    frames = np.arange(start, end + 1, dtype=float)
    try:
        points = track_points(shape, frames, frame_range, size, turns, center, axes)
    except TrackError as exc:
        raise TrackError(f"'{obj.name}': {exc}") from None
    values = channel_locations(obj, points)
    channels = {("location", i, GROUP): (frames, values[:, i]) for i in range(3)}
    written = write_keys(obj, channels, (start, end), "REPLACE")
    step = np.array([-SLOPE_STEP, SLOPE_STEP])
    near = (frames[:, None] + step).ravel()
    near = channel_locations(obj, track_points(shape, near, frame_range, size, turns, center, axes))
    slopes = (near[1::2] - near[0::2]) / (2 * SLOPE_STEP)  # (n, 3): per frame
    for i in range(3):
        _set_slopes(obj, i, frames, slopes[:, i])
    x, y, z = (float(c) for c in center)
    return (
        f"'{obj.name}' keyed on a {_LABELS[shape].lower()} of size {size:g} around "
        f"({x:.3g}, {y:.3g}, {z:.3g}), {turns:g} {'cycle' if shape == 'LINE' else 'turn'}(s) "
        f"over frames {start}..{end} "
        f"({written} location keys)"
    )
