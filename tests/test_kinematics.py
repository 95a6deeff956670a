"""The batched forward pass and its Jacobian columns against a plain reference.

The reference walks the tree segment by segment, ``T_s = T_parent Rest_s M_1(q_1)
... M_k(q_k)`` with each motion built by the matrix exponential's series, so it
shares no code with :class:`solver.kinematics.Kinematics`. Figures mix revolute and
prismatic joints, several joints per segment, joint-less segments between jointed
ones, branches, and joints added to a segment after its children (so joint order is
not the tree's order).
"""

import numpy as np
import pytest

from solver import Figure
from solver.kinematics import Kinematics
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
        for j in seg.joints:
            axes[j] = t[:3, :3] @ fig.joints[j].axis
            pivots[j] = t[:3, 3]
            t = t @ _motion(fig.joints[j], q[j])
        frames[s] = t
    return np.array([frames[s] for s in range(len(fig.segments))]), axes, pivots


def mixed_tree(seed: int) -> Figure:
    rng = np.random.default_rng(seed)
    fig = Figure()
    names: list[str] = []
    for i in range(9):
        parent = None if not names else names[int(rng.integers(len(names)))]
        name = f"s{i}"
        fig.add_segment(name, parent, rng.normal(size=3), random_rotation(rng))
        names.append(name)
        if i % 4 != 2:  # some segments stay joint-less
            for k in range(int(rng.integers(1, 3))):
                add = fig.add_revolute if rng.random() < 0.7 else fig.add_prismatic
                add(name, random_unit(rng), name=f"{name}.{k}")
    fig.add_revolute("s0", random_unit(rng), name="late")  # added after s0's children
    return fig


@pytest.mark.parametrize("seed", range(6))
def test_forward_pass_matches_the_segment_by_segment_reference(seed: int) -> None:
    fig = mixed_tree(seed)
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


@pytest.mark.parametrize("seed", range(6))
def test_columns_match_central_differences(seed: int) -> None:
    """d(point)/dq and d(direction)/dq for every segment, all joints as variables."""
    fig = mixed_tree(seed)
    rng = np.random.default_rng(200 + seed)
    q = rng.uniform(-2, 2, len(fig.joints))
    local = np.vstack((rng.normal(size=3), random_unit(rng), random_unit(rng)))
    kin = fig.kinematics

    def world(qq: np.ndarray, s: int) -> np.ndarray:
        f = kin.forward(qq)
        out = local @ f.rotations[s].T
        out[0] += f.origins[s]
        return out.reshape(-1)

    frames = kin.forward(q)
    for s in range(len(fig.segments)):
        moving = np.flatnonzero(kin.ancestors[s])  # joints above the segment
        coupling = np.eye(len(q))[moving]
        cols = Kinematics.columns(frames, world(q, s).reshape(3, 3), True, moving, coupling)
        numeric = np.array(
            [central_difference(lambda qq, i=i, s=s: world(qq, s)[i], q) for i in range(9)]
        )
        assert np.allclose(cols.reshape(9, -1), numeric, atol=1e-7), f"segment {s}"


def test_set_rest_is_read_by_the_next_pass() -> None:
    fig = mixed_tree(3)
    q = np.zeros(len(fig.joints))
    fig.kinematics.forward(q)
    fig.set_rest("s1", translation=(0.0, 5.0, 0.0), rpy=(0.2, 0.0, 0.0))  # jointed
    fig.set_rest("s2", translation=(1.0, 0.0, 2.0), rpy=(0.0, 0.3, 0.0))  # joint-less
    assert not fig.segments[2].joints
    frames = fig.kinematics.forward(q)
    expected = reference(fig, q)[0]
    assert np.allclose(frames.origins, expected[:, :3, 3], atol=1e-12)
    assert np.allclose(frames.rotations, expected[:, :3, :3], atol=1e-12)
