"""A batched bake's targets read from their F-curves for every frame at once (issue 21).

The batched path (:mod:`..bake.batched`) reads only the targets of the frames after the first. Read
by stepping the scene to each frame (``scene.frame_set``), that costs Blender's evaluation of
the whole scene per frame. Where a target's world matrix is a function of its own F-curves
alone, :class:`TargetCurves` composes it for every frame in numpy from ``FCurve.evaluate``,
with Blender's formula (``BKE_object_to_mat4``): ``location + delta_location``, the rotation
of the object's rotation mode after its delta rotation, ``scale * delta_scale``, under a
still parent's ``matrix_world @ matrix_parent_inverse``. The numbers are Blender's to float32
round-off (Blender composes in float32; the F-curve values are the same floats); a target's
point without a parent is the very same.

Goals that read their target's point alone (position, aim) in an armature space of uniform
scale get every frame's point at once (:meth:`TargetCurves.goal_points`, the numbers
:meth:`TargetCurves.update` gives them bit for bit); other goals are set frame by frame.

The decision is per bake (:func:`why_stepped`); the scene is stepped to each frame as before
(the sequential reading) when any of these holds, else no frame is stepped while solving:

* the bake has no depsgraph (the view layer that plays the targets is not known), the scene
  remaps time (*Time Stretching*: ``frame_map_old != frame_map_new``), or a frame-change
  handler other than this extension's is registered (a script may move anything);
* a goal's target is a bone (a Target Bone, of this armature or another), rides on a bone of
  the armature (a carried target), or is the armature;
* a target object has drivers, NLA tracks, F-curves on anything but ``location``,
  ``rotation_*`` and ``scale`` (or a muted one), an enabled constraint, or a parent that is
  not a still object (one without animation data that animates, without enabled
  constraints, parented by ``OBJECT`` to a still object or to none);
* the armature's other inputs could change over the range (the batched path needs them
  still; read frame by frame they send the bake to the sequential path): it animates other
  than on its solved bones' rotation channels and on bones outside the figure (drivers, NLA,
  its armature data's animation, F-curves on the object or on a figure bone's other
  channels), it has an enabled constraint or a parent that is not still, or a figure bone
  the solve does not move carries an enabled bone constraint (Blender places it);
* the composition misses the matrix Blender evaluated at the first frame (read by stepping
  to it) by more than float32 round-off, or a quaternion key is zero (a guard: something this
  module does not know of moves the target).

``bpy`` is used only through the objects passed in (and its handler lists).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from ...props.access import armature_data
from ..blender import channel_rotations, compat
from ..blender.model_space import model_space
from ..rig.goals import AXIS_FREE_GOALS
from ..rig.size import FLOAT32_EPSILON, FLOAT32_ROUNDINGS
from ..rig.still_bones import constrained, still_bones
from ..rig.targets import FAR

if TYPE_CHECKING:
    import bpy
    from bpy.types import Depsgraph, Scene

    from ..rig.build import Rig
    from ..rig.goals import GoalBinding

#: The transform channels a target may animate (their lengths).
TRANSFORM_CHANNELS = {"location": 3, "rotation_euler": 3, "rotation_quaternion": 4,
                      "rotation_axis_angle": 4, "scale": 3}  # fmt: skip
#: A solved bone's channels the armature may animate (the bake overwrites them).
SOLVED_CHANNELS = ("rotation_quaternion", "rotation_euler", "rotation_axis_angle")
#: The rotation channel of each rotation mode (an Euler order otherwise).
ROTATION_PATH = {"QUATERNION": "rotation_quaternion", "AXIS_ANGLE": "rotation_axis_angle"}


def _enabled(constraints: Iterable[bpy.types.Constraint]) -> bool:
    """Whether one of ``constraints`` acts (not muted, influence above 0)."""
    return any(not c.mute and c.influence > 0.0 for c in constraints)


def _driven(data: bpy.types.AnimData | None) -> str | None:
    """Why animation data ``data`` moves more than its action's F-curves give, or None."""
    if data is None:
        return None
    if len(data.drivers):
        return "has drivers"
    if len(data.nla_tracks):
        return "has NLA tracks"
    return None


def _animates(obj: bpy.types.Object, allowed: Callable[[str], bool] | None) -> str | None:
    """Why ``obj``'s animation data may move more than its F-curves on ``allowed`` data
    paths give (None: no F-curve allowed), or None."""
    reason = _driven(obj.animation_data)
    if reason is not None or obj.animation_data is None or obj.animation_data.action is None:
        return reason
    if allowed is None:
        return "is animated"
    for fcurve in compat.fcurves(obj):
        if not allowed(fcurve.data_path):
            return f"animates '{fcurve.data_path}'"
        if fcurve.mute or (fcurve.group is not None and fcurve.group.mute):
            return "has a muted F-curve"
    return None


