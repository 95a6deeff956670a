"""The pose a built rig's solves work on (:class:`RigPose`): read from Blender, pushed into
the figure's rest, started from, solved into and written back.

A :class:`.build.Rig` is fixed once built; its pose is the one part that changes, at every
solve and every baked frame. The pose holds the readings (basis rotation, location and stretch
of each figure bone; for LOCAL bones the rotation pushed into the figure's rest and the joint
values on top of it, see :mod:`.build` for why) and the reader of each still bone, made on
first use (the figure itself skips a rest push that changes nothing: ``Figure.set_rest``).

What it reads of the rig's fixed parts it is given at the build, among them the fixed part of
each figure bone's rest transform (:func:`rest_inputs`: the rest offset from the parent,
whether the bone is Connected, the parent's pose scale folded into lengths
(:mod:`.pose_scale`), whether it inherits rotation), so a push only adds the pose:
``translation = fixed + linear @ location``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from ..blender import channel_rotations
from ..blender_ik import ik_limits
from .joints import SolvedBone, rotation_values, set_rotation_values
from .object_frame import object_frame
from .still_bones import StillBone, constrained
from .stretch import MIN_STRETCH, parent_stretch

if TYPE_CHECKING:
    import bpy

    from ... import solver

__all__ = ["REBASE_ANGLE", "BoneChannels", "RestInput", "RigPose", "rest_inputs"]

REBASE_ANGLE = 0.5  # radians; LOCAL joints are relinearised beyond this
#: The scale channels (3,) of a bone when no bone stretches, shared by every
#: :class:`BoneChannels` (read-only, so no user can change it for the others).
UNIT_SCALE = np.ones(3)
UNIT_SCALE.flags.writeable = False


class BoneChannels(NamedTuple):
    """The pose channels a solve writes for one bone.

    Attributes:
        rotation: (4,) or (3,) rotation channels in the bone's rotation mode.
        location: (3,) location, armature units (only solved location axes are written).
        scale: (3,) scale (written only for a stretched bone and its solved children).
    """

    rotation: np.ndarray
    location: np.ndarray
    scale: np.ndarray


class RestInput(NamedTuple):
    """The fixed part of one figure bone's rest transform (armature space, scene units).

    Attributes:
        name: the bone.
        info: its solved-bone plan, or None for a bone the solve does not move.
        fixed: (3,) rest translation at location 0 (the parent's pose scale applied).
        linear: (3, 3) the translation's change per unit of location (armature units); None
            when the location does not move the head (Connected, or a solved location).
        rotation: (3, 3) the rest rotation from the parent (armature space).
        root: placed by the armature object (no parent).
        hinge: (3, 3) armature-space rest rotation of a bone that does not inherit rotation
            (its rest rotation is relative to the world), else None.
    """

    name: str
    info: SolvedBone | None
    fixed: np.ndarray
    linear: np.ndarray | None
    rotation: np.ndarray
    root: bool
    hinge: np.ndarray | None


def rest_inputs(
    bones: Iterable[str],
    links: Mapping[str, tuple[str | None, bool]],
    offsets: Mapping[str, np.ndarray],
    solved: Mapping[str, SolvedBone],
    scale: float,
    scales: Mapping[str, np.ndarray],
    hinge_rest: Mapping[str, np.ndarray],
) -> tuple[RestInput, ...]:
    """The :class:`RestInput` of each figure bone of ``bones`` (parents first).

    Args:
        bones: the figure bones.
        links: bone -> (its parent or None, whether it is Connected): edit-mode data, fixed
            while the rig is used (a kept session is rebuilt when either changes).
        offsets: bone -> (4, 4) rest offset from its parent (armature units).
        solved: the bones the solve moves.
        scale: the armature object's uniform scale.
        scales: bone -> (3,) its pose scale folded into the lengths of its children.
        hinge_rest: bone -> (3, 3) armature-space rest rotation of a bone that does not
            inherit rotation.
    """
    out = []
    for name in bones:
        parent, connected = links[name]
        off = offsets[name]
        info = solved.get(name)
        # Blender places the head with the parent's full (scaled) pose matrix.
        factor = scale * (1.0 if parent is None else scales.get(parent, 1.0))
        fixed = factor * off[:3, 3]
        linear = None
        if not connected and not (info is not None and info.location_joints):
            linear = np.reshape(factor, (-1, 1)) * off[:3, :3]
        hinge = hinge_rest.get(name) if parent is not None else None
        out.append(RestInput(name, info, fixed, linear, off[:3, :3], parent is None, hinge))
    return tuple(out)


class RigPose:
    """The current pose of a rig's figure bones as its solves see it (changes every frame).

    Args:
        obj: the armature object.
        figure: the rig's figure (its rest transforms are what :meth:`push_rest` writes).
        bones: the figure bones, parents first.
        solved: the bones the solve moves.
        scale: the armature object's uniform scale.
        rest: the fixed part of each figure bone's rest transform (composed at the build).
        still: figure bones no solved bone moves (read where Blender evaluates them when a
            bone constraint acts on them, see :mod:`.still_bones`).

    Attributes:
        rotation: bone -> (3, 3) current basis rotation.
        location: bone -> (3,) current basis location, armature units.
        stretch: stretched bone -> its stretch ``S`` (> 0), see :mod:`.stretch`.
        base: LOCAL bone -> (3, 3) rotation pushed into the figure's rest; moved to the current
            rotation (relinearised) whenever a joint has turned more than
            :data:`REBASE_ANGLE`, so the revolutes never get near a singular Euler stack.
        local_values: LOCAL bone -> (3,) or fewer joint values (radians) on top of ``base``.
        located: the figure bones whose location channel places them (not Connected, whose
            location Blender ignores, nor solved on their location): of :attr:`location`,
            what shapes the figure.
    """

    def __init__(
        self,
        obj: bpy.types.Object,
        figure: solver.Figure,
        bones: tuple[str, ...],
        solved: Mapping[str, SolvedBone],
        scale: float,
        rest: tuple[RestInput, ...],
        still: tuple[str, ...],
    ) -> None:
        self._obj = obj
        self._figure = figure
        self._bones = bones
        self._solved = solved
        self._scale = scale
        self._rest = rest
        self._still = still
        self.located = frozenset(n for n, _i, _f, linear, *_r in rest if linear is not None)
        self.rotation: dict[str, np.ndarray] = {}
        self.location: dict[str, np.ndarray] = {}
        self.stretch: dict[str, float] = {}
        self.base: dict[str, np.ndarray] = {}
        self.local_values: dict[str, np.ndarray] = {}
        # The reader of each still bone (made on first use). Figure.set_rest itself skips a
        # rest that did not change.
        self._still_bones: dict[str, StillBone] = {}

    # ------------------------------------------------------------------ readings
    def read(self, solved_too: bool) -> None:
        """Read basis rotation/location of figure bones from Blender (solved ones optional)."""
        pose = self._obj.pose.bones
        turned: list[str] = []  # quaternion bones, converted together below
        quaternions: list[tuple[float, ...]] = []
        for name in self._bones:
            info = self._solved.get(name)
            if info is not None and not solved_too:  # only what the solve does not write
                if not info.location_joints:
                    self.location[name] = np.array(pose[name].location, dtype=float)
                continue
            pb = pose[name]
            mode = pb.rotation_mode
            if mode == "QUATERNION":
                turned.append(name)
                quaternions.append(pb.rotation_quaternion[:])
            else:
                self.rotation[name] = channel_rotations.channels_to_rotation(
                    rotation_values(pb, mode), mode
                )
            self.base.pop(name, None)  # relinearise around the pose just read
            self.location[name] = np.array(pb.location, dtype=float)
            if info is not None and info.stretch is not None:
                inherited = parent_stretch(self._obj, name, self.stretch, self._solved)
                self.stretch[name] = max(float(pb.scale[1]) * inherited, MIN_STRETCH)
        if turned:
            matrices = channel_rotations.quaternions_to_matrices(np.array(quaternions))
            self.rotation.update(zip(turned, matrices, strict=True))
        for name in constrained(self._obj, self._still):
            bone = self._still_bones.get(name)
            if bone is None:
                bone = self._still_bones[name] = StillBone(self._obj, name)
            self.rotation[name], self.location[name] = bone.basis(self._obj)

    def turn(self, name: str, rotation: np.ndarray) -> None:
        """Set bone ``name``'s basis rotation (3, 3) as a start; a LOCAL bone is relinearised
        around it at the next :meth:`push_rest`."""
        self.rotation[name] = rotation
        self.base.pop(name, None)
        self.local_values.pop(name, None)

    def put_at_rest(self) -> None:
        """Put every solved bone's channels at rest: identity rotation, zero location on the
        solved location channels, stretch 1 (the start of a bake)."""
        for name, info in self._solved.items():
            self.rotation[name] = np.eye(3)
            for axis, _joint in info.location_joints:
                self.location[name][axis] = 0.0
            if info.stretch is not None:
                self.stretch[name] = 1.0
            self.base.pop(name, None)
            self.local_values.pop(name, None)

    # ------------------------------------------------------------------ into the figure
    def push_rest(self) -> None:
        """Write the current state into the figure's rest transforms (no rebuild)."""
        t_obj, r_obj = object_frame(self._obj, self._scale)
        for name, info, fixed, linear, rotation, root, hinge in self._rest:
            translation = fixed if linear is None else fixed + linear @ self.location[name]
            if root:
                translation = t_obj + r_obj @ translation
                rotation = r_obj @ rotation
            elif hinge is not None:  # rotation relative to the world, not the parent
                rotation = r_obj @ hinge
            if info is not None and info.param != "LOCAL":
                self._figure.set_rest(name, translation, rotation)
                continue
            if info is not None:
                values = self.local_values.get(name)
                if (
                    name not in self.base
                    or values is None
                    or max(map(abs, values.tolist()), default=0.0) > REBASE_ANGLE
                ):
                    self.base[name] = self.rotation[name]
                    self.local_values[name] = np.zeros(len(info.rotation_joints))
                if info.location_segment is not None:
                    self._figure.set_rest(info.location_segment, translation, rotation)
                    self._figure.set_rest(name, None, self.base[name])
                    continue
                self._figure.set_rest(name, translation, rotation @ self.base[name])
                continue
            self._figure.set_rest(name, translation, rotation @ self.rotation[name])

    # ------------------------------------------------------------------ the solve
    def initial(self) -> np.ndarray:
        """Start coordinates ``(n_coords,)`` for the current state (after :meth:`push_rest`)."""
        names = self._figure.coordinate_names
        index = {coordinate: i for i, coordinate in enumerate(names)}
        x = np.zeros(len(names))  # LOCAL joints start at 0 unless the joints have moved
        for name, info in self._solved.items():
            if info.param == "LOCAL":
                local = self.local_values.get(name)
                if local is not None:
                    for n, (_axis, joint) in enumerate(info.rotation_joints):
                        x[index[joint]] = local[n]
            elif info.segment is not None:  # IK_SEGMENT: Blender's reading of the rotation
                params = ik_limits.params_of(info.segment, self.rotation[name])
                for coordinate, value in zip(info.coordinates, params.tolist(), strict=True):
                    x[index[coordinate]] = value
            else:
                angles = channel_rotations.matrix_to_euler(self.rotation[name], info.param)
                for axis, joint in info.rotation_joints:
                    x[index[joint]] = angles[axis]
            for axis, joint in info.location_joints:
                x[index[joint]] = self._scale * float(self.location[name][axis])
            if info.stretch is not None:
                x[index[info.stretch]] = (self.stretch.get(name, 1.0) - 1.0) * info.length
        return x

    def apply(self, result: solver.IKResult) -> None:
        """Move a solution into the state (rotation/location of solved bones)."""
        values = result.values()
        coords = None  # the stretch coordinates, read only when a bone stretches
        for name, info in self._solved.items():
            axes = [axis for axis, _joint in info.rotation_joints]
            angles = [values[joint] for _axis, joint in info.rotation_joints]
            if info.param == "LOCAL":
                self.local_values[name] = np.array(angles)
                # orthonormalize: a no-op unless round-off has built up
                r = channel_rotations.orthonormalize(
                    self.base[name] @ channel_rotations.axes_rotation(axes, angles)
                )
            elif info.segment is not None:  # IK_SEGMENT: the joints' product
                r = channel_rotations.axes_rotation(axes, angles)
            else:  # EULER bones always carry all three angles (locked ones pinned by bounds)
                euler = np.zeros(3)
                euler[axes] = angles
                r = channel_rotations.euler_to_matrix(euler, info.param)
            self.rotation[name] = r
            for axis, joint in info.location_joints:
                self.location[name][axis] = values[joint] / self._scale
            if info.stretch is not None:
                if coords is None:
                    names = self._figure.coordinate_names
                    coords = dict(zip(names, result.x.tolist(), strict=True))
                self.stretch[name] = 1.0 + coords[info.stretch] / info.length

    # ------------------------------------------------------------------ back to Blender
    def channels(self, previous: dict[str, np.ndarray] | None = None) -> dict[str, BoneChannels]:
        """Channel values of solved bones.

        ``previous`` (bone -> rotation channels) keeps Euler angles and quaternion signs
        continuous; without it the bone's current channels in Blender are used. The scale is
        ``S_bone / S_parent`` on all three axes (see :mod:`.stretch`).
        """
        out = {}
        pose = self._obj.pose.bones
        for name, info in self._solved.items():
            if previous and name in previous:
                prev = previous[name]
            else:
                prev = rotation_values(pose[name])
            rot = channel_rotations.rotation_to_channels(
                self.rotation[name], info.rotation_mode, prev
            )
            scale = UNIT_SCALE
            if self.stretch:  # else no bone stretches: every ratio is 1
                ratio = self.stretch.get(name, 1.0) / parent_stretch(
                    self._obj, name, self.stretch, self._solved
                )
                scale = np.full(3, ratio)
            out[name] = BoneChannels(rot, self.location[name].copy(), scale)
        return out

    def write(self, channels: dict[str, BoneChannels]) -> None:
        """Write channel values (from :meth:`channels`) into the pose bones."""
        pose = self._obj.pose.bones
        for name, bone in channels.items():
            pb = pose[name]
            info = self._solved[name]
            set_rotation_values(pb, bone.rotation)
            for axis, _joint in info.location_joints:
                pb.location[axis] = float(bone.location[axis])
            if info.writes_scale:
                pb.scale = bone.scale.tolist()
