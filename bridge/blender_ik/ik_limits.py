"""A bone's IK limits with the meaning Blender's Standard IK gives them (pure numpy).

Blender's IK (``intern/iksolver``) turns a bone into one segment whose type depends on the
axes left free by *Lock IK X/Y/Z*, and applies the limits to that segment's rotation ``R``
(the rotation part of ``matrix_basis``, in the bone's rest frame):

* all three free -- *spherical*: ``R = S T`` with ``T`` a twist about the bone's Y axis and
  ``S`` the swing (a rotation about an axis in the bone's XZ plane). With the swing
  quaternion ``(w, sx, 0, sz)``, ``w >= 0``, the X limits bound ``sx`` to
  ``[sin(min_x / 2), sin(max_x / 2)]`` and the Z limits bound ``sz`` the same way; with both,
  ``(sx, sz)`` lies in an ellipse per quadrant with semi-axes ``sin(|limit| / 2)`` of that
  quadrant's limits (a limit of zero makes that quadrant a box). The Y limits bound the
  twist angle ``2 atan2(qy, qw)``.
* Y locked -- *swing*: ``R = S`` (Blender drops the pose's twist); the ellipse applies only
  when both X and Z are limited (a single X or Z limit is not enforced by Blender).
* X locked -- *elbow* ``R = Rz(a) Ry(t)``; Z locked -- ``R = Rx(a) Ry(t)``; limits bound the
  angle ``a`` and the twist ``t`` directly.
* one axis free -- *revolute* about it, its limit bounds the angle.

Reach parametrises the swing by a joint group of three revolutes
``S = Rz(b/2) Rx(a) Rz(b/2)`` (a pure swing, no twist: its quaternion is
``(cos(a/2) cos(b/2), sin(a/2), 0, cos(a/2) sin(b/2))``), so ``sx = sin(a/2)`` exactly and
the twist revolute after it is Blender's twist angle. A lone Z limit uses the mirrored group
``Rx(a/2) Rz(b) Rx(a/2)`` (``sz = sin(b/2)``). The ellipse becomes a convex polygon in
``(a, b)``: vertices on the ellipse's image, every edge checked inside it (the polygon is
inscribed, so a pose on it is inside Blender's limits; see :data:`POLYGON_TOLERANCE`).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..blender.channel_rotations import axis_rotation

if TYPE_CHECKING:  # the figure is passed in: this module stays importable on its own
    from ... import solver

#: Largest distance (radians, in ``(a, b)``) of Blender's swing boundary outside the polygon.
POLYGON_TOLERANCE = 5e-4
#: Points on the boundary of the swing region the polygon's vertices are chosen from.
OUTLINE_SAMPLES = 1024
#: Distance (``sin`` units of ``sx``, ``sz``) the polygon's edges keep inside Blender's
#: ellipse: Blender tests its single-precision matrix, whose rounding moves ``(sx, sz)`` by
#: about 1e-7 (a margin in ellipse excess instead was too small on narrow limits, where
#: Blender's IK then clamped a pose on the polygon, and too large on wide ones).
MARGIN = 4e-7
#: Points checked along each polygon edge against Blender's ellipse.
EDGE_SAMPLES = 16
#: Rounds of pulling the corners of failing polygon edges in, and the largest pull tried
#: per round (radians).
GUARD_ROUNDS = 6
GUARD_STEP = 1e-3
#: Blender treats a quadrant limit below this (``sin`` of half the angle) as zero.
FUZZY = 1e-20
#: A polygon refined around a point (:func:`swing_polygon`'s ``focus``): within each radius
#: (radians, in ``(a, b)``) of the point, Blender's boundary is at most that gap (radians)
#: outside the polygon; elsewhere :data:`POLYGON_TOLERANCE`.
FOCUS_TIERS = ((0.25, 2e-5), (0.025, 2e-7))
#: Extra outline samples (per edge) across the widest focus radius.
FOCUS_SAMPLES = 8192

X, Y, Z = 0, 1, 2


@dataclass(frozen=True)
class Limits:
    """A bone's IK settings: ``locked`` / ``limited`` per axis X, Y, Z; radians ``(3,)``."""

    locked: tuple[bool, bool, bool]
    limited: tuple[bool, bool, bool]
    lower: np.ndarray  # (3,) ik_min_x/y/z, radians, each in [-pi, 0]
    upper: np.ndarray  # (3,) ik_max_x/y/z, radians, each in [0, pi]


