"""Articulated figures: a tree of rigid segments joined by 1-DOF joints (§3, §4).

A segment's world transform is

    T_s = T_parent(s) @ Rest_s @ M_1(q_1) @ ... @ M_k(q_k)

where ``Rest_s`` is its rest transform relative to the parent's frame (taken
after the parent's own joint motion) and ``M_i`` the motion of its i-th joint:
a rotation about, or a translation along, a unit axis given in the segment's
local frame. Multi-DOF joints are several 1-DOF joints with zero distance
between them (a ball joint is three revolutes).

A segment added with ``inherit_rotation=False`` is carried by its parent but not
turned by it:

    T_s = [ Rest_s.R @ M_1(q_1) @ ... @ M_k(q_k) | T_parent(s) @ Rest_s.t ]

(rotation part, and origin as a point). Its rest rotation is relative to the world
frame, so no ancestor joint turns it or its descendants; its origin still follows the
parent. This is Blender's *Inherit Rotation* off (``BONE_HINGE`` in
``BKE_bone_parent_transform_calc_from_matrices``): the bone's rotation is composed
from its parent's rest (armature-space) matrix and its own rest offset, i.e. its own
armature-space rest rotation, while its head is placed by the parent's posed matrix.
A root segment's frame is world-relative either way.

The solve variables are *coordinates*: every joint not in a joint group, then
the parameters of each joint group (a linear map from a few parameters to many
joint values, the paper's 17-vertebra spine driven by 3 parameters).
"""

from collections.abc import Mapping, Sequence
from functools import cached_property

import numpy as np

from .._checks import (
    finite_vector,
    float_array,
    limit_pair,
    non_empty_name,
    per_item,
    real_number,
    rigidity_value,
    triple,
    unit_vector,
)
from ..errors import InvalidInputError, UnknownNameError
from .kinematics import Kinematics
from .linear import LinearSystem, project
from .rotations import rest_rotation
from .structure import PRISMATIC, REVOLUTE, Joint, JointGroup, LinearConstraint, Segment


