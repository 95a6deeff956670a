"""The batched forward pass and its Jacobian columns against a plain reference.

The reference walks the tree segment by segment, ``T_s = T_parent Rest_s M_1(q_1)
... M_k(q_k)`` with each motion built by the matrix exponential's series, so it
shares no code with :class:`solver.model.kinematics.Kinematics`. Figures mix revolute and
prismatic joints, several joints per segment, joint-less segments between jointed
ones, branches, joints added to a segment after its children (so joint order is
not the tree's order), and segments that do not inherit rotation (their rest rotation
is world-relative, their origin carried by the parent).
"""

import numpy as np
import pytest

from solver import Figure
from solver.model.kinematics import Kinematics, is_identity
from tests.solver_checks import central_difference, random_rotation, random_unit


def _expm(k: np.ndarray) -> np.ndarray:
    out, term = np.eye(3), np.eye(3)
    for n in range(1, 40):
        term = term @ k / n
        out = out + term
    return out


def _motion(joint, q: float) -> np.ndarray:
    m = np.eye(4)
    u = joint.axis
    if joint.kind == 0:  # revolute
        k = np.array([[0, -u[2], u[1]], [u[2], 0, -u[0]], [-u[1], u[0], 0]])
        m[:3, :3] = _expm(q * k)
    else:
        m[:3, 3] = q * u
    return m


def reference(fig: Figure, q: np.ndarray):
    """Segment frames (n_s, 4, 4), and each joint's world axis and pivot."""
    frames = {}
    axes, pivots = np.zeros((len(fig.joints), 3)), np.zeros((len(fig.joints), 3))
    for s, seg in enumerate(fig.segments):
        rest = np.eye(4)
        rest[:3, :3], rest[:3, 3] = seg.rotation, seg.translation
        t = (frames[seg.parent] if seg.parent >= 0 else np.eye(4)) @ rest
        if seg.parent >= 0 and not seg.inherit_rotation:
            t[:3, :3] = seg.rotation  # world-relative rest rotation, origin as above
        for j in seg.joints:
            axes[j] = t[:3, :3] @ fig.joints[j].axis
            pivots[j] = t[:3, 3]
            t = t @ _motion(fig.joints[j], q[j])
        frames[s] = t
    return np.array([frames[s] for s in range(len(fig.segments))]), axes, pivots


def mixed_tree(seed: int, hinge_share: float = 0.0) -> Figure:
    """A random 9-segment tree; ``hinge_share`` of the segments do not inherit rotation."""
    rng = np.random.default_rng(seed)
    fig = Figure()
    names: list[str] = []
    for i in range(9):
        parent = None if not names else names[int(rng.integers(len(names)))]
        name = f"s{i}"
        # With a share, s3 is always one (its parent may have prismatic joints).
        hinge = parent is not None and (rng.random() < hinge_share or (hinge_share and i == 3))
        inherit = not hinge
        fig.add_segment(
            name, parent, rng.normal(size=3), random_rotation(rng), inherit_rotation=inherit
        )
        names.append(name)
        if i % 4 != 2:  # some segments stay joint-less
            for k in range(int(rng.integers(1, 3))):
                add = fig.add_revolute if rng.random() < 0.7 else fig.add_prismatic
                add(name, random_unit(rng), name=f"{name}.{k}")
    fig.add_revolute("s0", random_unit(rng), name="late")  # added after s0's children
    return fig


