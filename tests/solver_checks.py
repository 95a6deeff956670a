"""Shared checks for the solver tests: random figures, finite differences, KT.

Not a test module itself; the ``test_*.py`` files import it as
``tests.solver_checks`` (the repository root is on ``sys.path``).
"""

from dataclasses import dataclass, field

import numpy as np
from hypothesis import strategies as st

from solver import (
    AimGoal,
    Constraint,
    Disjunction,
    EndEffector,
    Figure,
    HalfSpaceGoal,
    LineGoal,
    OrientationGoal,
    PlaneGoal,
    PositionGoal,
    PositionOrientationGoal,
    Solver,
)

GOAL_TYPES = (
    "position",
    "orientation",
    "position_orientation",
    "aim",
    "line",
    "plane",
    "half_space",
    "disjunction",
)
JOINT_KINDS = ("revolute", "prismatic", "grouped")


class Recorder:
    """Callback that stores every iterate ``(coords, fun)`` of a solve."""

    def __init__(self) -> None:
        self.xs: list[np.ndarray] = []
        self.fs: list[float] = []

    def __call__(self, x: np.ndarray, fun: float) -> None:
        self.xs.append(np.array(x, dtype=float, copy=True))
        self.fs.append(float(fun))


# ------------------------------------------------------------------ figures
def planar_arm(limits: tuple[float, float] = (-np.inf, np.inf)) -> Figure:
    """Two unit links rotating about z; joint values ``a`` (with ``limits``) and ``b``."""
    fig = Figure()
    fig.add_segment("upper")
    fig.add_revolute("upper", (0, 0, 1), *limits, name="a")
    fig.add_segment("lower", parent="upper", translation=(1.0, 0.0, 0.0))
    fig.add_revolute("lower", (0, 0, 1), name="b")
    return fig


# ------------------------------------------------------------------ geometry
def spatial_arm(limit: float = 3.0, wrist: bool = True) -> Figure:
    """Ball shoulder ``upper``, elbow hinge ``elbow`` about z, unit links, tip segment ``hand``.

    Coordinates: shoulder x, y, z, elbow, then (with ``wrist``) a ball wrist on
    ``hand``; every limit is ``(-limit, limit)`` radians.
    """
    fig = Figure()
    fig.add_segment("upper")
    fig.add_ball("upper", -limit, limit)
    fig.add_segment("lower", parent="upper", translation=(1.0, 0.0, 0.0))
    fig.add_revolute("lower", "z", -limit, limit, name="elbow")
    fig.add_segment("hand", parent="lower", translation=(1.0, 0.0, 0.0))
    if wrist:
        fig.add_ball("hand", -limit, limit)
    return fig


def random_rotation(rng: np.random.Generator) -> np.ndarray:
    """A uniformly random proper rotation, (3, 3)."""
    q, r = np.linalg.qr(rng.normal(size=(3, 3)))
    q = q @ np.diag(np.sign(np.diag(r)))
    if np.linalg.det(q) < 0:
        q[:, 0] = -q[:, 0]
    return q


def random_unit(rng: np.random.Generator) -> np.ndarray:
    """A random unit vector, (3,)."""
    v = rng.normal(size=3)
    return v / np.linalg.norm(v)


