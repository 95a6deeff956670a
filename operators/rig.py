"""The bridge: an armature and its Reach constraints -> ``solver.Figure`` + constraints,
and a solution -> pose channel values. All the maths between Blender and the solver is here
(and in :mod:`.rotations`); operators only call :func:`build_rig` and the ``Rig`` methods.

Frames. The figure lives in world space. One segment per bone, at the bone's head, with the
bone's pose axes; its rest transform relative to the parent segment is the bone's rest offset
(``parent.matrix_local^-1 @ bone.matrix_local``, object transform applied to roots, lengths
times the object's uniform scale) times the bone's current ``matrix_basis`` (location ignored
for connected bones, as Blender does; pose scale is not modelled).

Parametrisation of a solved bone's rotation (why two kinds):
``LOCAL``  -- bones without limits: three revolutes about the bone's own X, Y, Z axes,
    relinearised around the current pose (``Figure.set_rest`` moves the pose into the rest
    rotation, the joints start at 0) at the start of every solve, and during a bake whenever
    a joint has turned more than ``REBASE_ANGLE``. The joints never get near a singularity,
    so a bone already turned 90 degrees still moves freely in every direction (Euler angles
    in the channels would gimbal-lock there). ``lock_ik_*`` drops that axis.
``EULER``  -- bones with limits (IK limits or an enabled local-space Limit Rotation
    constraint) or with ``lock_rotation`` on an Euler channel: absolute Euler angles in the
    order Blender's Limit Rotation uses (its ``euler_order``; ``AUTO`` = the bone's Euler
    rotation mode, ``XYZ`` for quaternion / axis-angle bones). Order ``"ABC"`` means
    ``R = R_C R_B R_A``, so the revolutes are added C, B, A. Each angle is bounded to
    [-180, 180] degrees intersected with the limits, and when the box allows it,
    ``|a| + |b| + |c| <= 270`` degrees (eight linear constraints): exactly the angles
    Blender's decomposition (the branch with the smaller sum of |angle|) returns, so a Limit
    Rotation constraint with the same limits leaves a solved pose unchanged.
Prismatic DOFs (``ik_stretch`` > 0: location Y within +-stretch * length; root translation:
location X, Y, Z unbounded) come before the rotation, like ``location`` in ``matrix_basis``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .. import solver
from . import rotations
from .rig_goals import GoalBinding, build_constraints

EPS_LENGTH = 1e-9
OCTAHEDRON = 1.5 * np.pi
REBASE_ANGLE = 0.5  # radians; LOCAL joints are relinearised beyond this


class RigError(Exception):
    """A problem in the scene that prevents a solve; the message names what to fix."""


@dataclass
class SolvedBone:
    """How one solved bone's channels map to figure joints."""

    name: str
    param: str  # "LOCAL" or an Euler order
    rotation_mode: str
    rotation_joints: list[tuple[int, str]] = field(default_factory=list)  # (axis, joint)
    location_joints: list[tuple[int, str]] = field(default_factory=list)  # (axis, joint)
    keyed_rotation: tuple[int, ...] = ()  # rotation channel indices that change