@dataclass(frozen=True)
class LimitJoints:
    """The revolutes, group and linear rows that pose one bone as Blender's IK segment.

    ``R = prod_k axis_rotation(joint_axes[k], q_k)`` with joint values ``q = coupling @ p``
    for the parameters ``p`` (radians). The solver's coordinates are the parameters.
    """

    kind: str  # SPHERICAL, SWING, ELBOW_X, ELBOW_Z, REVOLUTE_X/Y/Z or FIXED
    joint_axes: tuple[int, ...]
    coupling: np.ndarray  # (n_joints, n_params)
    param_axes: tuple[int, ...]  # the bone axis whose stiffness each parameter takes
    lower: np.ndarray  # (n_params,) radians
    upper: np.ndarray  # (n_params,) radians
    rows: np.ndarray  # (k, n_params): rows @ p <= rhs, the swing polygon
    rhs: np.ndarray  # (k,)
    limits: Limits | None = None  # the bone's limits, where the polygon has rows

    @property
    def grouped(self) -> bool:
        """Whether the joints are driven through a joint group (not one joint per param)."""
        return self.coupling.shape[0] != self.coupling.shape[1]

    def param_joint(self, k: int) -> tuple[int, float]:
        """A joint ``j`` and factor ``f`` with ``p_k = f * q_j`` (to write rows on joints)."""
        column = self.coupling[:, k]
        j = int(np.flatnonzero(column)[0])
        return j, 1.0 / float(column[j])


# ----------------------------------------------------------------- Blender's formulas
def swing_twist(rotation: np.ndarray) -> tuple[float, float, float]:
    """Blender's ``(sx, sz, twist)`` of a rotation ``(3, 3)`` (``SphericalRangeParameters``).

    ``sx``, ``sz``: the swing quaternion's X and Z parts (``w >= 0``), unitless;
    ``twist``: radians in ``(-pi, pi]``, about the bone's Y axis, applied before the swing.
    """
    r = np.asarray(rotation, dtype=float)
    twist = 2.0 * np.arctan2(r[0, 2] - r[2, 0], np.trace(r) + 1.0)
    num = 2.0 * (1.0 + r[1, 1])
    if num < 1e-20:  # the bone turned fully round: Blender's own fallback
        return 0.0, -1.0, float(twist)
    num = 1.0 / np.sqrt(num)
    return float(r[2, 1] * num), float(-r[0, 1] * num), float(twist)


def quadrant_limits(lower: float, upper: float) -> tuple[float, float]:
    """Semi-axes ``(negative side, positive side)`` of one swing component (``sin`` units)."""
    lo, hi = np.clip([lower, upper], -np.pi, np.pi)
    return float(np.sin(-0.5 * lo)), float(np.sin(0.5 * hi))


def ellipse_excess(sx: np.ndarray | float, sz: np.ndarray | float, limits: Limits) -> np.ndarray:
    """How far ``(sx, sz)`` lies outside Blender's X/Z swing ellipse: <= 0 inside.

    ``(sx/a)^2 + (sz/b)^2 - 1`` with the semi-axes ``a``, ``b`` of the point's quadrant, or,
    where Blender falls back to a box (a zero semi-axis), the larger box excess. Arrays of
    any shape (or floats) in, the same shape out.
    """
    xn, xp = quadrant_limits(limits.lower[X], limits.upper[X])
    zn, zp = quadrant_limits(limits.lower[Z], limits.upper[Z])
    sx, sz = np.asarray(sx, dtype=float), np.asarray(sz, dtype=float)
    a, x = np.where(sx < 0.0, xn, xp), np.abs(sx)
    b, z = np.where(sz < 0.0, zn, zp), np.abs(sz)
    box = (np.abs(a) < FUZZY) | (np.abs(b) < FUZZY)
    with np.errstate(divide="ignore", invalid="ignore"):
        ellipse = (x / np.where(box, 1.0, a)) ** 2 + (z / np.where(box, 1.0, b)) ** 2 - 1.0
    return np.where(box, np.maximum(x - a, z - b), ellipse)


