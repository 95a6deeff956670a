"""The bridge: an armature and its Reach constraints -> ``solver.Figure`` + constraints,
and a solution -> pose channel values. All the maths between Blender and the solver is here
(and in :mod:`.rotations`); operators only call :func:`build_rig` and the ``Rig`` methods.

Frames. The figure lives in the model's world (:mod:`.model_space`: the world, reflected across
X for a mirrored armature; a sheared armature's own space), goals too. One segment per bone, at
the bone's head, with the bone's pose axes; its rest transform relative to the parent segment
is the bone's rest offset (``parent.matrix_local^-1 @ bone.matrix_local``, object transform
applied to roots, lengths times the object's uniform scale) times the bone's current
``matrix_basis`` (location ignored for connected bones, as Blender does). A bone with *Inherit
Rotation* off is a segment that does not inherit rotation
(``Figure.add_segment(inherit_rotation=False)``): its world rest rotation is the object's
rotation times its own armature-space rest rotation, which is what Blender composes from the
parent's rest matrix. Pose scale and the *Inherit Scale* modes are folded into lengths (child
offsets times the parent's scale, end-effector points times the bone's own): see
:mod:`.rig_scale` for what is exact; the scale an IK Stretch writes is solved instead
(:mod:`.rig_stretch`).

Parametrisation of a solved bone's rotation (why three kinds):
``LOCAL``  -- bones without limits: three revolutes about the bone's own X, Y, Z axes,
    relinearised around the current pose (``Figure.set_rest`` moves the pose into the rest
    rotation, the joints start at 0) at the start of every solve, and during a bake whenever
    a joint has turned more than ``REBASE_ANGLE``. The joints never get near a singularity,
    so a bone already turned 90 degrees still moves freely in every direction (Euler angles
    in the channels would gimbal-lock there). ``lock_ik_*`` drops that axis.
``IK_SEGMENT`` -- bones with IK limits (and neither of the next kind's settings): the
    segment Blender's Standard IK makes of the bone for its ``lock_ik_*`` (spherical, swing,
    elbow or revolute), with the limits in Blender's meaning: X/Z bound the swing quaternion
    as an ellipse (an inscribed polygon of linear constraints), Y the twist, an elbow's
    angles directly. See :mod:`.ik_limits`.
``EULER``  -- bones with an enabled local-space Limit Rotation constraint or with
    ``lock_rotation`` on an Euler channel (their IK limits, if any, join the box as Euler
    bounds: Blender shows the Limit Rotation's box, which must hold): absolute Euler angles in the
    order Blender's Limit Rotation uses (its ``euler_order``; ``AUTO`` = the bone's Euler
    rotation mode, ``XYZ`` for quaternion / axis-angle bones). Order ``"ABC"`` means
    ``R = R_C R_B R_A``, so the revolutes are added C, B, A. Each angle is bounded to
    [-180, 180] degrees intersected with the limits, and when the box allows it,
    ``|a| + |b| + |c| <= 270`` degrees (eight linear constraints): exactly the angles
    Blender's decomposition (the branch with the smaller sum of |angle|) returns, so a Limit
    Rotation constraint with the same limits leaves a solved pose unchanged.
Root translation (location X, Y, Z unbounded, prismatic) comes before the rotation, like
``location`` in ``matrix_basis``. IK Stretch (``ik_stretch`` > 0) is one group parameter per
bone driving prismatic helpers after the rotation (:mod:`.rig_stretch`), written as scale.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from .. import solver
from ..solver.scale import characteristic_length
from . import ik_limits, results, rotations
from .model_space import model_space
from .object_frame import armature_space, check_carried, object_frame
from .rig_evaluated import StillBone, constrained, still_bones
from .rig_freedom import check_chains_move
from .rig_goals import ConstraintSpec, GoalBinding, build_constraints
from .rig_joints import (
    RigError,
    SolvedBone,
    add_solved_bone,
    location_segment,
    rotation_data_path,
    rotation_values,
    set_rotation_values,
)
from .rig_rest import RestInput, rest_input
from .rig_scale import bone_scales
from .rig_size import distance_tolerance
from .rig_stretch import MIN_STRETCH, StretchPlan, parent_stretch
from .settings import armature_data

if TYPE_CHECKING:
    import bpy

    from ..operators.properties import ReachSettings

__all__ = ["BoneChannels", "Rig", "RigError", "build_rig", "rotation_data_path", "solver_options"]

EPS_LENGTH = 1e-9
REBASE_ANGLE = 0.5  # radians; LOCAL joints are relinearised beyond this
SOLVE_MARGIN = 0.5  # the solver aims at this share of the user's tolerances
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


@dataclass
class Rig:
    """A solvable snapshot of one armature: figure, constraints and channel maps."""

    obj: bpy.types.Object
    figure: solver.Figure
    constraints: list[solver.Constraint]
    bindings: list[GoalBinding]
    bones: list[str]  # figure bones, parents first
    solved: dict[str, SolvedBone]
    scale: float
    rotation: dict[str, np.ndarray]  # bone -> current basis rotation (3, 3)
    location: dict[str, np.ndarray]  # bone -> current basis location (3,), armature units
    offsets: dict[str, np.ndarray]  # bone -> rest offset (4, 4) from parent (armature units)
    notes: list[str] = field(default_factory=list)
    specs: list[ConstraintSpec] = field(default_factory=list)  # parallel to ``constraints``
    # LOCAL bones: rotation pushed into the figure's rest (base) and the joint values on top
    # of it. The base is moved to the current rotation (relinearised) whenever a joint has
    # turned more than REBASE_ANGLE, so the revolutes never get near a singular Euler stack.
    base: dict[str, np.ndarray] = field(default_factory=dict)
    local_values: dict[str, np.ndarray] = field(default_factory=dict)
    stretch: dict[str, float] = field(default_factory=dict)  # stretched bone -> its S (>0)
    # Pose scale folded into lengths (bone -> (3,) along its axes, see .rig_scale), and the
    # armature-space rest rotation (3, 3) of each bone that does not inherit rotation.
    scales: dict[str, np.ndarray] = field(default_factory=dict)
    hinge_rest: dict[str, np.ndarray] = field(default_factory=dict)
    # Bone -> (parent bone or None, Connected): edit-mode data, fixed while the rig is used
    # (a kept session is rebuilt when either changes), so push_rest need not read the bones.
    links: dict[str, tuple[str | None, bool]] = field(default_factory=dict)
    rest_inputs: list[RestInput] = field(default_factory=list)  # made by the first push_rest
    # Figure bones no solved bone moves (see .rig_evaluated): read where Blender evaluates
    # them when a bone constraint acts on them.
    still: list[str] = field(default_factory=list)
    still_bones: dict[str, StillBone] = field(default_factory=dict)  # made on first use
    # Bones the build asked whether the solve moves them (rig_goals.ConstraintPlan.asked):
    # the bones above them decide the answer.
    asked: set[str] = field(default_factory=set)
    # The characteristic length (scene units) of the figure and constraints at the build: what
    # Automatic tolerances and orientation weights are relative to (see .rig_size).
    length: float = 1.0

    # ------------------------------------------------------------------ state
    def read_pose(self, solved_too: bool) -> None:
        """Read basis rotation/location of figure bones from Blender (solved ones optional)."""
        pose = self.obj.pose.bones
        turned: list[str] = []  # quaternion bones, converted together below
        quaternions: list[tuple[float, ...]] = []
        for name in self.bones:
            info = self.solved.get(name)
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
                self.rotation[name] = rotations.channels_to_rotation(
                    rotation_values(pb, mode), mode
                )
            self.base.pop(name, None)  # relinearise around the pose just read
            self.location[name] = np.array(pb.location, dtype=float)
            if info is not None and info.stretch is not None:
                inherited = parent_stretch(self.obj, name, self.stretch, self.solved)
                self.stretch[name] = max(float(pb.scale[1]) * inherited, MIN_STRETCH)
        if turned:
            matrices = rotations.quaternions_to_matrices(np.array(quaternions))
            self.rotation.update(zip(turned, matrices, strict=True))
        for name in constrained(self.obj, self.still):
            bone = self.still_bones.get(name)
            if bone is None:
                bone = self.still_bones[name] = StillBone(self.obj, name)
            self.rotation[name], self.location[name] = bone.basis(self.obj)

    def push_rest(self) -> None:
        """Write the current state into the figure's rest transforms (no rebuild)."""
        t_obj, r_obj = object_frame(self.obj, self.scale)
        if not self.rest_inputs:
            self.rest_inputs = [rest_input(self, name) for name in self.bones]
        for name, info, fixed, linear, root, hinge in self.rest_inputs:
            translation = fixed if linear is None else fixed + linear @ self.location[name]
            rotation = self.offsets[name][:3, :3]
            if root:
                translation = t_obj + r_obj @ translation
                rotation = r_obj @ rotation
            elif hinge is not None:  # rotation relative to the world, not the parent
                rotation = r_obj @ hinge
            if info is not None and info.param != "LOCAL":
                self.figure.set_rest(name, translation, rotation)
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
                    self.figure.set_rest(info.location_segment, translation, rotation)
                    self.figure.set_rest(name, None, self.base[name])
                    continue
                self.figure.set_rest(name, translation, rotation @ self.base[name])
                continue
            self.figure.set_rest(name, translation, rotation @ self.rotation[name])

    def initial(self) -> np.ndarray:
        """Start coordinates ``(n_coords,)`` for the current state (after :meth:`push_rest`)."""
        names = self.figure.coordinate_names
        index = {coordinate: i for i, coordinate in enumerate(names)}
        x = np.zeros(len(names))  # LOCAL joints start at 0 unless the joints have moved
        for name, info in self.solved.items():
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
                angles = rotations.matrix_to_euler(self.rotation[name], info.param)
                for axis, joint in info.rotation_joints:
                    x[index[joint]] = angles[axis]
            for axis, joint in info.location_joints:
                x[index[joint]] = self.scale * float(self.location[name][axis])
            if info.stretch is not None:
                x[index[info.stretch]] = (self.stretch.get(name, 1.0) - 1.0) * info.length
        return x

    def apply(self, result: solver.IKResult) -> None:
        """Move a solution into the state (rotation/location of solved bones)."""
        values = result.values()
        coords = None  # the stretch coordinates, read only when a bone stretches
        for name, info in self.solved.items():
            axes = [axis for axis, _joint in info.rotation_joints]
            angles = [values[joint] for _axis, joint in info.rotation_joints]
            if info.param == "LOCAL":
                self.local_values[name] = np.array(angles)
                # orthonormalize: a no-op unless round-off has built up
                r = rotations.orthonormalize(
                    self.base[name] @ rotations.axes_rotation(axes, angles)
                )
            elif info.segment is not None:  # IK_SEGMENT: the joints' product
                r = rotations.axes_rotation(axes, angles)
            else:  # EULER bones always carry all three angles (locked ones pinned by bounds)
                euler = np.zeros(3)
                euler[axes] = angles
                r = rotations.euler_to_matrix(euler, info.param)
            self.rotation[name] = r
            for axis, joint in info.location_joints:
                self.location[name][axis] = values[joint] / self.scale
            if info.stretch is not None:
                if coords is None:
                    coords = dict(zip(self.figure.coordinate_names, result.x.tolist(), strict=True))
                self.stretch[name] = 1.0 + coords[info.stretch] / info.length

    def channels(self, previous: dict[str, np.ndarray] | None = None) -> dict[str, BoneChannels]:
        """Channel values of solved bones.

        ``previous`` (bone -> rotation channels) keeps Euler angles and quaternion signs
        continuous; without it the bone's current channels in Blender are used. The scale is
        ``S_bone / S_parent`` on all three axes (see :mod:`.rig_stretch`).
        """
        out = {}
        pose = self.obj.pose.bones
        for name, info in self.solved.items():
            if previous and name in previous:
                prev = previous[name]
            else:
                prev = rotation_values(pose[name])
            rot = rotations.rotation_to_channels(self.rotation[name], info.rotation_mode, prev)
            scale = UNIT_SCALE
            if self.stretch:  # else no bone stretches: every ratio is 1
                ratio = self.stretch.get(name, 1.0) / parent_stretch(
                    self.obj, name, self.stretch, self.solved
                )
                scale = np.full(3, ratio)
            out[name] = BoneChannels(rot, self.location[name].copy(), scale)
        return out

    def write_pose(self, channels: dict[str, BoneChannels]) -> None:
        """Write channel values (from :meth:`channels`) into the pose bones."""
        pose = self.obj.pose.bones
        for name, bone in channels.items():
            pb = pose[name]
            info = self.solved[name]
            set_rotation_values(pb, bone.rotation)
            for axis, _joint in info.location_joints:
                pb.location[axis] = float(bone.location[axis])
            if info.writes_scale:
                pb.scale = bone.scale.tolist()

    def update_targets(self) -> None:
        """Re-read target transforms into the goals (animated targets, bakes)."""
        space = None  # the armature's model space, read once for the goals in the world
        for binding in self.bindings:
            if space is None and binding.carrier is None:
                space = model_space(np.array(self.obj.matrix_world, dtype=float))
            binding.update(self.obj, self.scale, space)


