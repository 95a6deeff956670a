"""The bridge: an armature and its Reach constraints -> ``solver.Figure`` + constraints,
and a solution -> pose channel values. All the maths between Blender and the solver is here
(and in :mod:`..blender.channel_rotations`); operators only call :func:`build_rig` and the ``Rig``
methods. A :class:`Rig` is built once and then fixed (a frozen dataclass); what changes between
solves is its pose (:class:`.pose.RigPose`) and the targets its goals hold.

Frames. The figure lives in the model's world (:mod:`..blender.model_space`: the world, reflected
across X for a mirrored armature; a sheared armature's own space), goals too. One segment per bone,
at the bone's head, with the bone's pose axes; its rest transform relative to the parent segment
is the bone's rest offset (``parent.matrix_local^-1 @ bone.matrix_local``, object transform
applied to roots, lengths times the object's uniform scale) times the bone's current
``matrix_basis`` (location ignored for connected bones, as Blender does). A bone with *Inherit
Rotation* off is a segment that does not inherit rotation
(``Figure.add_segment(inherit_rotation=False)``): its world rest rotation is the object's
rotation times its own armature-space rest rotation, which is what Blender composes from the
parent's rest matrix. Pose scale and the *Inherit Scale* modes are folded into lengths (child
offsets times the parent's scale, end-effector points times the bone's own): see
:mod:`.pose_scale` for what is exact; the scale an IK Stretch writes is solved instead
(:mod:`.stretch`).

Parametrisation of a solved bone's rotation (why three kinds):
``LOCAL``  -- bones without limits: three revolutes about the bone's own X, Y, Z axes,
    relinearised around the current pose (``Figure.set_rest`` moves the pose into the rest
    rotation, the joints start at 0) at the start of every solve, and during a bake whenever
    a joint has turned more than :data:`.pose.REBASE_ANGLE`. The joints never get near a
    singularity, so a bone already turned 90 degrees still moves freely in every direction
    (Euler angles in the channels would gimbal-lock there). ``lock_ik_*`` drops that axis.
``IK_SEGMENT`` -- bones with IK limits (and neither of the next kind's settings): the
    segment Blender's Standard IK makes of the bone for its ``lock_ik_*`` (spherical, swing,
    elbow or revolute), with the limits in Blender's meaning: X/Z bound the swing quaternion
    as an ellipse (an inscribed polygon of linear constraints), Y the twist, an elbow's
    angles directly. See :mod:`..blender_ik.ik_limits`.
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
bone driving prismatic helpers after the rotation (:mod:`.stretch`), written as scale.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING

import numpy as np

from ... import solver
from ...props.access import armature_data
from ...solver.assembly.scale import characteristic_length
from ..blender import channel_rotations
from ..blender.model_space import model_space
from ..errors import RigError
from .goals import ConstraintPlan, ConstraintSpec, GoalBinding, build_constraints
from .immobile_chains import check_chains_move
from .joints import (
    SolvedBone,
    add_solved_bone,
    is_driven,
    location_segment,
    rotation_data_path,
)
from .object_frame import armature_space, check_carried
from .pose import BoneChannels, RigPose, rest_inputs
from .pose_scale import bone_scales
from .size import distance_tolerance, store_length
from .still_bones import still_bones
from .stretch import StretchPlan

if TYPE_CHECKING:
    import bpy

    from ...props.groups import ReachSettings

__all__ = ["BoneChannels", "Rig", "build_rig", "rotation_data_path", "solver_options"]

EPS_LENGTH = 1e-9
SOLVE_MARGIN = 0.5  # the solver aims at this share of the user's tolerances


@dataclass(frozen=True)
class Rig:
    """A solvable snapshot of one armature, fixed once :func:`build_rig` has made it: figure,
    constraints and channel maps. Only its :attr:`pose` (a :class:`.pose.RigPose`) and the
    targets its goals hold (:meth:`update_targets`) change between solves.

    Attributes:
        obj: the armature object.
        figure: the solver's figure (segments, joints); its rest transforms follow the pose
            (:meth:`push_rest`), its layout does not change.
        constraints: the solver constraints, parallel to ``specs``.
        bindings: one per goal: where its target is read from (each holds its goal, whose
            target :meth:`update_targets` re-reads).
        specs: the constraints as the bridge built them (effector bone, goal bindings).
        bones: the figure bones, parents first.
        solved: bone -> how its channels map to figure joints, for the bones the solve moves.
        scale: the armature object's uniform scale.
        notes: what the figure does not model, said once per solve (see :mod:`.pose_scale`).
        asked: bones the build asked whether the solve moves them
            (``goals.ConstraintPlan.asked``): the bones above them decide the answer.
        length: the characteristic length (scene units) of the figure and constraints at the
            build: what *Automatic* tolerances and orientation weights are relative to
            (see :mod:`.size`).
        pose: the pose the solves work on (read, pushed, started from, solved into, written).
    """

    obj: bpy.types.Object
    figure: solver.Figure
    constraints: tuple[solver.Constraint, ...]
    bindings: tuple[GoalBinding, ...]
    specs: tuple[ConstraintSpec, ...]
    bones: tuple[str, ...]
    solved: Mapping[str, SolvedBone]
    scale: float
    notes: tuple[str, ...]
    asked: frozenset[str]
    length: float
    pose: RigPose

    def read_pose(self, solved_too: bool) -> None:
        """Read basis rotation/location of figure bones from Blender (solved ones optional)."""
        self.pose.read(solved_too)

    def push_rest(self) -> None:
        """Write the current pose into the figure's rest transforms (no rebuild)."""
        self.pose.push_rest()

    def initial(self) -> np.ndarray:
        """Start coordinates ``(n_coords,)`` for the current pose (after :meth:`push_rest`)."""
        return self.pose.initial()

    def apply(self, result: solver.IKResult) -> None:
        """Move a solution into the pose (rotation/location of solved bones)."""
        self.pose.apply(result)

    def channels(self, previous: dict[str, np.ndarray] | None = None) -> dict[str, BoneChannels]:
        """Channel values of solved bones (:meth:`.pose.RigPose.channels`)."""
        return self.pose.channels(previous)

    def write_pose(self, channels: dict[str, BoneChannels]) -> None:
        """Write channel values (from :meth:`channels`) into the pose bones."""
        self.pose.write(channels)

    def update_targets(self) -> None:
        """Re-read target transforms into the goals (animated targets, bakes)."""
        _update_targets(self.bindings, self.obj, self.scale)

    def check_aim(self) -> None:
        """RigError when an aim target sits on its end-effector at the current pose."""
        ConstraintPlan(specs=list(self.specs)).check_aim(self.figure, self.initial, RigError)