@dataclass
class Rig:
    """A solvable snapshot of one armature: figure, constraints and channel maps."""

    obj: object
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
    # LOCAL bones: rotation pushed into the figure's rest (base) and the joint values on top
    # of it. The base is moved to the current rotation (relinearised) whenever a joint has
    # turned more than REBASE_ANGLE, so the revolutes never get near a singular Euler stack.
    base: dict[str, np.ndarray] = field(default_factory=dict)
    local_values: dict[str, np.ndarray] = field(default_factory=dict)
    pushed: dict[str, tuple[np.ndarray, np.ndarray | None]] = field(default_factory=dict)

    # ------------------------------------------------------------------ state
    def read_pose(self, solved_too: bool) -> None:
        """Read basis rotation/location of figure bones from Blender (solved ones optional)."""
        pose = self.obj.pose.bones
        for name in self.bones:
            if solved_too or name not in self.solved:
                pb = pose[name]
                self.rotation[name] = rotations.channels_to_rotation(
                    _rotation_values(pb), pb.rotation_mode
                )
                self.base.pop(name, None)  # relinearise around the pose just read
            if solved_too or name not in self.solved or not self.solved[name].location_joints:
                self.location[name] = np.array(pose[name].location, dtype=float)

    def _set_rest(self, segment: str, translation: np.ndarray | None, rotation: np.ndarray) -> None:
        last = self.pushed.get(segment)
        if (
            last is not None
            and np.array_equal(last[1], rotation)
            and (translation is None or np.array_equal(last[0], translation))
        ):
            return  # unchanged: skip the solver's validation and kinematics refresh
        self.figure.set_rest(segment, translation, rotation)
        self.pushed[segment] = (translation, rotation)

    def push_rest(self) -> None:
        """Write the current state into the figure's rest transforms (no rebuild)."""
        t_obj, r_obj = _object_frame(self.obj, self.scale)
        s = self.scale
        bones = self.obj.data.bones
        for name in self.bones:
            bone = bones[name]
            off = self.offsets[name]
            info = self.solved.get(name)
            loc = np.zeros(3) if bone.use_connect else self.location[name]
            if info is not None and info.location_joints:
                loc = np.zeros(3)
            translation = s * (off[:3, 3] + off[:3, :3] @ loc)
            rotation = off[:3, :3]
            if bone.parent is None:
                translation = t_obj + r_obj @ translation
                rotation = r_obj @ rotation
            if info is not None and info.param != "LOCAL":
                self._set_rest(name, translation, rotation)
                continue
            if info is not None:
                values = self.local_values.get(name)
                if (
                    name not in self.base
                    or values is None
                    or np.abs(values).max(initial=0.0) > REBASE_ANGLE
                ):
                    self.base[name] = self.rotation[name]
                    self.local_values[name] = np.zeros(len(info.rotation_joints))
                if info.location_joints:
                    self._set_rest(name + "@loc", translation, rotation)
                    self._set_rest(name, None, self.base[name])
                    continue
                self._set_rest(name, translation, rotation @ self.base[name])
                continue
            self._set_rest(name, translation, rotation @ self.rotation[name])

    def initial(self) -> np.ndarray:
        """Start coordinates ``(n_coords,)`` for the current state (after :meth:`push_rest`)."""
        values = dict.fromkeys(self.figure.coordinate_names, 0.0)
        for name, info in self.solved.items():
            if info.param == "LOCAL":
                local = self.local_values.get(name)
                for n, (_axis, joint) in enumerate(info.rotation_joints):
                    values[joint] = 0.0 if local is None else float(local[n])
            else:
                angles = rotations.matrix_to_euler(self.rotation[name], info.param)
                for axis, joint in info.rotation_joints:
                    values[joint] = float(angles[axis])
            for axis, joint in info.location_joints:
                values[joint] = self.scale * float(self.location[name][axis])
        return np.array([values[c] for c in self.figure.coordinate_names])

    def apply(self, result: solver.IKResult) -> None:
        """Move a solution into the state (rotation/location of solved bones)."""
        values = result.values()
        for name, info in self.solved.items():
            if info.param == "LOCAL":
                r = self.base[name]
                local = np.array([values[joint] for _axis, joint in info.rotation_joints])
                for (axis, _joint), value in zip(info.rotation_joints, local, strict=True):
                    r = r @ rotations.axis_rotation(axis, value)
                self.local_values[name] = local
            else:
                angles = rotations.matrix_to_euler(self.rotation[name], info.param)
                for axis, joint in info.rotation_joints:
                    angles[axis] = values[joint]
                r = rotations.euler_to_matrix(angles, info.param)
            self.rotation[name] = rotations.orthonormalize(r)
            for axis, joint in info.location_joints:
                self.location[name][axis] = values[joint] / self.scale

    def channels(
        self, previous: dict[str, np.ndarray] | None = None
    ) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """Channel values of solved bones: bone -> (rotation channels, location (3,)).

        ``previous`` (bone -> rotation channels) keeps Euler angles and quaternion signs
        continuous; without it the bone's current channels in Blender are used.
        """
        out = {}
        for name, info in self.solved.items():
            pb = self.obj.pose.bones[name]
            prev = previous[name] if previous and name in previous else _rotation_values(pb)
            rot = rotations.rotation_to_channels(self.rotation[name], info.rotation_mode, prev)
            out[name] = (rot, self.location[name].copy())
        return out

    def write_pose(self, channels: dict[str, tuple[np.ndarray, np.ndarray]]) -> None:
        """Write channel values (from :meth:`channels`) into the pose bones."""
        for name, (rot, loc) in channels.items():
            pb = self.obj.pose.bones[name]
            info = self.solved[name]
            _set_rotation_values(pb, rot)
            for axis, _joint in info.location_joints:
                pb.location[axis] = float(loc[axis])

    def update_targets(self) -> None:
        """Re-read target transforms into the goals (animated targets, bakes)."""
        for binding in self.bindings:
            binding.update(self.obj, self.scale)


