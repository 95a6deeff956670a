"""Targets -> goals without Blender, on stand-in objects.

``bridge.rig.goals.GoalBinding`` reads a target object's (or target bone's) world transform
and turns it into goal attributes, using Blender data only through the objects passed in.
(Report text: ``tests/test_bridge_reports.py``.)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pytest

from tests.bridge_stubs import StubBone, bridge_module

rig_goals = bridge_module("rig.goals")


class BindingError(Exception):
    """Raised by the bindings under test (the bridge passes RigError)."""


def rotation_z(angle: float) -> np.ndarray:
    """(4, 4) rotation about Z by ``angle`` radians."""
    c, s = math.cos(angle), math.sin(angle)
    m = np.eye(4)
    m[:2, :2] = [[c, -s], [s, c]]
    return m


@dataclass
class StubPose:
    bones: dict[str, object] = field(default_factory=dict)


@dataclass
class StubTargetBone:
    """A pose bone seen as a target: armature-space ``matrix`` and its ``bone``."""

    matrix: np.ndarray
    bone: StubBone


@dataclass
class StubObject:
    """An object seen as a target or as the solved armature (``matrix_world`` (4, 4))."""

    name: str
    matrix_world: np.ndarray
    pose: StubPose = field(default_factory=StubPose)


class DeletedObject:
    """A Python handle to an object Blender has freed: every access raises ReferenceError."""

    name = "gone"

    def __getattr__(self, name: str) -> object:
        raise ReferenceError("StructRNA of type Object has been removed")


def binding(kind: str, target: object, **fields: object) -> object:
    """A :class:`GoalBinding` for goal type ``kind`` (no goal object needed to read values)."""
    values = {
        "name": "c",
        "item_kind": kind,
        "goal": None,
        "target": target,
        "target_bone": "",
        "head_tail": 1.0,
        "target_axis": "Z",
        "suppress": "NONE",
        "carrier": None,
        "error": BindingError,
    }
    values.update(fields)
    return rig_goals.GoalBinding(**values)


def placed(matrix: np.ndarray, location: tuple[float, float, float]) -> np.ndarray:
    out = np.array(matrix, dtype=float)
    out[:3, 3] = location
    return out


ARMATURE = StubObject("Rig", np.eye(4))


def test_point_goals_take_the_target_location() -> None:
    target = StubObject("T", placed(np.eye(4), (1.0, 2.0, 3.0)))
    for kind in rig_goals.POINT_GOALS:
        values = binding(kind, target).values(ARMATURE, 1.0)
        np.testing.assert_array_equal(values["point"], [1.0, 2.0, 3.0])


def test_orientation_takes_target_x_and_y_and_suppress_frees_one() -> None:
    target = StubObject("T", placed(rotation_z(math.pi / 2), (0.0, 0.0, 0.0)))
    values = binding("ORIENTATION", target).values(ARMATURE, 1.0)
    np.testing.assert_allclose(values["x"], [0.0, 1.0, 0.0], atol=1e-12)
    np.testing.assert_allclose(values["y"], [-1.0, 0.0, 0.0], atol=1e-12)
    assert "point" not in values
    free_x = binding("ORIENTATION", target, suppress="X").values(ARMATURE, 1.0)
    assert free_x["x"] is None and free_x["y"] is not None


def test_target_axes_are_the_columns_over_their_lengths_bit_for_bit() -> None:
    """The target's axes are its matrix's columns divided by their lengths, exactly the
    numbers numpy's column norm gives (the lengths are summed on Python floats)."""
    rng = np.random.default_rng(7)
    for _ in range(200):
        m = np.eye(4)
        m[:3, :] = rng.normal(size=(3, 4)) * 10.0 ** rng.uniform(-5.0, 5.0)
        point, axes = binding("LINE", StubObject("T", m)).target_frame()
        np.testing.assert_array_equal(point, m[:3, 3])
        expected = m[:3, :3] / np.sqrt((m[:3, :3] * m[:3, :3]).sum(axis=0))
        assert axes.tobytes() == expected.tobytes()