def _update_targets(bindings: Iterable[GoalBinding], obj: bpy.types.Object, scale: float) -> None:
    """Re-read target transforms into the goals of ``bindings``."""
    space = None  # the armature's model space, read once for the goals in the world
    for binding in bindings:
        if space is None and binding.carrier is None:
            space = model_space(np.array(obj.matrix_world, dtype=float))
        binding.update(obj, scale, space)


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
    driven = [name for name in plan.chain_bones if is_driven(obj.pose.bones[name])]
    for name in driven:  # inputs: held at their channels' values each frame, not solved
        del plan.chain_bones[name]
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
        offsets[name][:3, :3] = channel_rotations.orthonormalize(offsets[name][:3, :3])
        if parent_seg is not None:
            loc = np.zeros(3) if bone.use_connect else np.array(obj.pose.bones[name].location)
            offset = scale * (offsets[name][:3, 3] + offsets[name][:3, :3] @ loc)
            parent_seg = stretch.child_segment(fig, name, parent_seg, offset)
        inherit = bone.parent is None or bone.use_inherit_rotation
        if not inherit:
            hinge_rest[name] = channel_rotations.orthonormalize(local[:3, :3])
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
    check_chains_move(obj, fig, plan.specs, solved, RigError, frozenset(driven))
    sliding = {name for name, info in solved.items() if info.location_joints}
    written = {name for name, info in solved.items() if info.writes_scale}
    scales = bone_scales(obj, order, sliding, written)
    for name in order:  # what the figure does not model, said once per solve
        reason = scales[name].reason
        if reason and reason not in notes:
            notes.append(reason)
    scale_of = {name: bone_scale.scale for name, bone_scale in scales.items()}
    links = {
        name: (bone.parent.name if bone.parent else None, bone.use_connect)
        for name in order
        for bone in (bones_by_name[name],)
    }
    for binding in plan.bindings:  # a goal on a Target Bone of this armature
        if binding.carrier is not None and binding.carry is None:
            binding.carrier_scale = scale_of.get(binding.carrier)
    solved_bones = MappingProxyType(solved)
    rest = rest_inputs(order, links, offsets, solved_bones, scale, scale_of, hinge_rest)
    bones = tuple(order)
    pose = RigPose(
        obj, fig, bones, solved_bones, scale, rest, tuple(still_bones(obj, order, solved))
    )
    pose.read(solved_too=True)
    pose.push_rest()
    _update_targets(plan.bindings, obj, scale)
    for spec in plan.specs:
        root = solved.get(spec.root) if spec.root is not None else None
        if root is not None and root.location_segment is not None:
            spec.root = root.location_segment  # the chain root's location joints sit there
    try:
        constraints = plan.make_constraints(scale_of)
    except solver.ReachError as exc:
        raise RigError(str(exc)) from None
    plan.check_aim(fig, pose.initial, RigError)
    length = characteristic_length(fig, constraints)
    store_length(obj, length)  # the panel shows the effective values from it
    return Rig(
        obj=obj,
        figure=fig,
        constraints=tuple(constraints),
        bindings=tuple(plan.bindings),
        specs=tuple(plan.specs),
        bones=bones,
        solved=solved_bones,
        scale=scale,
        notes=tuple(notes),
        asked=frozenset(plan.asked),
        length=length,
        pose=pose,
    )