def _rigid_inverse(m: np.ndarray) -> np.ndarray:
    """Inverse of a rigid transform (4, 4) (bone rest matrices are rigid)."""
    out = np.eye(4)
    out[:3, :3] = m[:3, :3].T
    out[:3, 3] = -m[:3, :3].T @ m[:3, 3]
    return out


def _rotation_values(pb: object) -> np.ndarray:
    mode = pb.rotation_mode
    if mode == "QUATERNION":
        return np.array(pb.rotation_quaternion, dtype=float)
    if mode == "AXIS_ANGLE":
        return np.array(pb.rotation_axis_angle, dtype=float)
    return np.array(pb.rotation_euler, dtype=float)


def _set_rotation_values(pb: object, values: np.ndarray) -> None:
    mode = pb.rotation_mode
    if mode == "QUATERNION":
        pb.rotation_quaternion = values
    elif mode == "AXIS_ANGLE":
        pb.rotation_axis_angle = values
    else:
        pb.rotation_euler = values


def rotation_data_path(pb: object) -> str:
    """The RNA property holding a pose bone's rotation in its rotation mode."""
    mode = pb.rotation_mode
    if mode == "QUATERNION":
        return "rotation_quaternion"
    if mode == "AXIS_ANGLE":
        return "rotation_axis_angle"
    return "rotation_euler"


def _object_frame(obj: object, scale: float) -> tuple[np.ndarray, np.ndarray]:
    m = np.array(obj.matrix_world, dtype=float)
    return m[:3, 3], rotations.orthonormalize(m[:3, :3] / scale)


def object_scale(obj: object) -> float:
    """Uniform world scale of an armature object; RigError if degenerate or non-uniform."""
    m = np.array(obj.matrix_world, dtype=float)
    if not np.all(np.isfinite(m)):
        raise RigError(f"Armature '{obj.name}' has a non-finite transform")
    scales = np.linalg.norm(m[:3, :3], axis=0)
    if scales.min() <= EPS_LENGTH:
        raise RigError(f"Armature '{obj.name}' has zero scale")
    if scales.max() - scales.min() > 1e-5 * scales.max():
        raise RigError(f"Armature '{obj.name}' has a non-uniform scale; apply it first")
    return float(scales.mean())