def _moves(obj: bpy.types.Object) -> str | None:
    """Why ``obj``'s world matrix may change with the frame other than by its own transform
    F-curves (its constraints, drivers, NLA, parent), or None."""
    if _enabled(obj.constraints):
        return "has an enabled constraint"
    parent = obj.parent
    while parent is not None:
        if obj.parent_type != "OBJECT":
            return f"is parented to a {obj.parent_type.lower()}"
        if _animates(parent, None) is not None:
            return f"has parent '{parent.name}', which is animated"
        if _enabled(parent.constraints):
            return f"has parent '{parent.name}', which has an enabled constraint"
        obj, parent = parent, parent.parent
    return None


def _target_reason(binding: GoalBinding, armature: bpy.types.Object) -> str | None:
    """Why ``binding``'s target is read by stepping the scene, or None."""
    target = binding.target
    if binding.carrier is not None or binding.carry is not None:
        return "rides on a bone of the armature"
    if binding.target_bone or target == armature:
        return "is a bone"
    reason = _animates(target, lambda path: path in TRANSFORM_CHANNELS) or _moves(target)
    return None if reason is None else f"'{target.name}' {reason}"


def _armature_reason(rig: Rig) -> str | None:
    """Why the armature's inputs other than its solved rotations may change, or None."""
    obj = rig.obj
    figure = {f'pose.bones["{_escaped(name)}"].': name for name in rig.bones}

    def allowed(path: str) -> bool:
        for prefix, name in figure.items():
            if path.startswith(prefix):
                return name in rig.solved and path[len(prefix) :] in SOLVED_CHANNELS
        return path.startswith("pose.bones[")

    reason = _animates(obj, allowed) or _moves(obj)
    data = armature_data(obj).animation_data
    if reason is None and data is not None:
        reason = _driven(data) or ("animates its armature data" if data.action else None)
    if reason is None and constrained(obj, still_bones(obj, rig.bones, rig.solved)):
        reason = "has a bone constraint on a bone the solve does not move"
    return None if reason is None else f"the armature {reason}"


def _escaped(name: str) -> str:
    """``name`` as Blender writes it in a data path's quotes."""
    return name.replace("\\", "\\\\").replace('"', '\\"')


def _foreign_handlers() -> bool:
    """Whether a frame-change handler other than this extension's is registered."""
    import bpy

    root = __name__.rsplit(".bridge.", 1)[0] + "."
    handlers = [*bpy.app.handlers.frame_change_pre, *bpy.app.handlers.frame_change_post]
    return any(not getattr(h, "__module__", "").startswith(root) for h in handlers)


def why_stepped(rig: Rig, scene: Scene, depsgraph: Depsgraph | None) -> str | None:
    """Why a batched bake of ``rig`` reads its targets by stepping ``scene`` to each frame,
    or None: :class:`TargetCurves` reads them (the rules: the module docstring)."""
    if depsgraph is None:
        return "the bake has no depsgraph"
    if scene.render.frame_map_old != scene.render.frame_map_new:
        return "the scene remaps time"
    if _foreign_handlers():
        return "a frame-change handler is registered"
    for binding in rig.bindings:
        reason = _target_reason(binding, rig.obj)
        if reason is not None:
            return f"constraint '{binding.name}': its target {reason}"
    return _armature_reason(rig)


def _values(obj: bpy.types.Object, path: str, frames: np.ndarray) -> np.ndarray:
    """Channel ``path`` of ``obj`` at every frame: (F, its length), each index from its
    F-curve (``FCurve.evaluate``) or, without one, the property's value."""
    curves = {f.array_index: f for f in compat.fcurves(obj) if f.data_path == path}
    static = list(getattr(obj, path))
    out = np.empty((len(frames), len(static)))
    for index, value in enumerate(static):
        curve = curves.get(index)
        out[:, index] = value if curve is None else [curve.evaluate(f) for f in frames]
    return out


def world_matrices(obj: bpy.types.Object, frames: Sequence[float]) -> np.ndarray | None:
    """``obj``'s world matrix (F, 4, 4) at each of ``frames`` from its transform F-curves
    (``obj`` qualifies: :func:`why_stepped`), or None when a quaternion key is zero."""
    at = np.asarray(frames, dtype=float)
    mode = obj.rotation_mode
    rotation = _values(obj, ROTATION_PATH.get(mode, "rotation_euler"), at)
    if mode == "QUATERNION":
        if not np.all(np.einsum("fk,fk->f", rotation, rotation) > 0.0):
            return None
        turn = channel_rotations.quaternions_to_matrices(rotation)
        delta = channel_rotations.quaternion_to_matrix(np.array(obj.delta_rotation_quaternion))
    elif mode == "AXIS_ANGLE":
        turn = channel_rotations.axis_angle_matrices(rotation)
        delta = np.eye(3)  # Python cannot set an axis-angle delta rotation
    else:
        turn = channel_rotations.euler_matrices(rotation, mode)
        delta = channel_rotations.euler_to_matrix(np.array(obj.delta_rotation_euler), mode)
    scale = _values(obj, "scale", at) * np.array(obj.delta_scale)
    out = np.zeros((len(at), 4, 4))
    out[:, :3, :3] = (delta @ turn) * scale[:, None, :]
    out[:, :3, 3] = _values(obj, "location", at) + np.array(obj.delta_location)
    out[:, 3, 3] = 1.0
    if obj.parent is not None:
        above = np.array(obj.parent.matrix_world, dtype=float)
        out = above @ np.array(obj.matrix_parent_inverse, dtype=float) @ out
    return out