@pytest.mark.parametrize("hinge_share", [0.0, 0.4])
@pytest.mark.parametrize("seed", range(6))
def test_forward_pass_matches_the_segment_by_segment_reference(
    seed: int, hinge_share: float
) -> None:
    fig = mixed_tree(seed, hinge_share)
    q = np.random.default_rng(100 + seed).uniform(-2, 2, len(fig.joints))
    frames = fig.kinematics.forward(q)
    ref_frames, ref_axes, ref_pivots = reference(fig, q)
    assert np.allclose(frames.rotations, ref_frames[:, :3, :3], atol=1e-12)
    assert np.allclose(frames.origins, ref_frames[:, :3, 3], atol=1e-12)
    assert np.allclose(frames.axes, ref_axes, atol=1e-12)
    revolute = fig.kinematics.revolute
    assert np.allclose(frames.pivots[revolute], ref_pivots[revolute], atol=1e-12)
    moments = np.cross(ref_pivots, ref_axes)  # p x u
    assert np.allclose(frames.moving[revolute], moments[revolute], atol=1e-12)
    assert np.allclose(frames.turning[revolute], ref_axes[revolute], atol=1e-12)
    assert np.allclose(frames.turning[~revolute], 0.0)
    assert np.allclose(frames.moving[~revolute], ref_axes[~revolute], atol=1e-12)


@pytest.mark.parametrize("identity", [False, True])
@pytest.mark.parametrize("hinge_share", [0.0, 0.4])
@pytest.mark.parametrize("seed", range(6))
def test_columns_match_central_differences(seed: int, hinge_share: float, identity: bool) -> None:
    """d(point)/dy and d(direction)/dy of a point and two directions on every segment, all
    in one batch, through a random coupling of every joint to as many variables, or the
    identity (each variable one joint: the product with it is skipped)."""
    fig = mixed_tree(seed, hinge_share)
    rng = np.random.default_rng(200 + seed)
    q = rng.uniform(-2, 2, len(fig.joints))
    coupling = rng.normal(size=(len(q), len(q)))
    if identity:
        coupling = np.eye(len(q))
    n_s = len(fig.segments)
    local = np.vstack((rng.normal(size=(n_s, 3)), rng.normal(size=(2 * n_s, 3))))
    segments = np.tile(np.arange(n_s), 3)  # points, then two directions, per segment
    points = np.arange(3 * n_s) < n_s
    kin = fig.kinematics

    def world(y: np.ndarray) -> np.ndarray:
        f = kin.forward(q + coupling @ y)
        out = np.einsum("vab,vb->va", f.rotations[segments], local)
        out[points] += f.origins[segments[points]]
        return out

    carried = kin.carried(segments, points, np.arange(len(q)), coupling)
    assert carried.identity == identity
    y = np.zeros(len(q))
    cols = Kinematics.columns(kin.forward(q), world(y), carried)
    numeric = np.array(
        [central_difference(lambda yy, i=i: world(yy).reshape(-1)[i], y) for i in range(9 * n_s)]
    )
    assert np.allclose(cols.reshape(9 * n_s, -1), numeric, atol=1e-6)


@pytest.mark.parametrize("hinge_share", [0.0, 0.5])
def test_set_rest_is_read_by_the_next_pass(hinge_share: float) -> None:
    fig = mixed_tree(3, hinge_share)
    q = np.zeros(len(fig.joints))
    fig.kinematics.forward(q)
    fig.set_rest("s1", translation=(0.0, 5.0, 0.0), rpy=(0.2, 0.0, 0.0))  # jointed
    fig.set_rest("s2", translation=(1.0, 0.0, 2.0), rpy=(0.0, 0.3, 0.0))  # joint-less
    assert not fig.segments[2].joints
    frames = fig.kinematics.forward(q)
    expected = reference(fig, q)[0]
    assert np.allclose(frames.origins, expected[:, :3, 3], atol=1e-12)
    assert np.allclose(frames.rotations, expected[:, :3, :3], atol=1e-12)


