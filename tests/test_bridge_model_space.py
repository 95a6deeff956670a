"""The model's world of an armature (``bridge.blender.model_space``), closed form cases.

``similarity_scale`` is the test ``M^T M = s^2 I`` on a 3x3 matrix: a rotation or reflection
times ``s`` passes with ``s``; a non-uniform scale and a shear with equal column lengths fail.
On a sheared armature the model's world is ``sigma M^-1 (p - t)``: armature-space points,
directions and planes come out as ``sigma y``, ``d`` and the same plane.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.bridge_stubs import bridge_module

model_space = bridge_module("blender.model_space")


def _rotation(axis: tuple[float, float, float], angle: float) -> np.ndarray:
    k = np.asarray(axis, dtype=float) / np.linalg.norm(axis)
    cross = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + np.sin(angle) * cross + (1 - np.cos(angle)) * cross @ cross


@pytest.mark.parametrize("scale", [0.01, 1.0, 250.0])
@pytest.mark.parametrize("reflect", [(1, 1, 1), (-1, 1, 1), (-1, -1, 1), (-1, -1, -1)])
def test_rotations_and_reflections_times_a_scale_pass(scale: float, reflect: tuple) -> None:
    m = scale * _rotation((0.3, -0.5, 0.8), 1.1) @ np.diag(reflect)
    assert model_space.similarity_scale(m) == pytest.approx(scale, rel=1e-12)


def test_a_non_uniform_scale_fails() -> None:
    assert model_space.similarity_scale(np.diag([1.0, 1.0 + 1e-3, 1.0])) is None


def test_a_shear_with_equal_columns_fails() -> None:
    u = np.ones(3) / np.sqrt(3.0)
    m = np.eye(3) + u[:, None] * u[None, :]  # R diag(2, 1, 1) R^T, R's X on u
    norms = np.linalg.norm(m, axis=0)
    assert np.ptp(norms) < 1e-15  # a check on column lengths alone would pass it
    assert model_space.similarity_scale(m) is None


def test_single_precision_round_off_passes() -> None:
    m = (3.0 * _rotation((1.0, 2.0, 0.5), 0.7)).astype(np.float32).astype(float)
    assert model_space.similarity_scale(m) == pytest.approx(3.0, rel=1e-6)


def _sheared() -> np.ndarray:
    m = np.eye(4)
    m[:3, :3] = (
        _rotation((0.2, 1.0, -0.4), 0.8)
        @ np.diag([2.0, 0.5, 1.3])
        @ _rotation((1.0, 0.3, 0.2), -0.6)
    )
    m[:3, 3] = (0.4, -1.2, 2.0)
    return m


def test_a_sheared_armature_is_modelled_in_its_own_space() -> None:
    m = _sheared()
    space = model_space.model_space(m)
    sigma = np.linalg.svd(m[:3, :3], compute_uv=False)[0]
    assert space.sheared and space.scale == pytest.approx(sigma)
    y = np.array([0.3, -0.7, 1.1])
    assert np.allclose(space.point(m[:3, :3] @ y + m[:3, 3]), sigma * y, atol=1e-12)
    d = np.array([[1.0, 0.0], [2.0, 1.0], [-0.5, 3.0]])  # two directions as columns
    assert np.allclose(space.direction(m[:3, :3] @ d), d / np.linalg.norm(d, axis=0))


def test_planes_map_to_planes_by_the_normal_rule() -> None:
    m = _sheared()
    space = model_space.model_space(m)
    p, n = np.array([1.0, 0.5, -0.3]), np.array([0.2, -0.9, 0.4])
    u = np.cross(n, [1.0, 0.0, 0.0])  # two directions in the world plane
    v = np.cross(n, u)
    normal = space.normal(n)
    for w in (u, v, u - 2.0 * v):
        assert abs(normal @ (space.point(p + w) - space.point(p))) < 1e-12
    assert normal @ (space.point(p + n) - space.point(p)) > 0.0  # the same side stays positive


def test_a_model_distance_bounds_the_world_distance() -> None:
    """Reaching a goal within a tolerance in the model reaches it within it in the world."""
    m = _sheared()
    space = model_space.model_space(m)
    rng = np.random.default_rng(3)
    for delta in rng.normal(size=(50, 3)):
        world = np.linalg.norm(delta)
        model = np.linalg.norm(space.point(m[:3, 3] + delta) - space.point(m[:3, 3]))
        assert world <= model * (1.0 + 1e-12)


@pytest.mark.parametrize("reflect", [(1, 1, 1), (-1, 1, 1), (-1, -1, -1)])
def test_similar_armatures_keep_the_world(reflect: tuple) -> None:
    m = np.eye(4)
    m[:3, :3] = 1.5 * _rotation((0.3, -0.5, 0.8), 1.1) @ np.diag(reflect)
    space = model_space.model_space(m)
    expected = np.diag([-1.0, 1.0, 1.0]) if np.linalg.det(m[:3, :3]) < 0 else np.eye(3)
    assert not space.sheared and np.array_equal(space.linear, expected)
    assert space.scale == pytest.approx(1.5)


def test_model_and_world_distances_agree_within_the_spread() -> None:
    sheared = model_space.model_space(_sheared())
    singular = np.linalg.svd(_sheared()[:3, :3], compute_uv=False)
    assert sheared.spread == pytest.approx(singular[-1] / singular[0])
    assert sheared.beyond(2.0, 2.0 * sheared.spread) == 0.0  # the shortest world image
    assert sheared.beyond(2.0, 2.5) == pytest.approx(0.5)  # longer than the model allows
    plain = model_space.model_space(np.eye(4))
    assert plain.spread == 1.0 and plain.beyond(2.0, 1.5) == pytest.approx(0.5)


def test_a_kept_space_is_used_only_for_the_exact_same_matrix() -> None:
    m = np.eye(4)
    m[:3, :3] = 2.0 * np.diag([1.0, 1.0, -1.0])
    space = model_space.model_space(m)
    assert model_space.model_space(m.copy()) is space  # kept: same matrix
    assert not space.linear.flags.writeable and not space.origin.flags.writeable
    nudged = m.copy()
    nudged[0, 3] = 1e-12  # any change, however small, is a new space
    assert model_space.model_space(nudged) is not space
    sheared = m.copy()
    sheared[0, 1] = 0.5
    other = model_space.model_space(sheared)
    assert other.sheared and not space.sheared
    assert model_space.model_space(m) is space