@pytest.mark.parametrize(
    ("kind", "key", "axis", "expected"),
    [
        ("LINE", "direction", "X", (0.0, 2.0, 0.0)),
        ("PLANE", "normal", "-Y", (1.0, 0.0, 0.0)),
        ("HALF_SPACE", "normal", "Z", (0.0, 0.0, 1.0)),
    ],
)
def test_line_and_plane_use_the_target_axis_without_scale(
    kind: str, key: str, axis: str, expected: tuple[float, float, float]
) -> None:
    scaled = rotation_z(math.pi / 2) @ np.diag([2.0, 2.0, 2.0, 1.0])
    values = binding(kind, StubObject("T", scaled), target_axis=axis).values(ARMATURE, 1.0)
    np.testing.assert_allclose(
        values[key], np.array(expected) / np.linalg.norm(expected), atol=1e-12
    )


def test_target_bone_point_moves_along_the_bone_by_head_tail() -> None:
    bone = StubTargetBone(placed(np.eye(4), (0.0, 0.0, 1.0)), StubBone("arm", length=2.0))
    target = StubObject("Other", placed(np.eye(4), (5.0, 0.0, 0.0)), StubPose({"arm": bone}))
    values = binding("POSITION", target, target_bone="arm", head_tail=0.25).values(ARMATURE, 1.0)
    np.testing.assert_allclose(values["point"], [5.0, 0.5, 1.0])  # bone Y is its length axis


def test_a_mirrored_armature_sees_goals_reflected_across_yz() -> None:
    mirrored = StubObject("Rig", np.diag([-1.0, 1.0, 1.0, 1.0]))
    target = StubObject("T", placed(np.eye(4), (1.0, 2.0, 3.0)))
    values = binding("POSITION", target).values(mirrored, 1.0)
    np.testing.assert_array_equal(values["point"], [-1.0, 2.0, 3.0])


def test_a_carrier_goal_sits_on_its_own_bone_in_scene_units() -> None:
    armature = StubObject("Rig", np.eye(4))
    armature.data = type("Data", (), {"bones": {"hand": StubBone("hand", length=0.5)}})()  # type: ignore[attr-defined]
    b = binding("POSITION", armature, carrier="hand", head_tail=0.5)
    np.testing.assert_allclose(b.values(armature, 2.0)["point"], [0.0, 0.5, 0.0])


@pytest.mark.parametrize(
    ("target", "message"),
    [
        (DeletedObject(), "'c': its target object was deleted"),
        (StubObject("T", np.full((4, 4), np.nan)), "'c': target 'T' has a non-finite"),
        (StubObject("T", np.diag([0.0, 0.0, 0.0, 1.0])), "'c': target 'T' has zero scale"),
    ],
    ids=["deleted", "nan", "zero-scale"],
)
def test_unusable_targets_raise_the_bridge_error_naming_the_constraint(
    target: object, message: str
) -> None:
    with pytest.raises(BindingError, match=message):
        binding("POSITION", target).values(ARMATURE, 1.0)


def test_a_given_model_space_is_the_one_goals_are_placed_in() -> None:
    """``update_targets`` reads the armature's space once and hands it to every goal."""
    target = StubObject("T", placed(rotation_z(math.pi / 2), (1.0, 2.0, 3.0)))
    mirrored = rig_goals.model_space(np.diag([-1.0, 1.0, 1.0, 1.0]))
    for kind, key in (("POSITION", "point"), ("LINE", "direction")):
        b = binding(kind, target, target_axis="X")
        np.testing.assert_allclose(
            b.values(ARMATURE, 1.0, mirrored)[key],
            b.values(StubObject("Rig", np.diag([-1.0, 1.0, 1.0, 1.0])), 1.0)[key],
            atol=1e-15,
        )


def test_goals_that_read_axes_refuse_a_frame_without_them() -> None:
    target = StubObject("T", placed(np.eye(4), (1.0, 2.0, 3.0)))
    values = binding("AIM", target).values_at(np.ones(3), None)
    assert list(values) == ["point"]
    with pytest.raises(ValueError, match="'c': a LINE goal needs the axes"):
        binding("LINE", target).values_at(np.ones(3), None)