def _rigid_inverse(m: np.ndarray) -> np.ndarray:
    """Inverse of a rigid transform (4, 4) (bone rest matrices are rigid)."""
    out = np.eye(4)
    out[:3, :3] = m[:3, :3].T
    out[:3, 3] = -m[:3, :3].T @ m[:3, 3]
    return out


def build_rig(
    obj: bpy.types.Object | None, settings: ReachSettings, only_selected: bool = False
) -> Rig:
    """Translate an armature object and its Reach constraints into a solvable :class:`Rig`.

    Raises:
        RigError: with a message naming the constraint, bone or object at fault.
    """
    if obj is None or obj.type != "ARMATURE":
        raise RigError("The active object is not an armature")
    if obj.mode == "EDIT":  # edit bones are not the bones, and the pose is not evaluated
        raise RigError(f"Armature '{obj.name}' is in Edit Mode; switch to Pose or Object Mode")
    if len(armature_data(obj).bones) == 0:
        raise RigError(f"Armature '{obj.name}' has no bones")
    items = [c for c in settings.constraints if c.enabled and (c.select or not only_selected)]
    if not items:
        raise RigError(f"Armature '{obj.name}' has no enabled Reach constraints")
    space = armature_space(obj, items)
    scale = space.scale
    plan = build_constraints(obj, items, scale, RigError)
    check_carried(obj, space, plan.bindings)
    bones_by_name = armature_data(obj).bones
    needed = set()
    for name in plan.figure_bones:
        bone = bones_by_name[name]
        while bone is not None and bone.name not in needed:
            needed.add(bone.name)
            bone = bone.parent
    order = [b.name for b in bones_by_name if b.name in needed]  # parents come first
    for name in set(plan.chain_bones):
        pb = obj.pose.bones[name]
        if pb.bone.length * scale <= EPS_LENGTH or pb.length <= EPS_LENGTH:
            owner = plan.chain_bones[name]
            raise RigError(f"Constraint '{owner}': bone '{name}' has zero length")
    fig = solver.Figure()
    stretch = StretchPlan.of(obj, plan.chain_bones, scale)
    offsets = {}
    hinge_rest = {}
    for name in order:
        bone = bones_by_name[name]
        local = np.array(bone.matrix_local, dtype=float)
        if bone.parent is None:
            offsets[name] = local
            parent_seg = None
        else:
            offsets[name] = _rigid_inverse(np.array(bone.parent.matrix_local, dtype=float)) @ local
            parent_seg = bone.parent.name
        offsets[name][:3, :3] = rotations.orthonormalize(offsets[name][:3, :3])
        if parent_seg is not None:
            loc = np.zeros(3) if bone.use_connect else np.array(obj.pose.bones[name].location)
            offset = scale * (offsets[name][:3, 3] + offsets[name][:3, :3] @ loc)
            parent_seg = stretch.child_segment(fig, name, parent_seg, offset)
        inherit = bone.parent is None or bone.use_inherit_rotation
        if not inherit:
            hinge_rest[name] = rotations.orthonormalize(local[:3, :3])
        if name in plan.chain_bones:
            helper = location_segment(
                obj.pose.bones[name], plan.chain_bones[name], settings.use_root_translation
            )
            if helper is not None:  # the helper carries the rest transform and the flag
                fig.add_segment(helper, parent_seg, inherit_rotation=inherit)
                parent_seg, inherit = helper, True
        fig.add_segment(name, parent_seg, inherit_rotation=inherit)
    notes: list[str] = []
    solved = {}
    for name in order:
        if name in plan.chain_bones:
            solved[name] = add_solved_bone(
                fig, obj.pose.bones[name], plan.chain_bones[name], settings.use_root_translation
            )
    stretch.place_effectors(fig, plan.specs)
    stretch.add_groups(fig, solved)
    stretch.mark_children(obj, solved)
    check_chains_move(obj, fig, plan.specs, solved, RigError)
    sliding = {name for name, info in solved.items() if info.location_joints}
    written = {name for name, info in solved.items() if info.writes_scale}
    scales = bone_scales(obj, order, sliding, written)
    for name in order:  # what the figure does not model, said once per solve
        reason = scales[name].reason
        if reason and reason not in notes:
            notes.append(reason)
    rig = Rig(obj, fig, [], plan.bindings, order, solved, scale, {}, {}, offsets, notes)
    rig.specs = plan.specs
    rig.asked = plan.asked
    rig.scales = {name: bone_scale.scale for name, bone_scale in scales.items()}
    rig.hinge_rest = hinge_rest
    rig.still = still_bones(obj, order, solved)
    rig.links = {
        name: (bone.parent.name if bone.parent else None, bone.use_connect)
        for name in order
        for bone in (bones_by_name[name],)
    }
    for binding in plan.bindings:  # a goal on a Target Bone of this armature
        if binding.carrier is not None and binding.carry is None:
            binding.carrier_scale = rig.scales.get(binding.carrier)
    rig.read_pose(solved_too=True)
    rig.push_rest()
    rig.update_targets()
    for spec in plan.specs:
        root = solved.get(spec.root) if spec.root is not None else None
        if root is not None and root.location_segment is not None:
            spec.root = root.location_segment  # the chain root's location joints sit there
    try:
        rig.constraints = plan.make_constraints(rig.scales)
    except solver.ReachError as exc:
        raise RigError(str(exc)) from None
    plan.check_aim(rig, RigError)
    rig.length = characteristic_length(fig, rig.constraints)
    results.store_length(obj, rig.length)  # the panel shows the effective values from it
    return rig