def kind_of(locked: tuple[bool, bool, bool]) -> str:
    """Blender's segment type for the free axes (``IK_Solver.cpp``'s ``CreateSegment``)."""
    free = [k for k in range(3) if not locked[k]]
    if len(free) == 3:
        return "SPHERICAL"
    if free == [X, Z]:
        return "SWING"
    if free == [Y, Z]:
        return "ELBOW_Z"
    if free == [X, Y]:
        return "ELBOW_X"
    if len(free) == 1:
        return "REVOLUTE_" + "XYZ"[free[0]]
    return "FIXED"


# ----------------------------------------------------------------- parametrisation
_SWING_X = np.array([[0.0, 0.5], [1.0, 0.0], [0.0, 0.5]])  # Rz(b/2) Rx(a) Rz(b/2)
_SWING_Z = np.array([[0.5, 0.0], [0.0, 1.0], [0.5, 0.0]])  # Rx(a/2) Rz(b) Rx(a/2)


def limit_joints(limits: Limits) -> LimitJoints:
    """The joints that pose a bone exactly as Blender's IK segment for ``limits``."""
    kind = kind_of(limits.locked)
    lo = np.where(limits.limited, np.clip(limits.lower, -np.pi, np.pi), -np.inf)
    hi = np.where(limits.limited, np.clip(limits.upper, -np.pi, np.pi), np.inf)
    none = np.zeros((0, 0))
    if kind == "FIXED":
        return LimitJoints(kind, (), np.zeros((0, 0)), (), np.zeros(0), np.zeros(0), none, none[0])
    if kind.startswith("REVOLUTE") or kind.startswith("ELBOW"):
        axes = {"ELBOW_X": (X, Y), "ELBOW_Z": (Z, Y)}.get(kind, ("XYZ".index(kind[-1]),))
        n = len(axes)
        return LimitJoints(
            kind, axes, np.eye(n), axes, lo[list(axes)], hi[list(axes)],
            np.zeros((0, n)), np.zeros(0),
        )  # fmt: skip
    x_lim, z_lim = limits.limited[X], limits.limited[Z]
    if kind == "SWING" and not (x_lim and z_lim):
        x_lim = z_lim = False  # Blender enforces a lone X or Z limit only with a free Y
    lone_z = z_lim and not x_lim
    swing = _SWING_Z if lone_z else _SWING_X
    axes: tuple[int, ...] = (X, Z, X) if lone_z else (Z, X, Z)
    lower = np.array([lo[X] if x_lim else -np.pi, lo[Z] if z_lim else -np.pi])
    upper = np.array([hi[X] if x_lim else np.pi, hi[Z] if z_lim else np.pi])
    rows, rhs = np.zeros((0, 2)), np.zeros(0)
    if x_lim and z_lim:
        rows, rhs = _cached_polygon(
            float(limits.lower[X]), float(limits.upper[X]),
            float(limits.lower[Z]), float(limits.upper[Z]),
        )  # fmt: skip
    coupling = swing
    param_axes: tuple[int, ...] = (X, Z)
    if kind == "SPHERICAL":
        coupling = np.zeros((4, 3))
        coupling[:3, :2] = swing
        coupling[3, 2] = 1.0
        axes = (*axes, Y)
        param_axes = (X, Z, Y)
        lower, upper = np.append(lower, lo[Y]), np.append(upper, hi[Y])
        rows = np.hstack([rows, np.zeros((len(rows), 1))])
    polygon_limits = limits if len(rows) else None
    return LimitJoints(kind, axes, coupling, param_axes, lower, upper, rows, rhs, polygon_limits)


def rotation_of(plan: LimitJoints, params: np.ndarray) -> np.ndarray:
    """Rotation ``(3, 3)`` of parameters ``(n_params,)`` (radians)."""
    r = np.eye(3)
    for axis, value in zip(plan.joint_axes, plan.coupling @ params, strict=True):
        r = r @ axis_rotation(axis, float(value))
    return r


