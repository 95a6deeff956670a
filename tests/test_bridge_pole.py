"""Blender's pole geometry (``bridge.blender_ik.pole``) in closed form, without Blender."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests.bridge_stubs import bridge_module

pole = bridge_module("blender_ik.pole")
errors = bridge_module("blender_ik.pole").InvalidInputError


def random_rotation(rng: np.random.Generator) -> np.ndarray:
    """A uniformly random rotation (3, 3)."""
    q, r = np.linalg.qr(rng.normal(size=(3, 3)))
    q = q * np.sign(np.diag(r))
    return q if np.linalg.det(q) > 0 else -q


def frame(rotation: np.ndarray, origin: np.ndarray) -> np.ndarray:
    m = np.eye(4)
    m[:3, :3], m[:3, 3] = rotation, origin
    return m


def test_look_at_is_orthonormal_and_keeps_the_up_side() -> None:
    rng = np.random.default_rng(1)
    for _ in range(20):
        d, up = rng.normal(size=3), rng.normal(size=3)
        f = pole.look_at(d, up)
        assert np.allclose(f.T @ f, np.eye(3), atol=1e-12)
        assert np.allclose(f[:, 2], d / np.linalg.norm(d))
        side = np.cross(d, up)
        assert np.allclose(f[:, 0], side / np.linalg.norm(side))
        assert f[:, 1] @ up > 0.0 and abs(np.cross(f[:, 2], f[:, 1]) @ up) < 1e-12


@pytest.mark.parametrize("a", [0.0, 0.7, -1.9, math.pi])
@pytest.mark.parametrize("beta", [0.3, -2.0, 2.9])
def test_bend_angle_closed_form(a: float, beta: float) -> None:
    """Root axes X, Y, Z at the origin, tip on Y, the joint at angle ``beta`` from X towards Z:
    the up vector is X cos a + Z sin a, so the joint sits at ``a - beta`` from it."""
    joint = np.array([0.3 * math.cos(beta), 0.5, 0.3 * math.sin(beta)])
    phi = pole.bend_angle(np.eye(4), joint, np.array([0.0, 1.0, 0.0]), a)
    expected = math.atan2(math.sin(a - beta), math.cos(a - beta))
    assert phi == pytest.approx(expected, abs=1e-12)


def test_bend_angle_does_not_depend_on_the_frame() -> None:
    rng = np.random.default_rng(2)
    root, joint, tip = np.eye(4), np.array([0.2, 0.5, -0.1]), np.array([0.0, 1.0, 0.05])
    phi = pole.bend_angle(root, joint, tip, 0.4)
    for _ in range(10):
        q, t = random_rotation(rng), rng.normal(size=3)
        moved = pole.bend_angle(frame(q, t), q @ joint + t, q @ tip + t, 0.4)
        assert moved == pytest.approx(phi, abs=1e-12)


def test_bend_plane_is_where_blenders_rotation_takes_the_joint() -> None:
    """Blender turns the chain by ``R = polemat^T mat`` (look-at frames of the chain and of
    the goals, ``intern/iksolver``): the joint it turns lies in the plane on its side."""
    rng = np.random.default_rng(3)
    for _ in range(20):
        root = frame(random_rotation(rng), rng.normal(size=3))
        joint, tip = root[:3, 3] + rng.normal(size=3), root[:3, 3] + rng.normal(size=3)
        o, target, pole_point = root[:3, 3], rng.normal(size=3), rng.normal(size=3)
        a = rng.uniform(-math.pi, math.pi)
        up = root[:3, 0] * math.cos(a) + root[:3, 2] * math.sin(a)
        turn = pole.look_at(target - o, pole_point - o) @ pole.look_at(tip - root[:3, 3], up).T
        k = turn @ (joint - root[:3, 3])
        d = (target - o) / np.linalg.norm(target - o)
        k_perp = k - (k @ d) * d
        normal, side = pole.bend_plane(o, target, pole_point, pole.bend_angle(root, joint, tip, a))
        assert abs(normal @ k) < 1e-9 and abs(normal @ d) < 1e-12
        assert np.allclose(side, k_perp / np.linalg.norm(k_perp), atol=1e-9)


def test_degenerate_geometry_is_refused() -> None:
    with pytest.raises(errors, match="straight"):
        pole.bend_angle(np.eye(4), np.array([0.0, 0.5, 0.0]), np.array([0.0, 1.0, 0.0]), 0.0)
    with pytest.raises(errors, match="parallel"):
        pole.bend_plane(np.zeros(3), np.array([0.0, 0.0, 1.0]), np.array([0.0, 0.0, 2.0]), 0.0)
    with pytest.raises(errors, match="direction"):
        pole.bend_plane(np.zeros(3), np.zeros(3), np.array([1.0, 0.0, 0.0]), 0.0)