class Figure:
    """A tree of named segments with joints, joint groups and linear constraints."""

    def __init__(self) -> None:
        self._segments: list[Segment] = []
        self._joints: list[Joint] = []
        self._groups: list[JointGroup] = []
        self._linear: list[LinearConstraint] = []
        self._segment_index: dict[str, int] = {}
        self._joint_index: dict[str, int] = {}
        self._version = 0
        self._rest_version = 0
        self._offset_version = 0

    # ----------------------------------------------------------------- building
    def add_segment(
        self,
        name: str,
        parent: str | None = None,
        translation: Sequence[float] = (0.0, 0.0, 0.0),
        rotation: object = None,
        quaternion: object = None,
        rpy: object = None,
        inherit_rotation: bool = True,
    ) -> None:
        """Add a segment with its rest transform relative to ``parent``'s frame.

        The rest rotation is given by at most one of ``rotation``, ``quaternion``
        and ``rpy`` (none: identity); see :mod:`solver.model.rotations` for conventions.

        Args:
            name: unique segment name.
            parent: parent segment name, or None for a root (rest = world).
            translation: (3,) rest offset in scene units, in the parent frame.
            rotation: (3, 3) rest rotation relative to the parent frame (to the world
                frame when ``inherit_rotation`` is False).
            quaternion: (4,) rest rotation as a ``(w, x, y, z)`` quaternion.
            rpy: (3,) URDF roll, pitch, yaw in radians: ``Rz(yaw) Ry(pitch) Rx(roll)``.
            inherit_rotation: False for a segment whose orientation does not follow its
                ancestors' joints (its origin still does); see the module docstring.
        """
        non_empty_name(name, "segment name")
        if name in self._segment_index:
            raise InvalidInputError(f"segment {name!r} already exists")
        if not isinstance(inherit_rotation, bool | np.bool_):
            raise InvalidInputError(
                f"segment {name!r}: inherit_rotation must be True or False, "
                f"got {inherit_rotation!r}"
            )
        parent_index = -1 if parent is None else self.segment_index(parent)
        rest_t = finite_vector(translation, f"segment {name!r} translation")
        rest_r = rest_rotation(rotation, quaternion, rpy, f"segment {name!r}")
        rest_r = np.eye(3) if rest_r is None else rest_r
        self._segment_index[name] = len(self._segments)
        self._segments.append(
            Segment(name, parent_index, rest_t, rest_r, inherit_rotation=bool(inherit_rotation))
        )
        self._touch()

    def set_rest(
        self,
        name: str,
        translation: object = None,
        rotation: object = None,
        quaternion: object = None,
        rpy: object = None,
    ) -> None:
        """Change a segment's rest transform in place (no rebuild of solvers).

        A value bit-equal to the segment's current one (a float64 array of the same shape and
        bytes; ``rotation`` only, not a quaternion or rpy) is no change: nothing is validated
        again and no solve or forward pass re-reads the segment, so a caller may push every
        segment's rest before every solve without keeping its own record of what it pushed.

        Args:
            name: segment name.
            translation: new (3,) rest offset, or None to keep it.
            rotation, quaternion, rpy: the new rest rotation as in
                :meth:`add_segment` (at most one), or none to keep it; relative to the
                world frame for a segment that does not inherit rotation.
        """
        index = self.segment_index(name)
        segment = self._segments[index]
        if (
            quaternion is None
            and rpy is None
            and (translation is None or _bit_equal(translation, segment.translation))
            and (rotation is None or _bit_equal(rotation, segment.rotation))
        ):
            return  # the rest it has (already valid), or nothing given
        new_t = None
        if translation is not None:
            new_t = finite_vector(translation, f"segment {name!r} translation")
        new_r = rest_rotation(rotation, quaternion, rpy, f"segment {name!r}")
        if new_t is not None:  # both validated before either changes
            if new_t.tolist() != segment.translation.tolist():  # as floats: -0.0 == 0.0
                self._offset_version += 1
            segment.translation = new_t
        if new_r is not None:
            segment.rotation = new_r
        self._rest_version += 1
        if "kinematics" in self.__dict__:
            self.kinematics.rest_changed(index)  # re-read at the next forward pass

    def add_revolute(
        self,
        segment: str,
        axis: object,
        lower: float = -np.inf,
        upper: float = np.inf,
        rigidity: float = 0.0,
        name: str | None = None,
    ) -> str:
        """Add a revolute joint (radians) about a segment-local ``axis``; return its name."""
        return self._add_joint(segment, REVOLUTE, axis, lower, upper, rigidity, name)

    def add_prismatic(
        self,
        segment: str,
        axis: object,
        lower: float = -np.inf,
        upper: float = np.inf,
        rigidity: float = 0.0,
        name: str | None = None,
    ) -> str:
        """Add a prismatic joint (scene units) along a segment-local ``axis``; return its name."""
        return self._add_joint(segment, PRISMATIC, axis, lower, upper, rigidity, name)

    def add_ball(
        self,
        segment: str,
        lower: float | Sequence[float] = -np.inf,
        upper: float | Sequence[float] = np.inf,
        rigidity: float | Sequence[float] = 0.0,
    ) -> tuple[str, str, str]:
        """Add three revolutes about local X, then Y, then Z (``R = Rx Ry Rz``).

        Args:
            segment: segment name.
            lower, upper: scalar or (3,) limits in radians for X, Y, Z.
            rigidity: scalar or (3,) rigidities in [0, 1].
        Returns:
            The joint names ``(segment.x, segment.y, segment.z)``.
        """
        lo = triple(lower, f"ball joint of {segment!r} lower")
        hi = triple(upper, f"ball joint of {segment!r} upper")
        rig = triple(rigidity, f"ball joint of {segment!r} rigidity")
        names = tuple(
            self.add_revolute(segment, axis, lo[k], hi[k], rig[k], f"{segment}.{axis}")
            for k, axis in enumerate("xyz")
        )
        return names  # type: ignore[return-value]

    def add_group(
        self,
        name: str,
        joints: Sequence[str],
        matrix: object,
        lower: float | Sequence[float] = -np.inf,
        upper: float | Sequence[float] = np.inf,
        rigidity: float | Sequence[float] = 0.0,
    ) -> tuple[str, ...]:
        """Drive ``joints`` by a few parameters: ``q[joints] = matrix @ params``.

        Args:
            name: group name; parameters are called ``name[k]``.
            joints: names of free joints (each joint joins at most one group).
            matrix: (len(joints), p) coupling matrix.
            lower, upper: scalar or (p,) parameter bounds.
            rigidity: scalar or (p,) parameter rigidities in [0, 1].
        Returns:
            The parameter names.
        """
        non_empty_name(name, "group name")
        if any(g.name == name for g in self._groups):
            raise InvalidInputError(f"group {name!r} already exists; give the group another name")
        if name in self._joint_index:
            raise InvalidInputError(
                f"group {name!r}: a joint has that name (set_limits({name!r}) would be "
                "ambiguous); give the group another name"
            )
        if isinstance(joints, str) or not isinstance(joints, Sequence):
            raise InvalidInputError(f"group {name!r}: joints must be a list of joint names")
        indices = [self.joint_index(j) for j in joints]
        if not indices:
            raise InvalidInputError(f"group {name!r} needs at least one joint")
        if len(set(indices)) != len(indices):
            raise InvalidInputError(f"group {name!r} lists a joint twice")
        for j in indices:
            if self._joints[j].group >= 0:
                other = self._groups[self._joints[j].group].name
                raise InvalidInputError(
                    f"group {name!r}: joint {self._joints[j].name!r} is already in group {other!r}"
                )
        m = float_array(matrix, f"group {name!r} matrix")
        if m.ndim != 2 or m.shape[0] != len(indices) or m.shape[1] < 1:
            raise InvalidInputError(
                f"group {name!r}: matrix must have shape ({len(indices)}, p), got {m.shape}"
            )
        if not np.all(np.isfinite(m)):
            raise InvalidInputError(f"group {name!r}: matrix contains NaN or infinity")
        p = m.shape[1]
        for k in range(p):
            if f"{name}[{k}]" in self._joint_index:
                raise InvalidInputError(
                    f"group {name!r}: its parameter {name}[{k}] is named like a joint; "
                    "give the group another name"
                )
        lo = per_item(lower, p, f"group {name!r} lower")
        hi = per_item(upper, p, f"group {name!r} upper")
        rig = per_item(rigidity, p, f"group {name!r} rigidity")
        for k in range(p):
            limit_pair(lo[k], hi[k], f"group parameter {name}[{k}]")
            rigidity_value(rig[k], f"group parameter {name}[{k}]")
        group_index = len(self._groups)
        self._groups.append(JointGroup(name, indices, m, lo, hi, rig))
        for j in indices:
            self._joints[j].group = group_index
        self._touch()
        return tuple(f"{name}[{k}]" for k in range(p))

    def add_linear_constraint(
        self,
        coefficients: Mapping[str, float],
        lower: float = -np.inf,
        upper: float = np.inf,
        label: str | None = None,
    ) -> None:
        """Add ``lower <= sum(c_j * q_j) <= upper`` over joint values (§6, eq. 23).

        Several of these on the DOFs of one joint make a polygonal limit.
        """
        if label is not None and not isinstance(label, str):
            raise InvalidInputError(f"linear constraint label must be a string, got {label!r}")
        lo, hi = limit_pair(lower, upper, f"linear constraint {label or len(self._linear)}")
        if not isinstance(coefficients, Mapping) or not coefficients:
            raise InvalidInputError(
                "linear constraint coefficients must be a non-empty {joint name: number} "
                f"mapping, got {coefficients!r}"
            )
        coeffs: dict[int, float] = {}
        for joint, value in coefficients.items():
            c = real_number(value, f"linear constraint coefficient of {joint!r}")
            coeffs[self.joint_index(joint)] = c
        if all(c == 0.0 for c in coeffs.values()):
            raise InvalidInputError("a linear constraint needs a non-zero coefficient")
        text = label or " + ".join(f"{c:g}*{j}" for j, c in coefficients.items())
        self._linear.append(LinearConstraint(text, coeffs, lo, hi))
        self._touch()

    def remove_linear_constraints(self, label: str) -> int:
        """Remove every linear constraint labelled ``label``; returns how many were removed.

        With :meth:`add_linear_constraint` this replaces a polygonal limit (e.g. a finer
        polygon where a solve stopped on it); assembled problems are rebuilt.
        """
        if not isinstance(label, str):
            raise InvalidInputError(f"linear constraint label must be a string, got {label!r}")
        kept = [c for c in self._linear if c.label != label]
        removed = len(self._linear) - len(kept)
        if removed:
            self._linear = kept
            self._touch()
        return removed

    def add_equality(
        self, coefficients: Mapping[str, float], value: float, label: str | None = None
    ) -> None:
        """Add ``sum(c_j * q_j) == value`` (coupled DOFs)."""
        v = real_number(value, f"equality {label!r} value" if label else "equality value")
        self.add_linear_constraint(coefficients, v, v, label)

    def set_rigidity(self, name: str, value: float) -> None:
        """Set the rigidity in [0, 1] of a joint or group parameter ``group[k]``."""
        non_empty_name(name, "set_rigidity name")
        r = rigidity_value(value, name)
        if name in self._joint_index:
            self._joints[self._joint_index[name]].rigidity = r
        else:
            group, k = self._parameter(name)
            group.rigidity[k] = r
        self._version += 1  # rigidity changes scaling, not the kinematic structure

    def set_limits(self, name: str, lower: float, upper: float) -> None:
        """Set the limits of a joint or group parameter ``group[k]``."""
        non_empty_name(name, "set_limits name")
        lo, hi = limit_pair(lower, upper, name)
        if name in self._joint_index:
            joint = self._joints[self._joint_index[name]]
            joint.lower, joint.upper = lo, hi
        else:
            group, k = self._parameter(name)
            group.lower[k], group.upper[k] = lo, hi
        self._version += 1

    def _add_joint(
        self,
        segment: str,
        kind: int,
        axis: object,
        lower: float,
        upper: float,
        rigidity: float,
        name: str | None,
    ) -> str:
        s = self.segment_index(segment)
        if name is not None:
            non_empty_name(name, "joint name")
        joint_name = name or f"{segment}.{len(self._segments[s].joints)}"
        if joint_name in self._joint_index:
            raise InvalidInputError(f"joint {joint_name!r} already exists")
        if joint_name in self._group_names():
            raise InvalidInputError(
                f"joint {joint_name!r}: a group or group parameter has that name; "
                "give the joint another name"
            )
        lo, hi = limit_pair(lower, upper, f"joint {joint_name!r}")
        rig = rigidity_value(rigidity, f"joint {joint_name!r}")
        u = unit_vector(axis, f"joint {joint_name!r} axis")
        self._joint_index[joint_name] = len(self._joints)
        self._segments[s].joints.append(len(self._joints))
        self._joints.append(Joint(joint_name, s, kind, u, lo, hi, rig))
        self._touch()
        return joint_name

    def _touch(self) -> None:
        self._version += 1
        for cached in ("kinematics", "coupling", "coordinate_names", "joint_names"):
            self.__dict__.pop(cached, None)

    def _group_names(self) -> set[str]:
        """Every group's name and its parameters' names ``group[k]``."""
        names = {g.name for g in self._groups}
        names.update(f"{g.name}[{k}]" for g in self._groups for k in range(g.matrix.shape[1]))
        return names

    def _parameter(self, name: str) -> tuple[JointGroup, int]:
        """The group and index ``k`` of the parameter called ``name`` (``group[k]``)."""
        for group in self._groups:
            prefix = f"{group.name}["
            if name.startswith(prefix) and name.endswith("]"):
                p = group.matrix.shape[1]
                index = name[len(prefix) : -1]
                for k in range(p):
                    if index == str(k):
                        return group, k
                has = f"{group.name}[0]" + (f" to {group.name}[{p - 1}]" if p > 1 else " only")
                raise UnknownNameError(
                    f"the figure has no group parameter {name!r}: group {group.name!r} has {has}"
                )
        raise UnknownNameError(f"the figure has no joint or group parameter {name!r}")

    # ------------------------------------------------------------------ queries
    def segment_index(self, name: str) -> int:
        """Index of segment ``name``; :class:`UnknownNameError` if absent."""
        try:
            return self._segment_index[name]
        except (KeyError, TypeError):
            raise UnknownNameError(f"the figure has no segment {name!r}") from None

    def joint_index(self, name: str) -> int:
        """Index of joint ``name``; :class:`UnknownNameError` if absent."""
        try:
            return self._joint_index[name]
        except (KeyError, TypeError):
            raise UnknownNameError(f"the figure has no joint {name!r}") from None

    @property
    def segments(self) -> tuple[Segment, ...]:
        """The segments in creation (topological) order."""
        return tuple(self._segments)

    @property
    def joints(self) -> tuple[Joint, ...]:
        """The 1-DOF joints in creation order."""
        return tuple(self._joints)

    @property
    def groups(self) -> tuple[JointGroup, ...]:
        """The joint groups in creation order."""
        return tuple(self._groups)

    @property
    def linear_constraints(self) -> tuple[LinearConstraint, ...]:
        """User linear constraints on joint values."""
        return tuple(self._linear)

    @property
    def segment_names(self) -> tuple[str, ...]:
        """Segment names in creation order."""
        return tuple(s.name for s in self._segments)

    @cached_property
    def joint_names(self) -> tuple[str, ...]:
        """Joint names in creation order (kept until a joint is added: read by every solve)."""
        return tuple(j.name for j in self._joints)

    @property
    def version(self) -> int:
        """Counter bumped by every change that invalidates assembled problems."""
        return self._version

    @property
    def rest_version(self) -> int:
        """Counter bumped by :meth:`set_rest`: sizes changed, structure kept."""
        return self._rest_version

    @property
    def offset_version(self) -> int:
        """Counter bumped by a :meth:`set_rest` that changes a rest translation (a new
        rotation alone leaves every segment offset's length, so the figure's reach, as it was)."""
        return self._offset_version

    @cached_property
    def coordinate_names(self) -> tuple[str, ...]:
        """Names of the coordinates: free joints, then group parameters."""
        free = [j.name for j in self._joints if j.group < 0]
        params = [f"{g.name}[{k}]" for g in self._groups for k in range(g.matrix.shape[1])]
        return tuple(free + params)

    @cached_property
    def coupling(self) -> np.ndarray:
        """(n_joints, n_coords) matrix ``B`` with ``q = B @ coords``."""
        b = np.zeros((len(self._joints), len(self.coordinate_names)))
        column = 0
        for j, joint in enumerate(self._joints):
            if joint.group < 0:
                b[j, column] = 1.0
                column += 1
        for group in self._groups:
            p = group.matrix.shape[1]
            b[group.joints, column : column + p] = group.matrix
            column += p
        return b

    @cached_property
    def kinematics(self) -> Kinematics:
        """Flattened arrays for fast forward kinematics and Jacobians."""
        return Kinematics(self._segments, self._joints)

    def coordinate_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """Per-coordinate (lower, upper) bounds, each (n_coords,)."""
        lower = [j.lower for j in self._joints if j.group < 0]
        upper = [j.upper for j in self._joints if j.group < 0]
        for g in self._groups:
            lower.extend(g.lower)
            upper.extend(g.upper)
        return np.array(lower, dtype=float), np.array(upper, dtype=float)

    def coordinate_rigidity(self) -> np.ndarray:
        """Per-coordinate rigidity in [0, 1], shape (n_coords,)."""
        values = [j.rigidity for j in self._joints if j.group < 0]
        for g in self._groups:
            values.extend(g.rigidity)
        return np.array(values, dtype=float)

    def joint_values(self, coords: object) -> np.ndarray:
        """Joint values (n_joints,) from coordinates (n_coords,)."""
        return self.coupling @ self._coords(coords)

    def neutral(self) -> np.ndarray:
        """Zero coordinates moved into the feasible set, shape (n_coords,).

        A figure without joints has no coordinates: the result has shape (0,).
        """
        if not self._segments:
            raise InvalidInputError("the figure has no segments; add segments and joints first")
        if not self._joints:
            return np.zeros(0)
        return project_feasible(self, np.zeros(len(self.coordinate_names)))

    def forward(self, coords: object = None) -> dict[str, np.ndarray]:
        """World transforms (4, 4) of every segment, keyed by name.

        Args:
            coords: (n_coords,) coordinates; None means all zero.
        """
        c = np.zeros(len(self.coordinate_names)) if coords is None else self._coords(coords)
        frames = self.kinematics.forward(self.coupling @ c)
        out = np.zeros((len(self._segments), 4, 4))
        out[:, :3, :3] = frames.rotations
        out[:, :3, 3] = frames.origins
        out[:, 3, 3] = 1.0
        return dict(zip(self.segment_names, out, strict=True))

    def _coords(self, coords: object, what: str = "coordinates") -> np.ndarray:
        """``coords`` validated as a finite (n_coords,) array; ``what`` names the argument."""
        n = len(self.coordinate_names)
        c = float_array(coords, what)
        if c.size == n:
            c = c.reshape(n)
        if c.shape != (n,):
            raise InvalidInputError(f"{what} must have shape ({n},), got {c.shape}")
        if not np.isfinite(c).all():
            raise InvalidInputError(f"{what} contain NaN or infinity")
        return c