@pytest.mark.parametrize("hinge_share", [0.0, 0.5])
def test_only_the_changed_rests_are_re_read_and_every_one_is(hinge_share: float) -> None:
    """Passes between rounds of set_rest on random subsets of the segments (with and
    without joints, hinges among them, rotation or translation alone): each pass equals
    the reference of the figure as it now is."""
    fig = mixed_tree(5, hinge_share)
    rng = np.random.default_rng(8)
    names = fig.segment_names
    assert any(not s.inherit_rotation for s in fig.segments) == (hinge_share > 0)
    for _ in range(6):
        q = rng.uniform(-2, 2, len(fig.joints))
        for s in rng.choice(len(names), size=int(rng.integers(1, 4)), replace=False):
            kind = int(rng.integers(3))
            translation = rng.normal(size=3) if kind != 1 else None
            rotation = random_rotation(rng) if kind != 0 else None
            fig.set_rest(names[s], translation=translation, rotation=rotation)
        frames = fig.kinematics.forward(q)
        expected, axes, pivots = reference(fig, q)
        assert np.allclose(frames.origins, expected[:, :3, 3], atol=1e-12)
        assert np.allclose(frames.rotations, expected[:, :3, :3], atol=1e-12)
        assert np.allclose(frames.axes, axes, atol=1e-12)
        revolute = fig.kinematics.revolute
        assert np.allclose(frames.pivots[revolute], pivots[revolute], atol=1e-12)


def test_a_segment_that_does_not_inherit_rotation_in_closed_form() -> None:
    """Arm: ``upper`` turns by ``a`` about z; ``lower`` (1 along x, no inherited rotation,
    rest rotation ``R0`` in world) turns by ``b`` about its own x; ``hand`` 2 along its
    parent's y. Then ``lower`` sits at ``(cos a, sin a, 0)`` with rotation ``R0 Rx(b)``,
    whatever ``a``, and ``hand`` at that origin plus ``2 R0 Rx(b) e_y``."""
    r0 = np.array([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])  # Rz(90 deg)
    fig = Figure()
    fig.add_segment("upper")
    fig.add_revolute("upper", "z", name="a")
    fig.add_segment("lower", "upper", (1.0, 0.0, 0.0), r0, inherit_rotation=False)
    fig.add_revolute("lower", "x", name="b")
    fig.add_segment("hand", "lower", (0.0, 2.0, 0.0))
    for a, b in [(0.0, 0.0), (0.7, 0.0), (-2.1, 0.4), (1.3, -1.0)]:
        frames = fig.forward([a, b])
        rx = np.array([[1, 0, 0], [0, np.cos(b), -np.sin(b)], [0, np.sin(b), np.cos(b)]])
        lower = np.array([np.cos(a), np.sin(a), 0.0])
        assert np.allclose(frames["lower"][:3, 3], lower, atol=1e-14)
        assert np.allclose(frames["lower"][:3, :3], r0 @ rx, atol=1e-14)
        assert np.allclose(frames["hand"][:3, :3], r0 @ rx, atol=1e-14)
        hand = lower + 2.0 * (r0 @ rx)[:, 1]
        assert np.allclose(frames["hand"][:3, 3], hand, atol=1e-14)


def test_the_option_on_a_root_segment_changes_nothing() -> None:
    """A root's rest rotation is world-relative either way."""
    frames = []
    for inherit in (True, False):
        fig = Figure()
        fig.add_segment("root", None, (1, 2, 3), rpy=(0.3, 0.2, 0.1), inherit_rotation=inherit)
        fig.add_revolute("root", "y")
        fig.add_segment("tip", "root", (0.0, 1.0, 0.0))
        frames.append(fig.forward([0.8]))
    for name in ("root", "tip"):
        assert np.allclose(frames[0][name], frames[1][name], atol=1e-15)


def test_joint_names_follow_a_joint_added_after_they_were_read() -> None:
    """The kept tuple of names is dropped when a joint is added."""
    fig = Figure()
    fig.add_segment("root", translation=(0.0, 0.0, 1.0))
    fig.add_revolute("root", axis=(0.0, 0.0, 1.0), name="a")
    assert fig.joint_names == ("a",)
    fig.add_revolute("root", axis=(1.0, 0.0, 0.0), name="b")
    assert fig.joint_names == ("a", "b")