def _unit_axes(matrices: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Unit axes (F, 3, 3) of world matrices (F, 4, 4) and whether each frame's matrix is
    finite and of non-zero scale (F,): the numbers of :meth:`..rig.goals.GoalBinding.
    _point_axes` (its column lengths add the rows in the same order)."""
    m = matrices[:, :3, :3]
    norms = np.sqrt(m[:, 0] * m[:, 0] + m[:, 1] * m[:, 1] + m[:, 2] * m[:, 2])  # (F, 3)
    ok = np.isfinite(matrices).all(axis=(1, 2)) & (norms.min(axis=1) > 1e-12)
    return m / np.where(ok[:, None], norms, 1.0)[:, None, :], ok


class TargetCurves:
    """Every goal target's world matrix at every frame of a bake, from F-curves; goals set
    from them one frame at a time (:meth:`update`), as :meth:`..rig.build.Rig.update_targets`
    sets them from the stepped scene.

    Args:
        rig: the rig (every target qualifies: :func:`why_stepped`).
        frames: the bake's frames; the first is the scene's current frame.

    Attributes:
        matrices: one (F, 4, 4) per binding of ``rig``.
        missed: why the composition cannot be used (a zero quaternion key, or the first
            frame's matrix not Blender's), or None.
    """

    def __init__(self, rig: Rig, frames: Sequence[int]) -> None:
        self.rig = rig
        self.space = model_space(np.array(rig.obj.matrix_world, dtype=float))
        self.matrices: list[np.ndarray] = []
        self.axes: list[np.ndarray] = []  # (F, 3, 3) unit axes per binding
        self.usable: list[np.ndarray] = []  # (F,) finite, of non-zero scale
        self.missed: str | None = None
        for binding in rig.bindings:
            matrices = world_matrices(binding.target, frames)
            if matrices is None:
                self.missed = f"target '{binding.target.name}' has a zero quaternion key"
                return
            blender = np.array(binding.target.matrix_world, dtype=float)
            round_off = FLOAT32_ROUNDINGS * FLOAT32_EPSILON * max(1.0, float(np.abs(blender).max()))
            if np.abs(matrices[0] - blender).max() > round_off:
                self.missed = (
                    f"target '{binding.target.name}': its F-curves miss its matrix at frame "
                    f"{frames[0]}"
                )
                return
            axes, usable = _unit_axes(matrices)
            self.matrices.append(matrices)
            self.axes.append(axes)
            self.usable.append(usable)

    def update(self, index: int) -> None:
        """Set every goal to its target at the ``index``-th frame of the bake.

        Raises:
            RigError: a target's matrix is not finite or of zero scale there.
        """
        for k, binding in enumerate(self.rig.bindings):
            matrices = self.matrices[k]
            if not self.usable[k][index]:  # the error the target's reading gives
                binding.update_from(matrices[index], self.space)
            binding.update_at(matrices[index, :3, 3], self.axes[k][index], self.space)

    def goal_points(self) -> dict[int, np.ndarray] | None:
        """Every goal's point at every frame (F, 3), keyed by ``id`` of the goal: the numbers
        :meth:`update` gives the goals, bit for bit, computed at once. Only where every goal
        reads its target's point alone (:data:`..rig.goals.AXIS_FREE_GOALS`) and the
        armature's space is of uniform scale (its map is a rotation or reflection of 0s and
        ±1s and no shift, exact in any summation order); else None: the goals are set frame
        by frame."""
        bindings = self.rig.bindings
        if self.space.sheared or any(b.item_kind not in AXIS_FREE_GOALS for b in bindings):
            return None
        linear, origin = self.space.linear, self.space.origin
        return {
            id(binding.goal): (matrices[:, :3, 3] - origin) @ linear.T
            for binding, matrices in zip(bindings, self.matrices, strict=True)
        }

    def checked(self) -> np.ndarray:
        """(F,) the frames whose targets :meth:`update` and the target check
        (:func:`..rig.targets.check_targets`) must see one at a time, as the stepping bake
        would: some target's matrix not finite or of zero scale, or its point farther than
        :data:`..rig.targets.FAR` from the origin (either refuses the bake at that frame)."""
        out = np.zeros(len(self.matrices[0]) if self.matrices else 0, dtype=bool)
        for matrices, usable in zip(self.matrices, self.usable, strict=True):
            far = np.abs(matrices[:, :3, 3]).max(axis=1) > FAR
            out |= ~usable | far
        return out


__all__ = ["TargetCurves", "why_stepped", "world_matrices"]