def _bit_equal(value: object, stored: np.ndarray) -> bool:
    """Whether ``value`` is an array of ``stored``'s dtype and shape with the same bytes
    (so -0.0 differs from 0.0, and a list is never equal: it would need validating)."""
    return (
        isinstance(value, np.ndarray)
        and value.dtype == stored.dtype
        and value.shape == stored.shape
        and value.tobytes() == stored.tobytes()
    )


def _fmt(value: float) -> str:
    return f"{value:.6g}"


def coordinate_system(figure: Figure) -> LinearSystem:
    """All linear constraints of ``figure`` as rows over its coordinates."""
    n = len(figure.coordinate_names)
    coupling = figure.coupling
    rows: list[np.ndarray] = []
    rhs: list[float] = []
    equality: list[bool] = []
    labels: list[str] = []

    def add(a: np.ndarray, lower: float, upper: float, name: str) -> None:
        if lower == upper:
            rows.append(a)
            rhs.append(upper)
            equality.append(True)
            labels.append(f"{name} == {_fmt(upper)}")
            return
        if np.isfinite(upper):
            rows.append(a)
            rhs.append(upper)
            equality.append(False)
            labels.append(f"{name} <= {_fmt(upper)}")
        if np.isfinite(lower):
            rows.append(-a)
            rhs.append(-lower)
            equality.append(False)
            labels.append(f"{name} >= {_fmt(lower)}")

    lower, upper = figure.coordinate_bounds()
    for k, name in enumerate(figure.coordinate_names):
        a = np.zeros(n)
        a[k] = 1.0
        add(a, lower[k], upper[k], name)
    for j, joint in enumerate(figure.joints):
        if joint.group >= 0:
            add(coupling[j].copy(), joint.lower, joint.upper, joint.name)
    for constraint in figure.linear_constraints:
        a = np.zeros(n)
        for j, c in constraint.coefficients.items():
            a += c * coupling[j]
        add(a, constraint.lower, constraint.upper, constraint.label)
    return LinearSystem(
        np.array(rows, dtype=float).reshape(-1, n),
        np.array(rhs, dtype=float),
        np.array(equality, dtype=bool),
        labels,
    )


def project_feasible(figure: Figure, coords: np.ndarray) -> np.ndarray:
    """Coordinates moved into ``figure``'s feasible set (nearest point)."""
    return project(coordinate_system(figure), np.asarray(coords, dtype=float))