#: Restarts of a Solve and of each baked frame: the nudge off a saddle and the starts near the
#: current (or previous frame's) pose (``solver.search.restarts``), never a jump anywhere within the
#: limits. A bounded count keeps a Solve on the pose's branch, a bake repeatable and on its
#: branch, and a frame whose goal is out of reach cheap.
RESTARTS = 2


def solver_options(rig: Rig, settings: ReachSettings, method: str | None = None) -> solver.Options:
    """The options of a ``solver.Solver`` for the armature's Reach settings.

    The distance tolerance is the setting's, or relative to ``rig.length`` when *Automatic*
    (:func:`.size.distance_tolerance`). The solver aims at :data:`SOLVE_MARGIN` times the
    tolerances: a goal is judged on Blender's evaluated pose (:mod:`..measure.residuals`), which
    Blender computes in single precision, so a solve stopping right at the tolerance would be
    reported reached or missed by round-off. Restarts are :data:`RESTARTS`. ``method`` (a
    :data:`solver.methods.METHODS` name) replaces the armature's *Method* for this solver only
    (a bake's ``method`` option); None uses the setting.
    """
    return solver.Options(
        tolerance=SOLVE_MARGIN * distance_tolerance(settings, rig.length),
        angle_tolerance=SOLVE_MARGIN * settings.angle_tolerance,
        max_iterations=settings.max_iterations,
        method=settings.method if method is None else method,
        restarts=RESTARTS,
    )


def bone_world_matrix(obj: bpy.types.Object, name: str, at_tail: bool = False) -> np.ndarray:
    """World matrix (4, 4) of a pose bone, unscaled, at its head or tail."""
    pb = obj.pose.bones[name]
    m = np.array(obj.matrix_world, dtype=float) @ np.array(pb.matrix, dtype=float)
    if at_tail:
        m[:3, 3] = (m @ np.array([0.0, pb.length, 0.0, 1.0]))[:3]
    m[:3, :3] /= np.linalg.norm(m[:3, :3], axis=0)
    return m
