"""Which bone carries a target, and the target's offset in that bone's frame, without Blender.

``bridge.rig.carried_targets`` reads the target's parenting (or its one Child Of / Copy
Transforms) and
Blender's matrices through the objects passed in. The offset is checked against the world
matrix Blender's own formulas give (``ob_parbone``: the child at the bone's tail;
``childof_evaluate``; ``copy_transforms``), expressed in the bone's unit frame.
(On Blender's evaluated scene: ``tests/blender/test_carried_targets.py``.)
"""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np

from tests.bridge_stubs import bridge_module

carried = bridge_module("rig.carried_targets")

BONE_LENGTH = 1.5


def _matrix(angle: float, axis: int, translation: tuple, scale: float = 1.0) -> np.ndarray:
    """(4, 4): ``scale`` times a rotation by ``angle`` about world axis ``axis``, then a move."""
    c, s = math.cos(angle), math.sin(angle)
    i, j = [k for k in range(3) if k != axis]
    m = np.eye(4)
    m[i, i], m[i, j], m[j, i], m[j, j] = c, -s, s, c
    m[:3, :3] *= scale
    m[:3, 3] = translation
    return m


def _armature(scale: float = 2.0, pose_scale: float = 1.0) -> SimpleNamespace:
    bones = {
        "root": SimpleNamespace(name="root", length=1.0, use_relative_parent=False),
        "hand": SimpleNamespace(name="hand", length=BONE_LENGTH, use_relative_parent=False),
    }
    pose_matrix = _matrix(0.7, 0, (0.2, 0.5, 1.0))
    pose_matrix[:3, :3] *= pose_scale
    return SimpleNamespace(
        name="Arm",
        data=SimpleNamespace(bones=bones),
        matrix_world=_matrix(0.3, 2, (1.0, -2.0, 0.5), scale),
        pose=SimpleNamespace(bones={"hand": SimpleNamespace(matrix=pose_matrix)}),
    )


def _object(name: str, parent: object = None, parent_type: str = "OBJECT", bone: str = "",
            constraints: tuple = ()) -> SimpleNamespace:  # fmt: skip
    return SimpleNamespace(
        name=name, parent=parent, parent_type=parent_type, parent_bone=bone,
        constraints=list(constraints),
        matrix_parent_inverse=_matrix(0.4, 1, (0.1, -0.3, 0.2), 0.8),
        matrix_basis=_matrix(-0.9, 2, (0.5, 0.25, -0.4)),
    )  # fmt: skip


def _child_of(arm: object, **settings: object) -> SimpleNamespace:
    flags = {f"use_{k}_{a}": True for k in ("location", "rotation", "scale") for a in "xyz"}
    inverse = _matrix(1.1, 0, (0.3, 0.0, -0.6))
    values = dict(type="CHILD_OF", mute=False, influence=1.0, target=arm, subtarget="hand",
                  set_inverse_pending=False, inverse_matrix=inverse)  # fmt: skip
    return SimpleNamespace(**{**values, **flags, **settings})


def _bone_frame(arm: SimpleNamespace) -> tuple[np.ndarray, np.ndarray]:
    """World matrix (4, 4) of bone "hand" (scaled) and its unit frame."""
    world = arm.matrix_world @ arm.pose.bones["hand"].matrix
    frame = world.copy()
    frame[:3, :3] /= np.linalg.norm(frame[:3, :3], axis=0)
    return world, frame


def _local(obj: SimpleNamespace) -> np.ndarray:
    return obj.matrix_parent_inverse @ obj.matrix_basis


def _moves(bone: str) -> bool:
    return bone == "hand"


def test_a_bone_parented_target_hangs_at_the_tail() -> None:
    arm = _armature()
    holder = _object("P", arm, "BONE", "hand")
    target = _object("T", holder)
    carry = carried.find_carry(arm, target, _moves)
    assert carry == carried.Carry("hand", (holder, target))
    world, frame = _bone_frame(arm)
    tail = np.eye(4)
    tail[1, 3] = BONE_LENGTH
    blender = world @ tail @ _local(holder) @ _local(target)  # ob_parbone, then an object parent
    offset = carried.carried_offset(arm, carry, 2.0)
    np.testing.assert_allclose(offset, np.linalg.inv(frame) @ blender, atol=1e-12)


def test_pose_scale_is_kept_in_the_offset() -> None:
    arm = _armature(pose_scale=1.3)
    target = _object("T", arm, "BONE", "hand")
    carry = carried.find_carry(arm, target, _moves)
    world, frame = _bone_frame(arm)
    tail = np.eye(4)
    tail[1, 3] = BONE_LENGTH
    offset = carried.carried_offset(arm, carry, 2.0)
    np.testing.assert_allclose(offset, np.linalg.inv(frame) @ world @ tail @ _local(target),
                               atol=1e-12)  # fmt: skip


def test_a_full_child_of_and_a_copy_transforms_carry() -> None:
    arm = _armature()
    world, frame = _bone_frame(arm)
    con = _child_of(arm)
    target = _object("T", constraints=(con,))
    carry = carried.find_carry(arm, target, _moves)
    assert carry == carried.Carry("hand", (target,), con)
    blender = world @ con.inverse_matrix @ target.matrix_basis  # childof_evaluate
    offset = carried.carried_offset(arm, carry, 2.0)
    np.testing.assert_allclose(offset, np.linalg.inv(frame) @ blender, atol=1e-12)
    copy = SimpleNamespace(type="COPY_TRANSFORMS", mute=False, influence=1.0, target=arm,
                           subtarget="hand", mix_mode="REPLACE", target_space="WORLD",
                           owner_space="WORLD", use_bbone_shape=False, head_tail=0.25)  # fmt: skip
    target = _object("T", constraints=(copy,))
    carry = carried.find_carry(arm, target, _moves)
    head_tail = np.eye(4)
    head_tail[1, 3] = 0.25 * BONE_LENGTH
    offset = carried.carried_offset(arm, carry, 2.0)
    np.testing.assert_allclose(offset, np.linalg.inv(frame) @ world @ head_tail, atol=1e-12)


def test_what_is_not_carried() -> None:
    arm = _armature()
    assert carried.find_carry(arm, _object("T", arm, "BONE", "root"), _moves) is None  # static
    assert carried.find_carry(arm, _object("T", arm, "OBJECT"), _moves) is None
    arm.data.bones["hand"].use_relative_parent = True
    assert carried.find_carry(arm, _object("T", arm, "BONE", "hand"), _moves) is None
    arm.data.bones["hand"].use_relative_parent = False
    floor = SimpleNamespace(type="LIMIT_LOCATION", mute=False, influence=1.0)
    constrained = _object("T", arm, "BONE", "hand", constraints=(floor,))
    assert carried.find_carry(arm, constrained, _moves) is None
    for partial in (_child_of(arm, use_scale_y=False), _child_of(arm, influence=0.5),
                    _child_of(arm, set_inverse_pending=True)):  # fmt: skip
        assert carried.find_carry(arm, _object("T", constraints=(partial,)), _moves) is None
    parented = _object("T", _object("P"), constraints=(_child_of(arm),))  # parent not modelled
    assert carried.find_carry(arm, parented, _moves) is None
