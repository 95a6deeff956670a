"""IK Stretch as Blender's own IK does it: the stretched bone is scaled by ``S`` on all three
axes, a chain bone below it by ``1 / S`` (it keeps its own size), bones outside the chain
inherit the scale. Each case solves the same rig and target with Blender's IK (stretch on)
and with Reach, and compares Blender's evaluation of both: the pose scale, the tip and the
bones below. The cases are chosen so that the pose is determined (one answer)."""

from __future__ import annotations

import bpy
import numpy as np
import pytest

from tests.blender.conftest import run_op, world_bone_matrix, world_bone_tail
from tests.blender.reach_scenes import (
    activate,
    add_constraint,
    add_empty,
    call_reach,
    channel_set,
    last_report,
    make_chain,
)

#: Blender's IK stops within its own tolerance; Reach's solve is exact to 1e-5 units.
BLENDER_IK_TOLERANCE = 2e-3


def _evaluated(obj: bpy.types.Object) -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Per bone: world column lengths (3,), world tail (3,), world Y axis (3,)."""
    bpy.context.view_layer.update()
    out = {}
    for pb in obj.pose.bones:
        m = world_bone_matrix(obj, pb.name)[:3, :3]
        norms = np.linalg.norm(m, axis=0)
        out[pb.name] = (norms, world_bone_tail(obj, pb.name), m[:, 1] / norms[1])
    return out


def _blender_ik(obj: bpy.types.Object, bone: str, target: bpy.types.Object, count: int) -> dict:
    """Blender's IK with stretch on this chain and target: its evaluated bones; then muted."""
    con = obj.pose.bones[bone].constraints.new("IK")
    con.target, con.chain_count, con.use_stretch, con.iterations = target, count, True, 5000
    evaluated = _evaluated(obj)
    con.mute = True
    bpy.context.view_layer.update()
    return evaluated


def _reach(
    obj: bpy.types.Object, bone: str, target: bpy.types.Object, count: int, reachable: bool = True
) -> dict:
    add_constraint(obj, bone, target, "POSITION", chain_mode="LENGTH", chain_length=count)
    activate(obj)
    run_op(bpy.ops.reach.solve)
    report = last_report(obj)
    assert report.satisfied == reachable, report.text()
    assert report.passes == 0, report.text()  # the model is exact: Blender agrees with it
    return _evaluated(obj)


def _compare(blender: dict, reach: dict, tolerance: float) -> None:
    for name, (norms, tail, y_axis) in blender.items():
        r_norms, r_tail, r_y = reach[name]
        assert np.allclose(r_norms, norms, atol=tolerance), (name, r_norms, norms)
        assert np.linalg.norm(r_tail - tail) < tolerance, (name, r_tail, tail)
        assert np.linalg.norm(r_y - y_axis) < tolerance, (name, r_y, y_axis)


@pytest.mark.parametrize(
    "scale", [(1.0, 1.0, 1.0), (-1.0, 1.0, 1.0), (2.0, 2.0, 2.0)], ids=["plain", "mirrored", "x2"]
)
def test_one_stretched_bone_matches_blenders_ik(
    clean_scene: bpy.types.Scene, scale: tuple[float, float, float]
) -> None:
    obj = make_chain(n=4)  # connected: Blender's stretch is a scale, not a location
    obj.scale = scale
    obj.pose.bones["b1"].ik_stretch = 0.5
    target = add_empty("T", (0.8, 0.3, 3.2))  # x2: inside the reach, so b1 shrinks
    bpy.context.view_layer.update()
    head = obj.matrix_world @ obj.pose.bones["b1"].head
    stretch = (target.location - head).length / abs(scale[1])
    blender = _blender_ik(obj, "b1", target, 1)
    assert blender["b1"][0] == pytest.approx([stretch * abs(scale[1])] * 3, abs=2e-3)
    reach = _reach(obj, "b1", target, 1)
    pb = obj.pose.bones["b1"]
    assert np.array(pb.scale) == pytest.approx([stretch] * 3, abs=1e-5)  # the pose scale
    assert np.linalg.norm(reach["b1"][1] - np.array(target.location)) < 1e-5
    _compare(blender, reach, BLENDER_IK_TOLERANCE)  # b2, b3 (outside the chain) inherit it


