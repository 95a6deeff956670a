"""IK Stretch in the figure (``bridge.rig.stretch``), checked in closed form without Blender.

With stretch ``S = 1 + t / L`` a point at offset ``d`` on the stretched bone (bone frame,
scene units) is at ``head + S R d`` as Blender evaluates a bone scaled by ``S``: the figure's
forward kinematics must give exactly that for children at any offset and for effectors at
any fraction of the bone.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from tests.bridge_stubs import bridge_module

rig_stretch = bridge_module("rig.stretch")
rig_joints = bridge_module("rig.joints")
solver = bridge_module("rig.stretch").solver  # the package's own copy of the solver

LENGTH = 2.0  # the stretched bone's length, scene units


def _figure(offsets: list[np.ndarray], fractions: list[float], amount: float = 0.5):
    """A bone "a" (turning about X) with children at ``offsets`` and effectors at
    ``fractions`` of its length; returns (figure, specs, plan, solved bone)."""
    fig = solver.Figure()
    fig.add_segment("a", rotation=np.eye(3))
    plan = rig_stretch.StretchPlan({"a": LENGTH}, {"a": amount}, {"a": []})
    for n, offset in enumerate(offsets):
        parent = plan.child_segment(fig, f"c{n}", "a", offset)
        fig.add_segment(f"c{n}", parent, translation=offset)
    info = rig_joints.SolvedBone("a", "LOCAL", "QUATERNION")
    info.rotation_joints.append((0, fig.add_revolute("a", (1.0, 0.0, 0.0), name="a:rotX")))
    specs = [
        SimpleNamespace(bone="a", point=np.array([0.0, f * LENGTH, 0.0]), segment="")
        for f in fractions
    ]
    plan.place_effectors(fig, specs)
    plan.add_groups(fig, {"a": info})
    return fig, specs, plan, info


def _coords(fig: object, info: object, angle: float, t: float) -> np.ndarray:
    values = {"a:rotX": angle, info.stretch: t}
    return np.array([values[name] for name in fig.coordinate_names])


@pytest.mark.parametrize(("angle", "stretch"), [(0.0, 1.0), (0.7, 1.6), (-1.2, 0.4)])
def test_points_on_a_stretched_bone_move_as_blender_scales_it(angle: float, stretch: float):
    offsets = [np.array([0.0, LENGTH, 0.0]), np.array([0.3, 0.8, -0.5])]  # tail, beside
    fig, specs, _, info = _figure(offsets, [1.0, 0.5, 0.0])
    frames = fig.forward(_coords(fig, info, angle, (stretch - 1.0) * LENGTH))
    c, s = np.cos(angle), np.sin(angle)
    r = np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])
    for n, offset in enumerate(offsets):
        assert np.allclose(frames[f"c{n}"][:3, 3], stretch * r @ offset, atol=1e-12)
        assert np.allclose(frames[f"c{n}"][:3, :3], r, atol=1e-12)  # children keep size 1
    for spec in specs:
        world = frames[spec.segment or spec.bone]
        point = world[:3, :3] @ spec.point + world[:3, 3]
        assert np.allclose(point, stretch * r @ spec.point, atol=1e-12)
    assert specs[2].segment == ""  # an effector at the head does not move with the stretch


@pytest.mark.parametrize(("amount", "rigidity"), [(1.0, 0.0), (0.5, 0.75), (0.05, 0.99)])
def test_stretch_bounds_and_stiffness_are_blenders(amount: float, rigidity: float) -> None:
    fig, _, _, info = _figure([np.array([0.0, LENGTH, 0.0])], [1.0], amount)
    [group] = fig.groups
    assert group.lower[0] == pytest.approx((rig_stretch.MIN_STRETCH - 1.0) * LENGTH)
    assert group.upper[0] == np.inf  # Blender's IK stretch has no upper limit
    assert group.rigidity[0] == pytest.approx(rigidity)  # 1 - ik_stretch^2, at most 0.99
    assert info.writes_scale and info.length == LENGTH


def test_a_bone_with_nothing_beyond_its_head_gets_no_stretch() -> None:
    fig, _, _, info = _figure([np.zeros(3)], [0.0])
    assert fig.groups == () and info.stretch is None and not info.writes_scale