def params_of(plan: LimitJoints, rotation: np.ndarray) -> np.ndarray:
    """Parameters ``(n_params,)`` whose rotation is ``rotation`` projected onto the segment.

    The spherical segment keeps the rotation, the swing drops its twist (as Blender's does);
    elbows and revolutes keep the bend of the bone's Y axis (:func:`bend_angle`) and the twist.
    """
    r = np.asarray(rotation, dtype=float)
    kind = plan.kind
    if kind == "FIXED":
        return np.zeros(0)
    twist = 2.0 * np.arctan2(r[0, 2] - r[2, 0], np.trace(r) + 1.0)
    if kind in ("SPHERICAL", "SWING"):
        s = r @ axis_rotation(Y, -twist)  # the swing, twist removed
        w = 0.5 * np.sqrt(max(np.trace(s) + 1.0, 0.0))
        sx, sz = swing_quaternion_xz(s, w)
        if plan.joint_axes[0] == X:  # Rx(a/2) Rz(b) Rx(a/2): sz = sin(b/2)
            swing = [2.0 * np.arctan2(sx, w), 2.0 * np.arctan2(sz, np.hypot(w, sx))]
        else:  # Rz(b/2) Rx(a) Rz(b/2): sx = sin(a/2)
            swing = [2.0 * np.arctan2(sx, np.hypot(w, sz)), 2.0 * np.arctan2(sz, w)]
        return np.array(swing + ([twist] if kind == "SPHERICAL" else []))
    values = []
    for axis in plan.joint_axes:
        values.append(twist if axis == Y else bend_angle(r, axis))
    return np.array(values)


def swing_quaternion_xz(swing: np.ndarray, w: float) -> tuple[float, float]:
    """X and Z parts of a pure swing's quaternion ``(w, x, 0, z)`` given ``w`` (>= 0)."""
    if w > 1e-6:
        return (swing[2, 1] - swing[1, 2]) / (4.0 * w), (swing[1, 0] - swing[0, 1]) / (4.0 * w)
    # half a turn: the axis is the bone's Y axis turned to -Y; read it from the matrix
    x = np.sqrt(max(0.5 * (swing[0, 0] + 1.0), 0.0))
    z = np.sqrt(max(0.5 * (swing[2, 2] + 1.0), 0.0))
    return float(x), float(np.copysign(z, swing[0, 2] if x > 1e-6 else 1.0))


def bend_angle(rotation: np.ndarray, axis: int) -> float:
    """Angle (radians) about X or Z that turns the bone's Y axis nearest to ``rotation``'s.

    Exact for ``Rx(a) Ry(t)`` and ``Rz(a) Ry(t)``. (Blender's ``IK_QElbowSegment`` reads
    ``atan2(sin a, cos a cos t)`` from such a pose: the same when the twist is zero.)
    """
    r = rotation
    if axis == X:
        return float(np.arctan2(r[2, 1], r[1, 1]))
    return float(np.arctan2(-r[0, 1], r[1, 1]))