def _limits(pb: object, constraint_name: str) -> tuple[str | None, np.ndarray, np.ndarray]:
    """Euler order and (3,) lower/upper limits (radians) of a pose bone, or (None, ...)."""
    lower, upper = np.full(3, -np.inf), np.full(3, np.inf)
    limited = False
    order = pb.rotation_mode if pb.rotation_mode in rotations.EULER_ORDERS else "XYZ"
    for k, axis in enumerate("xyz"):
        if getattr(pb, f"use_ik_limit_{axis}"):
            lower[k] = max(lower[k], getattr(pb, f"ik_min_{axis}"))
            upper[k] = min(upper[k], getattr(pb, f"ik_max_{axis}"))
            limited = True
    for con in pb.constraints:
        if con.type != "LIMIT_ROTATION" or con.mute or con.owner_space != "LOCAL":
            continue
        if con.euler_order != "AUTO":
            order = con.euler_order
        for k, axis in enumerate("xyz"):
            if getattr(con, f"use_limit_{axis}"):
                lo, hi = getattr(con, f"min_{axis}"), getattr(con, f"max_{axis}")
                if lo > hi:
                    raise RigError(
                        f"Constraint '{constraint_name}': bone '{pb.name}' has contradictory "
                        f"limits on {axis.upper()} (Limit Rotation '{con.name}': min > max)"
                    )
                lower[k], upper[k] = max(lower[k], lo), min(upper[k], hi)
                limited = True
    for k, axis in enumerate("XYZ"):
        if lower[k] > upper[k]:
            raise RigError(
                f"Constraint '{constraint_name}': bone '{pb.name}' has contradictory limits "
                f"on {axis} (IK limits and Limit Rotation do not overlap)"
            )
    euler_locked = pb.rotation_mode in rotations.EULER_ORDERS and any(pb.lock_rotation)
    return (order if limited or euler_locked else None), lower, upper


def _rigidity(pb: object) -> np.ndarray:
    settings = pb.reach_ik
    if settings.use_rigidity:
        return np.clip(np.array(settings.rigidity, dtype=float), 0.0, 1.0)
    return np.array([pb.ik_stiffness_x, pb.ik_stiffness_y, pb.ik_stiffness_z], dtype=float)


def _add_solved_bone(
    fig: solver.Figure, pb: object, owner: str, scale: float, root_translation: bool, notes: list
) -> SolvedBone:
    """Add the joints of one solved bone (segments already exist)."""
    name = pb.name
    bone = pb.bone
    order, lower, upper = _limits(pb, owner)
    rig = _rigidity(pb)
    info = SolvedBone(name, order or "LOCAL", pb.rotation_mode)
    seg = name + "@loc" if order is None and _has_location(pb, root_translation) else name
    if bone.parent is None and root_translation:
        for k in range(3):
            info.location_joints.append(
                (k, fig.add_prismatic(seg, np.eye(3)[k], name=f"{name}:loc{'XYZ'[k]}"))
            )
    elif pb.ik_stretch > 0.0:
        if bone.use_connect:
            notes.append(f"bone '{name}' is connected: Blender ignores its location, no stretch")
        else:
            reach = pb.ik_stretch * bone.length * scale
            info.location_joints.append(
                (1, fig.add_prismatic(seg, (0, 1, 0), -reach, reach, name=f"{name}:locY"))
            )
    locks = [pb.lock_ik_x, pb.lock_ik_y, pb.lock_ik_z]
    if order is None:
        for k in range(3):
            if not locks[k]:
                joint = fig.add_revolute(
                    name, np.eye(3)[k], rigidity=rig[k], name=f"{name}:rot{'XYZ'[k]}"
                )
                info.rotation_joints.append((k, joint))
        info.keyed_rotation = _keyed(pb, bool(info.rotation_joints), ())
        return info
    current = rotations.matrix_to_euler(
        rotations.channels_to_rotation(_rotation_values(pb), pb.rotation_mode), order
    )
    euler_locks = (
        list(pb.lock_rotation) if pb.rotation_mode in rotations.EULER_ORDERS else [False] * 3
    )
    fixed = []
    span = 0.0
    for letter in reversed(order):
        k = rotations.AXIS_INDEX[letter]
        lo, hi = max(lower[k], -np.pi), min(upper[k], np.pi)
        if locks[k] or euler_locks[k]:
            lo = hi = float(np.clip(current[k], lo, hi))
            fixed.append(k)
        joint = fig.add_revolute(name, np.eye(3)[k], lo, hi, rig[k], name=f"{name}:rot{letter}")
        info.rotation_joints.append((k, joint))
        span += max(abs(lo), abs(hi))
    if span > OCTAHEDRON:  # the box reaches beyond Blender's Euler branch: cut it there
        joints = dict(info.rotation_joints)
        for signs in np.ndindex(2, 2, 2):
            coeffs = {joints[k]: (1.0 if signs[k] else -1.0) for k in range(3)}
            fig.add_linear_constraint(coeffs, upper=OCTAHEDRON, label=f"{name} Euler branch")
    info.keyed_rotation = _keyed(pb, len(fixed) < 3, tuple(fixed))
    return info