def solver_options(rig: Rig, settings: ReachSettings, method: str | None = None) -> dict[str, Any]:
    """Keyword options for ``solver.Solver`` from the armature's Reach settings.

    The distance tolerance is the setting's, or relative to ``rig.length`` when *Automatic*
    (:func:`.rig_size.distance_tolerance`). The solver aims at :data:`SOLVE_MARGIN` times the
    tolerances: a goal is judged on
    Blender's evaluated pose (:mod:`.measure`), which Blender computes in single precision,
    so a solve stopping right at the tolerance would be reported reached or missed by
    round-off. ``method`` (a :data:`solver.methods.METHODS` name) replaces the armature's
    *Method* for this solver only (a bake's ``method`` option); None uses the setting.
    """
    return {
        "tolerance": SOLVE_MARGIN * distance_tolerance(settings, rig.length),
        "angle_tolerance": SOLVE_MARGIN * settings.angle_tolerance,
        "max_iterations": settings.max_iterations,
        "method": settings.method if method is None else method,
    }


def bone_world_matrix(obj: bpy.types.Object, name: str, at_tail: bool = False) -> np.ndarray:
    """World matrix (4, 4) of a pose bone, unscaled, at its head or tail."""
    pb = obj.pose.bones[name]
    m = np.array(obj.matrix_world, dtype=float) @ np.array(pb.matrix, dtype=float)
    if at_tail:
        m[:3, 3] = (m @ np.array([0.0, pb.length, 0.0, 1.0]))[:3]
    m[:3, :3] /= np.linalg.norm(m[:3, :3], axis=0)
    return m