# ----------------------------------------------------------------- the polygon
def _to_swing(params: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(a, b)`` rows ``(n, 2)`` -> swing ``(sx, sz)`` of ``Rz(b/2) Rx(a) Rz(b/2)``."""
    a, b = params[:, 0], params[:, 1]
    return np.sin(0.5 * a), np.cos(0.5 * a) * np.sin(0.5 * b)


def _cosine_spaced(lo: float, hi: float, samples: int) -> np.ndarray:
    """``samples`` values from ``lo`` to ``hi``, denser towards both ends."""
    return lo + (hi - lo) * 0.5 * (1.0 - np.cos(np.linspace(0.0, np.pi, samples)))


def swing_outline(
    limits: Limits, samples: int = OUTLINE_SAMPLES, focus: np.ndarray | None = None
) -> np.ndarray:
    """Points ``(n, 2)`` of ``(a, b)`` on the boundary of Blender's swing region, in order.

    In ``Rz(b/2) Rx(a) Rz(b/2)`` the region is ``min_x <= a <= max_x`` and, with
    ``sx = sin(a/2)`` and the quadrant's semi-axes, ``|sin(b/2)| <= b_q sqrt(1 - (sx/a_q)^2)
    / cos(a/2)``: the lower edge from ``min_x`` to ``max_x``, then the upper edge back
    (counter-clockwise).
    Samples are denser towards the ends of the ``a`` range, where the edge bends most, and,
    with a ``focus`` point ``(a, b)``, :data:`FOCUS_SAMPLES` more within the widest
    :data:`FOCUS_TIERS` radius of its ``a``.
    """
    xn, xp = quadrant_limits(limits.lower[X], limits.upper[X])
    zn, zp = quadrant_limits(limits.lower[Z], limits.upper[Z])
    lo, hi = -2.0 * np.arcsin(xn), 2.0 * np.arcsin(xp)
    a = _cosine_spaced(lo, hi, samples)
    if focus is not None:
        radius = max(r for r, _gap in FOCUS_TIERS)
        near = np.clip([focus[0] - radius, focus[0] + radius], lo, hi)
        a = np.unique(np.concatenate([a, _cosine_spaced(near[0], near[1], FOCUS_SAMPLES)]))
    sx = np.sin(0.5 * a)
    semi = np.where(a >= 0.0, xp, xn)
    ratio = np.divide(sx, semi, out=np.zeros_like(sx), where=np.abs(semi) > FUZZY)
    width = np.sqrt(np.clip(1.0 - ratio**2, 0.0, 1.0)) / np.maximum(np.cos(0.5 * a), 1e-12)
    top = 2.0 * np.arcsin(np.clip(zp * width, 0.0, 1.0))
    bottom = -2.0 * np.arcsin(np.clip(zn * width, 0.0, 1.0))
    return np.concatenate([np.stack([a, bottom], 1), np.stack([a, top], 1)[::-1]])


def _simplify(points: np.ndarray, tolerance: float | np.ndarray) -> list[int]:
    """Indices of a closed outline's vertices that keep every point within its tolerance.

    ``tolerance``: radians, one for all points or ``(n,)``, one per point.
    """
    allowed = np.broadcast_to(np.asarray(tolerance, dtype=float), (len(points),))
    n = len(points)
    keep = {0, n // 2 - 1, n // 2, n - 1}  # the ends of the lower and upper edges
    stack = sorted(keep)
    arcs = list(zip(stack, [*stack[1:], stack[0] + n], strict=True))
    while arcs:
        i, j = arcs.pop()
        inner = np.arange(i + 1, j) % n
        if not len(inner):
            continue
        p, q = points[i % n], points[j % n]
        d = q - p
        length = float(np.hypot(*d))
        rel = points[inner] - p
        if length < 1e-15:
            dist = np.hypot(rel[:, 0], rel[:, 1])
        else:
            dist = np.abs(rel[:, 0] * d[1] - rel[:, 1] * d[0]) / length
        excess = dist - allowed[inner]
        k = int(np.argmax(excess))
        if excess[k] > 0.0:
            m = i + 1 + k
            keep.add(m % n)
            arcs += [(i, m), (m, j)]
    return sorted(keep)


@functools.lru_cache(maxsize=256)
def _cached_polygon(
    min_x: float, max_x: float, min_z: float, max_z: float
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`swing_polygon` of X and Z limits (radians), kept: a rig build reads it often."""
    lower, upper = np.array([min_x, 0.0, min_z]), np.array([max_x, 0.0, max_z])
    rows, rhs = swing_polygon(Limits((False, False, False), (True, True, True), lower, upper))
    rows.setflags(write=False)
    rhs.setflags(write=False)
    return rows, rhs


def _passing(points: np.ndarray, limits: Limits) -> np.ndarray:
    """Which ``(a, b)`` points ``(..., 2)`` are inside the ellipse by :data:`MARGIN`: bools
    ``(...)``.

    The excess ``(x/a)^2 + (z/b)^2 - 1`` grows by at most ``2 d / min(a, b)`` when ``(x, z)``
    moves ``d`` outwards, so an excess of ``-2 MARGIN / min(a, b)`` keeps the point that far
    inside. Points on a zero limit (Blender's box: ``sz == 0`` for ``max_z == 0``) are
    exactly on it, which the box test accepts, so they are held to ``<= 0``.
    """
    sx, sz = _to_swing(points.reshape(-1, 2))
    excess = ellipse_excess(sx, sz, limits)
    xn, xp = quadrant_limits(limits.lower[X], limits.upper[X])
    zn, zp = quadrant_limits(limits.lower[Z], limits.upper[Z])
    semi = np.minimum(np.where(sx < 0.0, xn, xp), np.where(sz < 0.0, zn, zp))
    margin = 2.0 * MARGIN / np.maximum(semi, FUZZY)
    on_zero_limit = (np.abs(sx) < FUZZY) | (np.abs(sz) < FUZZY)
    return np.where(on_zero_limit, excess <= 0.0, excess <= -margin).reshape(points.shape[:-1])


def _edge_points(corners: np.ndarray) -> np.ndarray:
    """:data:`EDGE_SAMPLES` + 1 points ``(k, s, 2)`` along each edge ``corners[i]`` ->
    ``corners[i + 1]`` of a closed polygon."""
    edges = np.roll(corners, -1, axis=0) - corners
    t = np.linspace(0.0, 1.0, EDGE_SAMPLES + 1)
    return corners[:, None, :] + t[None, :, None] * edges[:, None, :]


def _pulled_in(corners: np.ndarray, limits: Limits) -> np.ndarray:
    """``corners`` ``(k, 2)`` (on the region's boundary) each moved towards the rest pose by
    the least distance (bisected to 1e-10 rad, per edge, up to :data:`GUARD_ROUNDS` rounds)
    whose edges' :data:`EDGE_SAMPLES` points pass :func:`_passing`; a polygon still failing
    after that is scaled towards the rest pose as a whole."""
    radius = np.hypot(corners[:, 0], corners[:, 1])
    toward = np.divide(corners, radius[:, None], out=np.zeros_like(corners),
                       where=radius[:, None] > 1e-12)  # fmt: skip
    pull = np.zeros(len(corners))
    nxt = np.roll(np.arange(len(corners)), -1)
    for _round in range(GUARD_ROUNDS):
        moved = corners - pull[:, None] * toward
        failing = np.nonzero(~np.all(_passing(_edge_points(moved), limits), axis=1))[0]
        if not len(failing):
            return moved
        ends = np.stack([failing, nxt[failing]], axis=1)  # both corners of each failing edge
        low, high = np.zeros(len(failing)), np.full(len(failing), GUARD_STEP)
        t = np.linspace(0.0, 1.0, EDGE_SAMPLES + 1)[None, :, None]
        while float(np.max(high - low)) > 1e-10:
            mid = 0.5 * (low + high)
            start = moved[ends[:, 0]] - mid[:, None] * toward[ends[:, 0]]
            stop = moved[ends[:, 1]] - mid[:, None] * toward[ends[:, 1]]
            points = start[:, None, :] + t * (stop - start)[:, None, :]
            ok = np.all(_passing(points, limits), axis=1)
            low, high = np.where(ok, low, mid), np.where(ok, mid, high)
        extra = np.zeros(len(corners))
        np.maximum.at(extra, ends[:, 0], high)
        np.maximum.at(extra, ends[:, 1], high)
        pull = np.minimum(pull + extra, radius)
    moved = corners - pull[:, None] * toward
    points = _edge_points(moved)
    inside, outside = (1.0, 1.0) if bool(np.all(_passing(points, limits))) else (0.0, 1.0)
    while outside - inside > 1e-7:  # last resort: the largest scale whose edges pass
        mid = 0.5 * (inside + outside)
        if bool(np.all(_passing(mid * points, limits))):
            inside = mid
        else:
            outside = mid
    return inside * moved


def swing_polygon(
    limits: Limits, tolerance: float = POLYGON_TOLERANCE, focus: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Rows ``(k, 2)`` and ``rhs`` ``(k,)``: a convex polygon in ``(a, b)`` inside the region.

    ``rows @ (a, b) <= rhs``. Vertices are points of :func:`swing_outline`, chosen so that no
    outline point lies more than ``tolerance`` radians outside the polygon (with a ``focus``
    point ``(a, b)``, the smaller gaps of :data:`FOCUS_TIERS` near it); the region is
    convex, so the polygon is inscribed. As a guard, each vertex is moved towards the rest
    pose by the least distance that lets the :data:`EDGE_SAMPLES` points of its edges pass
    Blender's own ellipse test by :data:`MARGIN` (:func:`_pulled_in`): per vertex, so a vertex
    far from the rest pose is not moved by a near one's need, and a vertex on a zero limit
    stays on it.
    A region of zero area (both X or both Z limits zero) needs no rows: the bounds on ``a``
    and ``b`` are exact there.
    """
    outline = swing_outline(limits, focus=focus)
    allowed = np.full(len(outline), float(tolerance))
    if focus is not None:
        distance = np.hypot(outline[:, 0] - focus[0], outline[:, 1] - focus[1])
        for radius, gap in FOCUS_TIERS:
            allowed[distance <= radius] = np.minimum(allowed[distance <= radius], gap)
    corners = outline[_simplify(outline, allowed)]
    edges = np.roll(corners, -1, axis=0) - corners
    area = 0.5 * float(np.sum(corners[:, 0] * edges[:, 1] - corners[:, 1] * edges[:, 0]))
    if area < 1e-9:
        return np.zeros((0, 2)), np.zeros(0)
    lengths = np.hypot(edges[:, 0], edges[:, 1])
    corners = _pulled_in(corners[lengths > 1e-12], limits)
    edges = np.roll(corners, -1, axis=0) - corners
    lengths = np.hypot(edges[:, 0], edges[:, 1])
    corners, edges = corners[lengths > 1e-12], edges[lengths > 1e-12]
    normals = np.stack([edges[:, 1], -edges[:, 0]], axis=1)
    normals /= np.hypot(normals[:, 0], normals[:, 1])[:, None]
    return normals, np.einsum("ij,ij->i", normals, corners)


# ----------------------------------------------------------------- into a figure
def add_to_figure(
    fig: solver.Figure, segment: str, plan: LimitJoints, stiffness: np.ndarray
) -> tuple[list[tuple[int, str]], list[str]]:
    """Add ``plan``'s revolutes (and group, polygon rows) to ``segment`` of ``fig``.

    Args:
        fig: the figure; ``segment`` already exists.
        segment: the bone's segment name.
        plan: from :func:`limit_joints`.
        stiffness: (3,) rigidity per bone axis X, Y, Z in [0, 1].
    Returns:
        ``[(axis, joint name)]`` in product order and the coordinate names in parameter
        order (group parameters, or the joints themselves).
    """
    letters = "XYZ"
    grouped = plan.grouped
    joints = []
    for n, axis in enumerate(plan.joint_axes):
        lower, upper, rigidity = -np.inf, np.inf, 0.0
        if not grouped:
            lower, upper, rigidity = plan.lower[n], plan.upper[n], stiffness[axis]
        joint = fig.add_revolute(
            segment, np.eye(3)[axis], lower, upper, rigidity, name=f"{segment}:ik{n}{letters[axis]}"
        )
        joints.append((axis, joint))
    names = [joint for _axis, joint in joints]
    coordinates = names
    if grouped:
        coordinates = list(
            fig.add_group(
                f"{segment}:swing", names, plan.coupling, plan.lower.tolist(), plan.upper.tolist(),
                [float(stiffness[axis]) for axis in plan.param_axes],
            )
        )  # fmt: skip
    add_polygon_rows(fig, segment, plan, names, plan.rows, plan.rhs)
    return joints, coordinates


def polygon_label(segment: str) -> str:
    """The label of ``segment``'s swing-polygon rows in the figure."""
    return f"{segment} IK limit ellipse"


def add_polygon_rows(
    fig: solver.Figure,
    segment: str,
    plan: LimitJoints,
    joints: list[str],
    rows: np.ndarray,
    rhs: np.ndarray,
) -> None:
    """Add ``rows @ p <= rhs`` on ``plan``'s parameters ``p`` as rows on its ``joints``.

    Args:
        fig: the figure holding the joints.
        segment: the bone's segment name (for the label, :func:`polygon_label`).
        plan: the bone's plan, :func:`limit_joints`.
        joints: its joint names in product order (``add_to_figure``'s joints).
        rows: (k, n_params) row coefficients; rhs: (k,) radians.
    """
    for row, bound in zip(rows, rhs, strict=True):
        coeffs: dict[str, float] = {}
        for k, c in enumerate(row):
            if c != 0.0:
                j, factor = plan.param_joint(k)
                coeffs[joints[j]] = coeffs.get(joints[j], 0.0) + c * factor
        fig.add_linear_constraint(coeffs, upper=float(bound), label=polygon_label(segment))