@pytest.mark.parametrize("inherit", ["FULL", "NONE"])
def test_a_chain_bone_below_a_stretched_one_keeps_its_size(
    clean_scene: bpy.types.Scene, inherit: str
) -> None:
    obj = make_chain(n=4)
    obj.data.bones["b2"].inherit_scale = inherit
    b1 = obj.pose.bones["b1"]
    b1.ik_stretch = 0.5
    b1.lock_ik_x = b1.lock_ik_y = b1.lock_ik_z = True  # b1 only stretches
    # b2's head is at (0, 0, 1 + S). The target is 1.3 units beside the line b1 stretches
    # along, beyond b2's reach, so the closest pose is unique: S = 1.4 and b2 pointing at it.
    target = add_empty("T", (1.3, 0.0, 2.4))
    blender = _blender_ik(obj, "b2", target, 2)
    assert blender["b1"][0] == pytest.approx([1.4] * 3, abs=BLENDER_IK_TOLERANCE)
    assert blender["b2"][0] == pytest.approx([1.0] * 3, abs=BLENDER_IK_TOLERANCE)
    reach = _reach(obj, "b2", target, 2, reachable=False)
    assert np.array(b1.scale) == pytest.approx([1.4] * 3, abs=1e-5)
    written = 1 / 1.4 if inherit == "FULL" else 1.0  # a bone inheriting no scale needs none
    assert np.array(obj.pose.bones["b2"].scale) == pytest.approx([written] * 3, abs=1e-5)
    assert np.linalg.norm(reach["b2"][1] - np.array([1.0, 0.0, 2.4])) < 1e-5
    _compare(blender, reach, BLENDER_IK_TOLERANCE)


def test_effectors_and_children_anywhere_on_a_stretched_bone(
    clean_scene: bpy.types.Scene,
) -> None:
    """An effector half-way along the stretched bone and a child beside it (not connected):
    both move with the scale as Blender evaluates it, reached with no correction pass."""
    obj = make_chain(n=2)
    activate(obj)
    bpy.ops.object.mode_set(mode="EDIT")
    side = obj.data.edit_bones.new("side")
    side.head, side.tail, side.parent = (0.3, 0.0, 1.5), (0.3, 0.0, 2.0), obj.data.edit_bones["b1"]
    bpy.ops.object.mode_set(mode="OBJECT")
    obj.pose.bones["b1"].ik_stretch = 1.0
    mid = add_empty("Mid", (0.2, 0.4, 2.2))
    add_constraint(obj, "b1", mid, "POSITION", effector="OFFSET", offset=0.5)
    reach = _reach(obj, "side", add_empty("S", (0.9, 0.3, 2.9)), 2)
    assert last_report(obj).constraints[0].satisfied
    assert reach["b1"][0][0] > 1.2  # stretched


@pytest.mark.parametrize("operator", ["solve_and_key", "bake"])
def test_stretch_is_keyed_on_the_scale_channels(
    clean_scene: bpy.types.Scene, operator: str
) -> None:
    obj = make_chain(n=3)
    obj.pose.bones["b1"].ik_stretch = 0.5
    target = add_empty("T", (0.5, 0.0, 3.6))
    add_constraint(obj, "b2", target, "POSITION", chain_mode="LENGTH", chain_length=2)
    clean_scene.frame_start, clean_scene.frame_end = 1, 3
    activate(obj)
    call_reach(operator)
    keyed = channel_set(obj)
    scale = 'pose.bones["{}"].scale'
    assert {(scale.format(b), k) for b in ("b1", "b2") for k in range(3)} <= keyed
    assert (scale.format("b0"), 0) not in keyed
    clean_scene.frame_set(2)
    assert np.linalg.norm(world_bone_tail(obj, "b2") - np.array(target.location)) < 1e-5


def test_stretched_bones_below_stretched_bones(clean_scene: bpy.types.Scene) -> None:
    """Two stretched bones in a row: the lower one's scale channel is its ratio to the upper
    one's, and Blender's evaluation of both is the model's (no correction pass)."""
    obj = make_chain(n=3)
    for name in ("b1", "b2"):
        obj.pose.bones[name].ik_stretch = 1.0
    target = add_empty("T", (1.5, 0.4, 4.5))  # 4.76 units from b1's head: both must stretch
    reach = _reach(obj, "b2", target, 2)
    s1, s2 = reach["b1"][0][0], reach["b2"][0][0]
    assert s1 > 1.0 and s2 > 1.0
    assert obj.pose.bones["b2"].scale[0] == pytest.approx(s2 / s1, rel=1e-5)
    assert np.linalg.norm(reach["b2"][1] - np.array(target.location)) < 1e-5