def test_only_the_exact_square_identity_counts_as_identity() -> None:
    """A scaled, partial or nearly-identity coupling keeps its product."""
    assert is_identity(np.eye(4))
    assert not is_identity(0.5 * np.eye(4))  # a rigidity scales the variable
    assert not is_identity(np.eye(4)[:, :3])  # a joint that is not a variable
    assert not is_identity(np.eye(4) + 1e-16 * np.ones((4, 4)) - 1e-16 * np.eye(4))
    assert not is_identity(np.eye(4)[[1, 0, 2, 3]])  # variables in another order


def test_set_rest_to_the_rest_a_segment_has_is_no_change() -> None:
    """The figure decides itself whether a rest changed (callers keep no record of what
    they pushed): bit-equal arrays change no version and re-read nothing; a changed value,
    a -0.0 for a 0.0, a list (validated) or a quaternion count as a change."""
    fig = mixed_tree(3, 0.0)
    translation = np.array([0.0, 5.0, 0.0])
    rotation = random_rotation(np.random.default_rng(3))
    fig.set_rest("s1", translation=translation, rotation=rotation)
    q = np.zeros(len(fig.joints))
    frames = fig.kinematics.forward(q)
    versions = (fig.rest_version, fig.offset_version)
    fig.set_rest("s1", translation=translation.copy(), rotation=rotation.copy())
    fig.set_rest("s1", rotation=rotation.copy())
    fig.set_rest("s1", translation=translation.copy())
    assert (fig.rest_version, fig.offset_version) == versions
    assert np.array_equal(fig.kinematics.forward(q).origins, frames.origins)
    for change in (
        {"translation": np.array([0.0, 5.0, 1e-12])},
        {"translation": np.array([-0.0, 5.0, 0.0])},
        {"translation": [0.0, 5.0, 0.0]},
        {"quaternion": (1.0, 0.0, 0.0, 0.0)},
    ):
        before = fig.rest_version
        fig.set_rest("s1", **change)
        assert fig.rest_version == before + 1, change


def _summed_in_order(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The 4x4 product with each entry summed term by term, ``((a0 b0 + a1 b1) + a2 b2) + a3
    b3``, each product and sum rounded on its own (Python floats: no fused multiply-add)."""
    out = np.zeros((4, 4))
    for i in range(4):
        for j in range(4):
            total = 0.0
            for k in range(4):
                total += float(a[i, k]) * float(b[k, j])
            out[i, j] = total
    return out


def _frame(frames, segment: int) -> np.ndarray:
    out = np.eye(4)
    out[:3, :3], out[:3, 3] = frames.rotations[segment], frames.origins[segment]
    return out


def test_the_pass_multiplies_transforms_summing_each_entry_in_order() -> None:
    """The pass's products are one fixed formula, whatever the batch's shape: a child's frame
    is its parent's times its own local transform (a root's frame, by a one-segment figure),
    each entry summed in order — not a BLAS product, whose fused multiply-adds round
    differently (and depend on the library)."""
    rng = np.random.default_rng(7)
    for _ in range(20):
        rest = [(rng.normal(size=3), random_rotation(rng)) for _ in range(2)]
        axes = [random_unit(rng) for _ in range(2)]
        pair, alone = Figure(), Figure()
        pair.add_segment("s0", None, *rest[0])
        pair.add_revolute("s0", axes[0], name="a")
        pair.add_segment("s1", "s0", *rest[1])
        pair.add_revolute("s1", axes[1], name="b")
        alone.add_segment("s1", None, *rest[1])
        alone.add_revolute("s1", axes[1], name="b")
        q = rng.uniform(-2.0, 2.0, 2)
        frames = pair.kinematics.forward(q)
        local = _frame(alone.kinematics.forward(q[1:]), 0)
        expected = _summed_in_order(_frame(frames, 0), local)
        assert np.array_equal(_frame(frames, 1), expected)
        batch = pair.kinematics.forward(np.stack([q, q[::-1], q]))
        assert np.array_equal(batch.rotations[2], frames.rotations)
        assert np.array_equal(batch.origins[2], frames.origins)
