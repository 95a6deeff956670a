"""The armature's frame in the model (``bridge.rig.object_frame.object_frame``), kept by matrix.

A kept frame is handed out only for the exact world matrix and scale it was computed from:
an armature moved, turned or rescaled between two solves gets its new frame (closed form:
``t`` is the matrix's translation, ``R`` its 3x3 part over the scale) or the scale error.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from tests.bridge_stubs import bridge_module

object_frame = bridge_module("rig.object_frame")
rig_joints = bridge_module("rig.joints")


def _armature(matrix: np.ndarray) -> SimpleNamespace:
    return SimpleNamespace(name="Rig", matrix_world=matrix.copy())


def _placed(angle: float, translation: tuple[float, float, float], scale: float) -> np.ndarray:
    c, s = np.cos(angle), np.sin(angle)
    m = np.eye(4)
    m[:3, :3] = scale * np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
    m[:3, 3] = translation
    return m


def test_a_moved_or_turned_armature_gets_its_new_frame() -> None:
    obj = _armature(_placed(0.3, (1.0, 2.0, 3.0), 2.0))
    first = object_frame.object_frame(obj, 2.0)
    assert object_frame.object_frame(obj, 2.0) is first  # the same matrix: the kept frame
    assert not first[0].flags.writeable and not first[1].flags.writeable
    for angle, translation in ((0.3, (1.0, 2.0, 3.5)), (-1.2, (1.0, 2.0, 3.0))):
        obj.matrix_world = _placed(angle, translation, 2.0)
        t, r = object_frame.object_frame(obj, 2.0)
        np.testing.assert_allclose(t, translation, atol=1e-12)
        np.testing.assert_allclose(r, obj.matrix_world[:3, :3] / 2.0, atol=1e-12)


def test_a_kept_frame_is_not_used_for_another_scale() -> None:
    obj = _armature(_placed(0.3, (1.0, 2.0, 3.0), 2.0))
    object_frame.object_frame(obj, 2.0)
    with pytest.raises(rig_joints.RigError, match="changed its scale from 1 to 2"):
        object_frame.object_frame(obj, 1.0)