def orthonormal_pair(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Two random orthonormal (3,) vectors."""
    r = random_rotation(rng)
    return r[:, 0], r[:, 1]


def to_local(transform: np.ndarray, point: np.ndarray) -> np.ndarray:
    """World point (3,) into the frame of a (4, 4) world transform."""
    return transform[:3, :3].T @ (point - transform[:3, 3])


def dir_to_local(transform: np.ndarray, direction: np.ndarray) -> np.ndarray:
    """World direction (3,) into the frame of a (4, 4) world transform."""
    return transform[:3, :3].T @ direction


# ------------------------------------------------------------- random figures
@dataclass
class FigureCase:
    """A random figure plus what the tests need to know about it."""

    figure: Figure
    parents: dict[str, str | None]
    kinds: dict[str, str] = field(default_factory=dict)  # joint -> revolute/prismatic
    grouped: list[str] = field(default_factory=list)  # joints driven by a group

    def ancestors(self, segment: str) -> list[str]:
        """``segment`` and its ancestors, leaf first."""
        out = []
        s: str | None = segment
        while s is not None:
            out.append(s)
            s = self.parents[s]
        return out


@st.composite
def figure_cases(
    draw: st.DrawFn,
    chain: bool = False,
    max_segments: int = 5,
    limits: bool = False,
    groups: bool = True,
    require_kind: str | None = None,
    hinges: bool = False,
) -> FigureCase:
    """A random tree (or chain) of segments with revolute/prismatic joints.

    Structure (segment count, parents, joint kinds, grouping) comes from
    hypothesis; continuous values from a numpy generator seeded by it.

    Args:
        chain: every segment's parent is the previous one.
        max_segments: at most this many segments.
        limits: finite joint limits around zero (otherwise unlimited).
        groups: allow a joint group.
        require_kind: make sure at least one joint of this kind exists
            (``"revolute"``, ``"prismatic"`` or ``"grouped"``).
        hinges: some non-root segments do not inherit rotation.
    """
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n = draw(st.integers(1, max_segments))
    fig = Figure()
    parents: dict[str, str | None] = {}
    case = FigureCase(fig, parents)
    for i in range(n):
        name = f"s{i}"
        parent = None if i == 0 else (f"s{i - 1}" if chain else f"s{draw(st.integers(0, i - 1))}")
        translation = rng.normal(0.0, 0.4, 3) if parent else rng.normal(0.0, 0.2, 3)
        inherit = parent is None or not hinges or draw(st.booleans())
        fig.add_segment(
            name,
            parent=parent,
            translation=translation,
            rotation=random_rotation(rng),
            inherit_rotation=inherit,
        )
        parents[name] = parent
        n_joints = draw(st.integers(1 if i == 0 else 0, 3))
        for k in range(n_joints):
            kind = draw(st.sampled_from(("revolute", "revolute", "prismatic")))
            lo, hi = (
                (-rng.uniform(0.3, 1.5), rng.uniform(0.3, 1.5)) if limits else (-np.inf, np.inf)
            )
            add = fig.add_revolute if kind == "revolute" else fig.add_prismatic
            joint = add(name, random_unit(rng), lo, hi, name=f"{name}.j{k}")
            case.kinds[joint] = kind
    joints = list(case.kinds)
    for kind in ("revolute", "prismatic"):
        if require_kind == kind and kind not in case.kinds.values():
            joint = f"s{n - 1}.extra"
            add = fig.add_revolute if kind == "revolute" else fig.add_prismatic
            lo, hi = (-1.0, 1.0) if limits else (-np.inf, np.inf)
            add(f"s{n - 1}", random_unit(rng), lo, hi, name=joint)
            case.kinds[joint] = kind
            joints.append(joint)
    want_group = groups and (require_kind == "grouped" or draw(st.booleans()))
    if want_group:
        # Keep one free joint of the required kind out of the group.
        reserved = next((j for j in joints if case.kinds[j] == require_kind), None)
        candidates = [j for j in joints if j != reserved]
        while len(candidates) < 2:
            joint = f"s{n - 1}.pair{len(candidates)}"
            lo, hi = (-1.0, 1.0) if limits else (-np.inf, np.inf)
            fig.add_revolute(f"s{n - 1}", random_unit(rng), lo, hi, name=joint)
            case.kinds[joint] = "revolute"
            candidates.append(joint)
        size = draw(st.integers(2, len(candidates)))
        members = list(rng.choice(candidates, size=size, replace=False))
        p = draw(st.integers(1, min(3, size)))
        matrix = rng.normal(0.0, 1.0, (size, p))
        bound = rng.uniform(0.3, 1.0, p) if limits else np.inf
        fig.add_group("g", members, matrix, -bound, bound)
        case.grouped = members
    return case


def random_goal(
    rng: np.random.Generator,
    kind: str,
    case: FigureCase,
    effector: EndEffector,
    coords: np.ndarray,
    carrier: str | None,
) -> object:
    """A goal of ``kind`` placed so that ``coords`` is away from any kink.

    Half-space planes sit at least 0.05 from the effector point, aim points at
    least 0.3 away; ``carrier`` (a segment or None) expresses the goal in that
    segment's frame at ``coords``.
    """
    frames = case.figure.forward(coords)
    eff = frames[effector.segment]
    r = eff[:3, :3] @ np.asarray(effector.point, dtype=float) + eff[:3, 3]
    carried = frames[carrier] if carrier else np.eye(4)

    def point(p: np.ndarray) -> np.ndarray:
        return to_local(carried, p)

    def direction(d: np.ndarray) -> np.ndarray:
        return dir_to_local(carried, d)

    if kind == "position":
        return PositionGoal(point(r + rng.normal(0.0, 0.5, 3)), carrier=carrier)
    if kind == "orientation":
        x, y = orthonormal_pair(rng)
        which = rng.integers(3)  # both, x only, y only
        return OrientationGoal(
            x=None if which == 2 else direction(x),
            y=None if which == 1 else direction(y),
            degrees=(rng.uniform(0.5, 20.0), rng.uniform(0.5, 20.0)),
            carrier=carrier,
        )
    if kind == "position_orientation":
        x, y = orthonormal_pair(rng)
        return PositionOrientationGoal(
            point(r + rng.normal(0.0, 0.5, 3)),
            x=direction(x),
            y=None if rng.random() < 0.3 else direction(y),
            position_weight=rng.uniform(0.1, 0.9),
            degrees=rng.uniform(0.5, 20.0),
            carrier=carrier,
        )
    if kind == "aim":
        target = r + random_unit(rng) * rng.uniform(0.3, 2.0)
        return AimGoal(point(target), degrees=rng.uniform(0.5, 20.0), carrier=carrier)
    if kind == "line":
        return LineGoal(
            point(r + rng.normal(0.0, 0.5, 3)), direction(random_unit(rng)), carrier=carrier
        )
    if kind == "plane":
        return PlaneGoal(
            point(r + rng.normal(0.0, 0.5, 3)), direction(random_unit(rng)), carrier=carrier
        )
    if kind == "half_space":
        normal = random_unit(rng)
        offset = rng.choice([-1.0, 1.0]) * rng.uniform(0.05, 0.5)
        return HalfSpaceGoal(point(r + offset * normal), direction(normal), carrier=carrier)
    if kind == "disjunction":
        members = []
        for _ in range(int(rng.integers(2, 4))):
            normal = random_unit(rng)
            offset = rng.uniform(0.05, 0.5)  # every member violated, so min is smooth
            members.append(
                HalfSpaceGoal(point(r + offset * normal), direction(normal), carrier=carrier)
            )
        other = ("position", "orientation", "aim")[int(rng.integers(3))]
        members.append(random_goal(rng, other, case, effector, coords, carrier))
        return Disjunction(members)
    raise ValueError(kind)


def random_effector(rng: np.random.Generator, segment: str) -> EndEffector:
    """An end-effector on ``segment`` with a random point and orthonormal x, y."""
    x, y = orthonormal_pair(rng)
    return EndEffector(segment, point=rng.normal(0.0, 0.3, 3), x=x, y=y)


# --------------------------------------------------------- finite differences
def central_difference(f, y: np.ndarray, h: float = 1e-6) -> np.ndarray:
    """Central-difference gradient of scalar ``f`` at ``y`` (n,)."""
    g = np.zeros_like(y)
    for i in range(y.size):
        step = h * max(1.0, abs(y[i]))
        e = np.zeros_like(y)
        e[i] = step
        g[i] = (f(y + e) - f(y - e)) / (2.0 * step)
    return g


def gradient_error(problem, y: np.ndarray) -> tuple[float, float]:
    """(error, allowed) between ``value_and_gradient`` and central differences.

    ``allowed`` is a relative tolerance of 1e-6 on the gradient's size plus
    the round-off of the difference quotient.
    """
    f, g = problem.value_and_gradient(y)
    assert np.isclose(f, problem.value(y), rtol=1e-12, atol=1e-14)
    fd = central_difference(problem.value, y)
    scale = max(np.max(np.abs(g), initial=0.0), np.max(np.abs(fd), initial=0.0))
    allowed = 1e-6 * scale + 1e-8 * (1.0 + abs(f))
    return float(np.max(np.abs(g - fd), initial=0.0)), allowed


# ------------------------------------------------------- feasibility and KT
def linear_system(fig: Figure) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """All limits of ``fig`` as ``A c <= b`` and ``E c = e`` over coordinates c.

    Rows: coordinate bounds, limits of grouped joints (through the coupling
    matrix) and the figure's linear constraints. Rows are unit length.
    """
    n = len(fig.coordinate_names)
    coupling = fig.coupling  # (n_joints, n_coords)
    rows, rhs, eq_rows, eq_rhs = [], [], [], []

    def add(a: np.ndarray, lo: float, hi: float) -> None:
        norm = np.linalg.norm(a)
        if norm == 0.0:
            return
        a, lo, hi = a / norm, lo / norm, hi / norm
        if lo == hi:
            eq_rows.append(a)
            eq_rhs.append(lo)
            return
        if np.isfinite(hi):
            rows.append(a)
            rhs.append(hi)
        if np.isfinite(lo):
            rows.append(-a)
            rhs.append(-lo)

    lower, upper = fig.coordinate_bounds()
    for i in range(n):
        add(np.eye(n)[i], lower[i], upper[i])
    for j, joint in enumerate(fig.joints):
        if joint.group >= 0:
            add(coupling[j].copy(), joint.lower, joint.upper)
    for lc in fig.linear_constraints:
        a = np.zeros(fig.coupling.shape[0])
        for j, c in lc.coefficients.items():
            a[j] = c
        add(a @ coupling, lc.lower, lc.upper)
    shape = (0, n)
    return (
        np.array(rows).reshape(-1, n) if rows else np.zeros(shape),
        np.array(rhs),
        np.array(eq_rows).reshape(-1, n) if eq_rows else np.zeros(shape),
        np.array(eq_rhs),
    )


def max_violation(fig: Figure, coords: np.ndarray, system: tuple | None = None) -> float:
    """Largest violation (>= 0) of any limit or linear constraint at ``coords``.

    ``system`` is ``linear_system(fig)`` if already computed.
    """
    a, b, e, ev = system if system is not None else linear_system(fig)
    worst = 0.0
    if a.size:
        worst = max(worst, float(np.max(a @ coords - b)))
    if e.size:
        worst = max(worst, float(np.max(np.abs(e @ coords - ev))))
    return worst


def coordinate_gradient(problem, coords: np.ndarray) -> tuple[float, np.ndarray]:
    """Objective and gradient with respect to coordinates, via the chain rule.

    ``from_coordinates`` is affine, so its Jacobian columns are differences.
    """
    y0 = problem.from_coordinates(coords)
    jac = np.stack([problem.from_coordinates(coords + e) - y0 for e in np.eye(coords.size)], axis=1)
    f, g = problem.value_and_gradient(y0)
    return f, jac.T @ g


def kt_residual(fig: Figure, problem, coords: np.ndarray, active_tol: float = 1e-7):
    """Kuhn-Tucker check at ``coords`` (Appendix, Step 2).

    Solves ``g = A_q alpha`` in the least-squares sense over the active
    constraints (equalities and inequalities within ``active_tol``).

    Returns:
        (projected gradient norm, most positive inequality multiplier alpha_j,
        gradient norm); at a KT point the first is ~0 and the second <= 0.
    """
    _, g = coordinate_gradient(problem, coords)
    a, b, e, _ = linear_system(fig)
    active = [row for row, bound in zip(a, b, strict=True) if row @ coords >= bound - active_tol]
    cols = list(e) + active
    if not cols:
        return float(np.linalg.norm(g)), 0.0, float(np.linalg.norm(g))
    aq = np.array(cols).T  # (n, q)
    alpha, *_ = np.linalg.lstsq(aq, g, rcond=None)
    residual = g - aq @ alpha
    # g = -sum(lambda_j a_j) with lambda_j >= 0 for a_j . c <= b_j, so alpha_j <= 0;
    # alpha_j > 0 would mean leaving constraint j inwards decreases the objective.
    worst = float(np.max(alpha[len(e) :], initial=0.0)) if active else 0.0
    return float(np.linalg.norm(residual)), worst, float(np.linalg.norm(g))


def problem_at(fig: Figure, constraints: list[Constraint], coords: np.ndarray):
    """The assembled problem with every non-variable coordinate held at ``coords``.

    A zero-iteration solve from ``coords`` sets where the joints outside all
    chains stay, so ``value(from_coordinates(coords))`` is the objective at
    exactly ``coords`` (``coords`` must be feasible).
    """
    solver = Solver(fig, constraints, max_iterations=0)
    solver.solve(initial=coords)
    return solver.problem
