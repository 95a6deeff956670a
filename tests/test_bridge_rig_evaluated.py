"""The evaluated pose of a bone the solve does not move, as pose channels
(:mod:`bridge.rig.still_bones`), on stand-in bones: closed-form checks against Blender's
composition ``pose = parent_pose @ parent_rest^-1 @ rest @ basis``. Real Blender checks the
whole in ``tests/blender/test_tryout_constrained_parent.py``."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from tests.bridge_stubs import bridge_module

rig_evaluated = bridge_module("rig.still_bones")


def _matrix(rng: np.random.Generator, scale: float = 1.0) -> np.ndarray:
    m = np.eye(4)
    m[:3, :3] = scale * Rotation.random(random_state=rng).as_matrix()
    m[:3, 3] = rng.normal(size=3)
    return m


def _armature(constraints: dict[str, list] | None = None, inherit: bool = True) -> SimpleNamespace:
    """b0 <- b1 <- b2 stand-ins with random rest matrices and pose matrices to fill in."""
    rng = np.random.default_rng(3)
    bones, pose, parent = {}, {}, None
    for name in ("b0", "b1", "b2"):
        bones[name] = SimpleNamespace(
            name=name, parent=parent, matrix_local=_matrix(rng),
            use_inherit_rotation=inherit or parent is None,
        )  # fmt: skip
        pose[name] = SimpleNamespace(constraints=(constraints or {}).get(name, []), matrix=None)
        parent = bones[name]
    return SimpleNamespace(data=SimpleNamespace(bones=bones), pose=SimpleNamespace(bones=pose))


@pytest.mark.parametrize("parent_scale", [1.0, 0.7, 2.5])
def test_basis_that_gives_the_evaluated_pose(parent_scale: float) -> None:
    rng = np.random.default_rng(11)
    obj = _armature()
    bones, pose = obj.data.bones, obj.pose.bones
    basis = _matrix(rng)
    pose["b0"].matrix = _matrix(rng, parent_scale)  # a constraint put it anywhere, scaled
    pose["b1"].matrix = (
        pose["b0"].matrix @ np.linalg.inv(bones["b0"].matrix_local) @ bones["b1"].matrix_local
        @ basis
    )  # fmt: skip
    rotation, location = rig_evaluated.evaluated_basis(obj, "b1")
    assert np.allclose(rotation, basis[:3, :3], atol=1e-12)
    assert np.allclose(location, basis[:3, 3], atol=1e-12)
    root_basis = np.linalg.inv(bones["b0"].matrix_local) @ pose["b0"].matrix
    rotation, location = rig_evaluated.evaluated_basis(obj, "b0")  # a root: from its rest
    assert np.allclose(rotation, root_basis[:3, :3] / parent_scale, atol=1e-12)
    assert np.allclose(location, root_basis[:3, 3], atol=1e-12)
    assert np.isclose(np.linalg.det(rotation), 1.0)


def test_only_constrained_bones_the_solve_does_not_move() -> None:
    on = SimpleNamespace(mute=False, influence=1.0)
    off = [SimpleNamespace(mute=True, influence=1.0), SimpleNamespace(mute=False, influence=0.0)]
    obj = _armature({"b0": [on], "b1": off, "b2": [on]})
    assert rig_evaluated.constrained_still_bones(obj, ["b0", "b1", "b2"], {"b2"}) == ["b0"]
    assert rig_evaluated.constrained_still_bones(obj, ["b0", "b1", "b2"], {"b0"}) == []
    assert rig_evaluated.constrained_still_bones(obj, ["b0", "b1", "b2"], set()) == ["b0", "b2"]
    hinged = _armature({"b0": [on], "b2": [on]}, inherit=False)
    assert rig_evaluated.constrained_still_bones(hinged, ["b0", "b1", "b2"], set()) == ["b0"]
