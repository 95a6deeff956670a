"""The model's world: where the figure and its goals live, and how world points map into it.

The figure is built from rotations and one uniform scale. For an armature whose world matrix
``M`` (3x3 part) is a rotation times a scale ``s`` the model's world is the world itself,
reflected across X when ``det M < 0`` (a mirrored armature cannot be built from rotations;
distances and angles are unchanged by a reflection, and the pose channels are the same in both
worlds). For any other ``M`` (a non-uniform scale or a shear, ``M^T M != s^2 I``) the model's
world is the armature's own space scaled by ``sigma``, the largest singular value of ``M``:
``p_model = sigma M^-1 (p - t)``. An affine map keeps points on points, lines on lines and
planes on planes, and the bone's drawn axis direction ``M R a`` is parallel to ``M (g - p)``
exactly when ``R a`` is parallel to ``g - p``, so position, line, plane, half-space and aim
goals are met in the model exactly when Blender's pose meets them; orientation goals are not
(the drawn bone's axes are not orthogonal there). Distances shrink by at most ``sigma`` from
the model to the world, so a goal reached within a tolerance in the model is reached within
it in the world.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: World reflection across the YZ plane; the model of a mirrored armature lives behind it.
REFLECT_X = np.diag([-1.0, 1.0, 1.0])
#: Relative departure of ``M^T M`` from ``s^2 I`` (Frobenius norm over ``s^2``) tolerated as
#: round-off of Blender's single-precision matrices.
SHEAR_TOLERANCE = 1e-5
#: Model spaces kept by :func:`model_space` (one per armature matrix seen; all are dropped
#: when it is full).
KEPT_SPACES = 64
_SPACES: dict[tuple[tuple[int, ...], bytes], ModelSpace] = {}


def similarity_scale(matrix: np.ndarray) -> float | None:
    """The scale ``s`` when the (3, 3) ``matrix`` is a rotation or reflection times ``s``
    (``M^T M = s^2 I`` within :data:`SHEAR_TOLERANCE`), else None."""
    m = np.asarray(matrix, dtype=float)[:3, :3]
    gram = m.T @ m
    s2 = float(np.trace(gram)) / 3.0
    if s2 <= 0.0 or np.linalg.norm(gram - s2 * np.eye(3)) > SHEAR_TOLERANCE * s2:
        return None
    return float(np.sqrt(s2))


@dataclass(frozen=True)
class ModelSpace:
    """World -> model's world: ``p_model = linear @ (p - origin)``.

    Attributes:
        linear: (3, 3) the map's linear part.
        origin: (3,) world point that maps to the model's origin.
        scale: the armature's uniform scale in the model (scene units per armature unit).
        sheared: the model's world is the armature's space (see the module doc).
        spread: smallest over largest singular value of the armature's matrix (1 unless
            sheared): a model distance ``d`` is a world distance in ``[spread d, d]``.
    """

    linear: np.ndarray
    origin: np.ndarray
    scale: float
    sheared: bool
    spread: float = 1.0

    def beyond(self, model: float, world: float) -> float:
        """How far a world distance lies outside the range a model distance allows (>= 0,
        scene units): 0 when the model and the world agree."""
        return max(self.spread * model - world, world - model, 0.0)

    def point(self, p: np.ndarray) -> np.ndarray:
        """A world point (3,) in the model's world."""
        return self.linear @ (np.asarray(p, dtype=float) - self.origin)

    def direction(self, d: np.ndarray) -> np.ndarray:
        """Unit direction(s) in the model's world of world direction(s) ``d``: (3,) or the
        columns of (3, k)."""
        v = self.linear @ np.asarray(d, dtype=float)
        return v / np.linalg.norm(v, axis=0)

    def normal(self, n: np.ndarray) -> np.ndarray:
        """Unit plane normal(s) in the model's world of world normal(s) ``n`` ((3,) or the
        columns of (3, k)): normals map by the inverse transpose."""
        v = np.linalg.inv(self.linear).T @ np.asarray(n, dtype=float)
        return v / np.linalg.norm(v, axis=0)


def model_space(matrix_world: np.ndarray) -> ModelSpace:
    """The model's world of an armature with world matrix ``matrix_world`` (4, 4), finite and
    of non-zero scale.

    A solve asks for the same armature's space many times (each goal, the object frame, each
    baked frame), so spaces are kept by the exact matrix (:data:`KEPT_SPACES` at most); their
    arrays are read-only.
    """
    m = np.asarray(matrix_world, dtype=float)
    key = (m.shape, m.tobytes())
    space = _SPACES.get(key)
    if space is None:
        if len(_SPACES) >= KEPT_SPACES:
            _SPACES.clear()
        space = _SPACES[key] = _model_space(m)
    return space


def _model_space(m: np.ndarray) -> ModelSpace:
    """:func:`model_space`, computed (``m`` (4, 4))."""
    scale = similarity_scale(m)
    if scale is not None:
        linear = REFLECT_X if np.linalg.det(m[:3, :3]) < 0.0 else np.eye(3)
        return ModelSpace(_frozen(linear), _frozen(np.zeros(3)), scale, False)
    singular = np.linalg.svd(m[:3, :3], compute_uv=False)
    sigma = float(singular[0])
    linear = sigma * np.linalg.inv(m[:3, :3])
    return ModelSpace(
        _frozen(linear), _frozen(m[:3, 3].copy()), sigma, True, float(singular[-1]) / sigma
    )


def _frozen(array: np.ndarray) -> np.ndarray:
    """``array`` made read-only (a kept space is shared by every caller)."""
    array.flags.writeable = False
    return array