def _has_location(pb: object, root_translation: bool) -> bool:
    bone = pb.bone
    if bone.parent is None and root_translation:
        return True
    return pb.ik_stretch > 0.0 and not bone.use_connect


def _keyed(pb: object, moves: bool, fixed: tuple[int, ...]) -> tuple[int, ...]:
    """Rotation channel indices written for a bone (an Euler channel held fixed is not)."""
    if not moves:
        return ()
    if pb.rotation_mode in rotations.EULER_ORDERS:
        return tuple(k for k in range(3) if k not in fixed)
    return (0, 1, 2, 3)


def build_rig(obj: object, settings: object, only_selected: bool = False) -> Rig:
    """Translate an armature object and its Reach constraints into a solvable :class:`Rig`.

    Raises:
        RigError: with a message naming the constraint, bone or object at fault.
    """
    if obj is None or obj.type != "ARMATURE":
        raise RigError("The active object is not an armature")
    if len(obj.data.bones) == 0:
        raise RigError(f"Armature '{obj.name}' has no bones")
    items = [c for c in settings.constraints if c.enabled and (c.select or not only_selected)]
    if not items:
        raise RigError(f"Armature '{obj.name}' has no enabled Reach constraints")
    scale = object_scale(obj)
    plan = build_constraints(obj, items, scale, RigError)
    bones_by_name = obj.data.bones
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
    offsets = {}
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
        if name in plan.chain_bones and _has_location(
            obj.pose.bones[name], settings.use_root_translation
        ):
            pb = obj.pose.bones[name]
            order_, _, _ = _limits(pb, plan.chain_bones[name])
            if order_ is None:
                fig.add_segment(name + "@loc", parent_seg)
                parent_seg = name + "@loc"
        fig.add_segment(name, parent_seg)
    notes: list[str] = []
    solved = {}
    for name in order:
        if name in plan.chain_bones:
            solved[name] = _add_solved_bone(
                fig, obj.pose.bones[name], plan.chain_bones[name], scale,
                settings.use_root_translation, notes,
            )  # fmt: skip
    rig = Rig(obj, fig, [], plan.bindings, order, solved, scale, {}, {}, offsets, notes)
    rig.read_pose(solved_too=True)
    rig.push_rest()
    rig.update_targets()
    segments = set(fig.segment_names)
    for entry in plan.entries:
        if entry["root"] is not None and entry["root"] + "@loc" in segments:
            entry["root"] += "@loc"  # the chain root's location joints sit on its helper
    try:
        rig.constraints = plan.make_constraints(solver)
    except solver.ReachError as exc:
        raise RigError(str(exc)) from None
    plan.check_aim(rig, RigError)
    return rig


def solver_options(settings: object) -> dict[str, object]:
    """Keyword options for ``solver.Solver`` from the armature's Reach settings."""
    return {
        "tolerance": settings.tolerance,
        "angle_tolerance": settings.angle_tolerance,
        "max_iterations": settings.max_iterations,
        "initial_hessian": settings.method,
    }
