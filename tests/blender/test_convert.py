"""Convert Built-in IK against Blender's own IK: record the pose Blender's IK gives, Convert,
Solve with Reach, compare the bones.

Where the pose is determined (a hinge knee: the thigh's twist is fixed by the bend plane), the
whole bone matrices are compared (head, tail and the tips of the X and Z axes scaled by the bone
length); with free ball joints the twists are not determined by the goals, so the joints'
positions are compared.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import bpy
import numpy as np
import pytest
from mathutils import Matrix

from tests.blender.conftest import run_op, world_bone_matrix
from tests.blender.reach_scenes import activate, add_empty, last_report

#: Agreement asked for: this share of the rig's size (the chain's length).
AGREEMENT = 1e-3


def make_limb(name: str, points: Sequence[tuple], roll: float = 0.0) -> bpy.types.Object:
    """A connected chain b0, b1, ... through ``points`` (armature space), active, object mode."""
    arm = bpy.data.armatures.new(name)
    obj = bpy.data.objects.new(name, arm)
    bpy.context.scene.collection.objects.link(obj)
    activate(obj)
    bpy.ops.object.mode_set(mode="EDIT")
    previous = None
    for i, (head, tail) in enumerate(itertools.pairwise(points)):
        bone = arm.edit_bones.new(f"b{i}")
        bone.head, bone.tail, bone.roll = head, tail, roll
        if previous is not None:
            bone.parent, bone.use_connect = previous, True
        previous = bone
    bpy.ops.object.mode_set(mode="OBJECT")
    return obj


def add_ik(obj: bpy.types.Object, bone: str, target: bpy.types.Object, chain: int,
           pole: bpy.types.Object | None = None, pole_angle: float = 0.0,
           **settings: object) -> bpy.types.KinematicConstraint:  # fmt: skip
    """A built-in IK constraint on ``bone`` (pole angle in degrees)."""
    ik = obj.pose.bones[bone].constraints.new("IK")
    ik.target, ik.chain_count = target, chain
    if pole is not None:
        ik.pole_target, ik.pole_angle = pole, math.radians(pole_angle)
    for key, value in settings.items():
        setattr(ik, key, value)
    bpy.context.view_layer.update()
    return ik


def bone_points(obj: bpy.types.Object, names: Sequence[str], twist: bool) -> np.ndarray:
    """(n, 3) world points of each bone: head and tail, and with ``twist`` also the ends of
    its X and Z axes scaled by its length (so the twist about the bone counts)."""
    out = []
    for name in names:
        m = world_bone_matrix(obj, name)
        length = obj.data.bones[name].length * np.linalg.norm(m[:3, 1])
        head = m[:3, 3]
        out += [head, head + m[:3, 1] / np.linalg.norm(m[:3, 1]) * length]
        if twist:
            out += [head + m[:3, 0] / np.linalg.norm(m[:3, 0]) * length]
            out += [head + m[:3, 2] / np.linalg.norm(m[:3, 2]) * length]
    return np.array(out)


def convert_and_solve(obj: bpy.types.Object) -> None:
    """Convert Built-in IK, then Solve, through the operators."""
    activate(obj)
    run_op(bpy.ops.reach.convert_ik)
    run_op(bpy.ops.reach.solve)
    bpy.context.view_layer.update()


def chain_size(obj: bpy.types.Object, names: Sequence[str]) -> float:
    """The chain's length in world units."""
    scale = float(np.linalg.norm(np.array(obj.matrix_world)[:3, 1]))
    return scale * sum(obj.data.bones[n].length for n in names)


def agreement(obj: bpy.types.Object, names: Sequence[str], twist: bool = True) -> float:
    """Blender's IK pose against Reach's after Convert and Solve: the largest point distance
    divided by the chain's size."""
    blender = bone_points(obj, names, twist)
    convert_and_solve(obj)
    assert last_report(obj).satisfied, last_report(obj).text()
    reach = bone_points(obj, names, twist)
    return float(np.max(np.linalg.norm(reach - blender, axis=1))) / chain_size(obj, names)


LEG = [(0.0, 0.0, 1.0), (0.0, -0.05, 0.52), (0.0, 0.0, 0.05)]  # knee bent forwards (-Y)
ARM = [(0.2, 0.0, 1.4), (0.48, 0.04, 1.4), (0.74, 0.0, 1.4)]  # elbow bent backwards (+Y)


def hinge(obj: bpy.types.Object, bone: str) -> None:
    """Make ``bone`` a hinge about its X axis (IK locks on Y and Z)."""
    pb = obj.pose.bones[bone]
    pb.lock_ik_y = pb.lock_ik_z = True


@pytest.mark.parametrize("pole_angle", [-180.0, -120.0, -60.0, 0.0, 60.0, 120.0])
def test_pole_leg_with_hinge_knee_matches_blender(
    clean_scene: bpy.types.Scene, pole_angle: float
) -> None:
    """Every pole angle, a quarter turn and more included (the chain turns about its root)."""
    obj = make_limb("Leg", LEG)
    hinge(obj, "b1")
    target = add_empty("foot target", (0.15, -0.25, 0.3))
    pole = add_empty("knee pole", (0.4, -1.2, 0.6))
    add_ik(obj, "b1", target, 2, pole, pole_angle)
    assert agreement(obj, ["b0", "b1"]) < AGREEMENT


@pytest.mark.parametrize("pole_angle", [-90.0, 30.0, 150.0])
def test_pole_leg_on_a_mirrored_armature_matches_blender(
    clean_scene: bpy.types.Scene, pole_angle: float
) -> None:
    """Negative X scale: Blender builds the pole's frames in armature space."""
    obj = make_limb("Leg", LEG)
    obj.scale = (-1.0, 1.0, 1.0)
    hinge(obj, "b1")
    bpy.context.view_layer.update()
    target = add_empty("foot target", (0.15, -0.25, 0.3))
    pole = add_empty("knee pole", (0.4, -1.2, 0.6))
    add_ik(obj, "b1", target, 2, pole, pole_angle)
    assert agreement(obj, ["b0", "b1"]) < AGREEMENT


@pytest.mark.parametrize("pole_angle", [-90.0, 90.0])
def test_pole_leg_with_ball_knee_matches_blender(
    clean_scene: bpy.types.Scene, pole_angle: float
) -> None:
    obj = make_limb("Leg", LEG, roll=0.4)
    target = add_empty("foot target", (-0.2, 0.1, 0.35))
    pole = add_empty("knee pole", (-0.6, -1.0, 0.5))
    add_ik(obj, "b1", target, 2, pole, pole_angle)
    assert agreement(obj, ["b0", "b1"], twist=False) < AGREEMENT


def test_pole_arm_on_a_moved_scaled_armature_matches_blender(
    clean_scene: bpy.types.Scene,
) -> None:
    obj = make_limb("Arm", ARM, roll=math.pi / 2)  # X, the hinge axis, normal to the bend
    obj.location, obj.scale = (0.3, 0.2, -0.1), (1.5, 1.5, 1.5)
    obj.rotation_euler = (0.0, 0.0, 0.7)
    hinge(obj, "b1")
    bpy.context.view_layer.update()
    root = np.array(obj.matrix_world) @ np.array([*ARM[0], 1.0])
    target = add_empty("hand target", tuple(root[:3] + np.array([0.3, -0.4, -0.35])))
    pole = add_empty("elbow pole", tuple(root[:3] + np.array([0.4, 1.0, -0.2])))
    add_ik(obj, "b1", target, 2, pole, -90.0)
    assert agreement(obj, ["b0", "b1"]) < AGREEMENT


def test_metarig_leg_and_arm_match_blender(rigify_metarig: bpy.types.Object) -> None:
    """Rigify's metarig: the knee is a hinge (its X axis is normal to the leg's bend); the
    elbow's X axis is 12 degrees off the arm's bend, so the arm keeps ball joints."""
    obj = rigify_metarig
    hinge(obj, "shin.L")
    knee, elbow = (world_bone_matrix(obj, b)[:3, 3] for b in ("shin.L", "forearm.L"))
    foot = add_empty("foot target", tuple(knee + np.array([0.1, -0.2, -0.35])))
    knee_pole = add_empty("knee pole", tuple(knee + np.array([0.0, -1.0, 0.0])))
    add_ik(obj, "shin.L", foot, 2, knee_pole, -90.0)
    hand = add_empty("hand target", tuple(elbow + np.array([0.05, -0.25, 0.1])))
    elbow_pole = add_empty("elbow pole", tuple(elbow + np.array([0.0, 1.0, 0.0])))
    add_ik(obj, "forearm.L", hand, 2, elbow_pole, 0.0)
    leg, arm = ["thigh.L", "shin.L"], ["upper_arm.L", "forearm.L"]
    blender_leg, blender_arm = bone_points(obj, leg, True), bone_points(obj, arm, False)
    convert_and_solve(obj)
    assert last_report(obj).satisfied, last_report(obj).text()
    leg_error = np.linalg.norm(bone_points(obj, leg, True) - blender_leg, axis=1).max()
    arm_error = np.linalg.norm(bone_points(obj, arm, False) - blender_arm, axis=1).max()
    assert leg_error < AGREEMENT * chain_size(obj, leg)
    assert arm_error < AGREEMENT * chain_size(obj, arm)


def bend_normal(obj: bpy.types.Object, root: str, joint: str, target: np.ndarray) -> np.ndarray:
    """Unit normal of the plane through the root's head, a joint (a bone's tail), the target."""
    o = world_bone_matrix(obj, root)[:3, 3]
    m = world_bone_matrix(obj, joint)
    k = m[:3, 3] + m[:3, 1] / np.linalg.norm(m[:3, 1]) * obj.data.bones[joint].length
    n = np.cross(k - o, target - o)
    return n / np.linalg.norm(n)


def test_pole_on_a_four_bone_chain_reaches_and_keeps_blenders_plane(
    clean_scene: bpy.types.Scene,
) -> None:
    points = [(0.0, 0.0, 2.0), (0.0, -0.1, 1.5), (0.0, -0.2, 1.0), (0.0, -0.1, 0.5), (0, 0, 0)]
    obj = make_limb("Tail", points)
    target = add_empty("target", (0.4, -0.6, 0.6))
    add_ik(obj, "b3", target, 4, add_empty("pole", (1.0, -1.0, 1.0)), 30.0)
    goal = np.array(target.location)
    blender = [bend_normal(obj, "b0", joint, goal) for joint in ("b0", "b1", "b2")]
    convert_and_solve(obj)
    tip = world_bone_matrix(obj, "b3") @ np.array([0.0, obj.data.bones["b3"].length, 0.0, 1.0])
    assert np.linalg.norm(tip[:3] - goal) < 1e-4
    for joint, normal in zip(("b0", "b1", "b2"), blender, strict=True):
        angle = math.degrees(math.acos(min(1.0, abs(bend_normal(obj, "b0", joint, goal) @ normal))))
        assert angle < 3.0, (joint, angle)


def test_animated_pole_bake_follows_blender(clean_scene: bpy.types.Scene) -> None:
    """The pole swings a third of a turn round the leg and the target moves: every baked frame
    against Blender's IK at that frame."""
    scene = clean_scene
    scene.frame_start, scene.frame_end = 1, 9
    obj = make_limb("Leg", LEG)
    hinge(obj, "b1")
    target, pole = add_empty("foot target", (0.0, 0.0, 0.0)), add_empty("pole", (0, 0, 0))
    for frame, angle in ((1, -0.2), (9, 2.0)):
        target.location = (0.3 * math.sin(angle), -0.3 * math.cos(angle), 0.35)
        pole.location = (1.2 * math.sin(angle), -1.2 * math.cos(angle), 0.6)
        target.keyframe_insert("location", frame=frame)
        pole.keyframe_insert("location", frame=frame)
    add_ik(obj, "b1", target, 2, pole, -90.0)
    blender = {}
    for frame in range(1, 10):
        scene.frame_set(frame)
        blender[frame] = bone_points(obj, ["b0", "b1"], True)
    activate(obj)
    run_op(bpy.ops.reach.convert_ik)
    run_op(bpy.ops.reach.bake)
    assert last_report(obj).satisfied, last_report(obj).text()
    size = chain_size(obj, ["b0", "b1"])
    for frame in range(1, 10):
        scene.frame_set(frame)
        error = np.linalg.norm(bone_points(obj, ["b0", "b1"], True) - blender[frame], axis=1)
        assert error.max() < AGREEMENT * size, (frame, error.max())


def test_use_tail_off_chain_counts_from_the_parent(clean_scene: bpy.types.Scene) -> None:
    """``use_tail = False``: Blender's chain ends at the parent's tail and counts from it."""
    obj = make_limb("Leg", [*LEG, (0.0, -0.2, 0.0)])
    hinge(obj, "b1")
    target = add_empty("ankle target", (0.1, -0.3, 0.3))
    add_ik(obj, "b2", target, 2, add_empty("pole", (0.3, -1.0, 0.6)), -90.0, use_tail=False)
    assert agreement(obj, ["b0", "b1", "b2"]) < AGREEMENT
    (item, *_poles) = obj.reach_ik.constraints
    assert (item.bone, item.effector, item.chain_length) == ("b1", "TAIL", 2)


def test_bone_targets_head_and_pole_bone(clean_scene: bpy.types.Scene) -> None:
    """Target and pole are bones of a control armature: the chain goes to the target bone's
    head (the IK constraint has no head/tail setting) and the pole bone's head."""
    obj = make_limb("Leg", LEG)
    hinge(obj, "b1")
    controls = make_limb("Controls", [(0.1, -0.3, 0.3), (0.1, -0.5, 0.3), (0.5, -1.2, 0.6)])
    controls.location = (0.05, 0.0, 0.0)
    bpy.context.view_layer.update()
    add_ik(obj, "b1", controls, 2, controls, -90.0, subtarget="b0", pole_subtarget="b1")
    assert agreement(obj, ["b0", "b1"]) < AGREEMENT
    head = world_bone_matrix(controls, "b0")[:3, 3]
    tip = world_bone_matrix(obj, "b1") @ np.array([0.0, obj.data.bones["b1"].length, 0.0, 1.0])
    assert np.linalg.norm(tip[:3] - head) < 1e-4


@pytest.mark.parametrize("switch", ["mute", "enabled", "influence", "keyed mute"])
def test_driven_switch_stays_off_after_convert(clean_scene: bpy.types.Scene, switch: str) -> None:
    """Rigify drives constraint switches: Convert mutes a driver (or the F-curve of keys) on
    ``mute`` / ``enabled`` too, so the IK stays off on Blender's evaluated pose after a frame
    change; a driven influence cannot bring a muted constraint back."""
    obj = make_limb("Leg", LEG)
    target = add_empty("foot target", (0.2, -0.3, 0.4))
    ik = add_ik(obj, "b1", target, 2)
    if switch == "keyed mute":
        obj.keyframe_insert(ik.path_from_id("mute"), frame=1)
    else:
        driver = ik.driver_add(switch).driver
        driver.type, driver.expression = "SCRIPTED", "0" if switch == "mute" else "1"
    rest_tip = np.array([*obj.data.bones["b1"].tail_local, 1.0])  # the armature is at the origin
    clean_scene.frame_set(2)
    tip = world_bone_matrix(obj, "b1") @ np.array([0.0, obj.data.bones["b1"].length, 0.0, 1.0])
    assert np.linalg.norm(tip[:3] - np.array(target.location)) < 1e-3  # Blender's IK acts
    activate(obj)
    run_op(bpy.ops.reach.convert_ik)
    for frame in (3, 1):
        clean_scene.frame_set(frame)
        bpy.context.evaluated_depsgraph_get().update()
        tip = world_bone_matrix(obj, "b1") @ np.array([0, obj.data.bones["b1"].length, 0, 1])
        assert obj.pose.bones["b1"].constraints[ik.name].mute
        assert np.allclose(tip, rest_tip, atol=1e-6), frame  # Blender's IK is really off


def test_itasc_settings_reported_as_not_converted(
    clean_scene: bpy.types.Scene, extension: object
) -> None:
    obj = make_limb("Leg", [*LEG, (0.0, -0.2, 0.0)])
    obj.pose.ik_solver = "ITASC"
    target = add_empty("foot target", (0.1, -0.3, 0.3))
    pole = add_empty("pole", (0.4, -1.2, 0.6))
    add_ik(obj, "b1", target, 2, pole, lock_location_x=False, influence=0.5)
    add_ik(obj, "b2", target, 3, ik_type="DISTANCE")
    conversion = extension.bridge.edit.convert.convert_builtin_ik(bpy.context, obj)
    assert conversion.converted == ("b1 IK",)
    assert conversion.skipped == (
        "b1 IK iTaSC free location x (not constrained)",
        "b1 IK influence 0.5 (Reach solves at full influence)",
        "b1 IK pole target (iTaSC bends the chain differently from Standard IK)",
        "b2 IK (iTaSC distance type)",
        "iTaSC solver settings (mode, precision, iterations: Reach has its own)",
    )
    assert obj.pose.bones["b1"].constraints["IK"].mute
    assert not obj.pose.bones["b2"].constraints["IK"].mute


def test_rigify_generated_rig_stays_converted(
    rigify_metarig: bpy.types.Object, extension: object
) -> None:
    """A rig generated by Rigify drives the ``mute`` of both IK constraints of each limb (with
    and without pole). After Convert they stay muted through frame changes: the IK chain's
    evaluated pose is the one Blender gives with the IK constraints removed. Rigify's locked
    rotation channels on the IK chain, which Blender's IK ignores, are released (and named)."""
    run_op(bpy.ops.pose.rigify_generate)
    rig = bpy.data.objects["rig"]
    shin = rig.pose.bones["MCH-shin_ik.L"]
    chain = [shin.parent.name, shin.name]
    foot = rig.pose.bones["foot_ik.L"]  # a fifth of the way up to the hip, and forwards
    lift = 0.2 * (np.array(shin.parent.head) - np.array(foot.head)) + np.array([0.0, -0.1, 0.0])
    foot.matrix = Matrix.Translation(lift.tolist()) @ foot.matrix
    bpy.context.view_layer.update()
    blender_ik = bone_points(rig, chain, True)
    conversion = extension.bridge.edit.convert.convert_builtin_ik(bpy.context, rig)
    assert "MCH-shin_ik.L IK" in conversion.converted
    assert (
        "MCH-shin_ik.L IK Lock Rotation XZ of 'thigh_ik.L' no longer holds the solve, as in "
        "Blender's IK (bone setting Hold Lock Rotation turned off)"
    ) in conversion.notes
    assert not rig.pose.bones["thigh_ik.L"].reach_ik.hold_lock_rotation
    assert 'muted the driver on pose.bones["MCH-shin_ik.L"].constraints["IK.001"].mute' in (
        conversion.notes
    )
    mutes = [d for d in rig.animation_data.drivers if ".constraints[" in d.data_path]
    assert mutes and all(d.mute for d in mutes if 'constraints["IK' in d.data_path)
    for frame in (2, 1):
        bpy.context.scene.frame_set(frame)
        assert all(c.mute for c in shin.constraints if c.type == "IK")
    converted = bone_points(rig, chain, True)
    assert np.abs(converted - blender_ik).max() > 0.1  # the IK had moved the leg
    for con in [c for c in shin.constraints if c.type == "IK"]:
        shin.constraints.remove(con)
    bpy.context.view_layer.update()
    assert np.allclose(bone_points(rig, chain, True), converted, atol=1e-6)


def test_locked_thigh_turns_as_with_blenders_ik(clean_scene: bpy.types.Scene) -> None:
    """Defect: a thigh with Lock Rotation X and Z (as Rigify locks its IK thigh) is turned by
    Blender's IK anyway, and Reach kept the lock, so the converted leg missed the foot that
    Blender's IK reached. Convert now turns the bone's Hold Lock Rotation off."""
    obj = make_limb("Leg", LEG)
    thigh = obj.pose.bones["b0"]
    thigh.rotation_mode = "ZXY"
    thigh.lock_rotation = (True, False, True)
    hinge(obj, "b1")
    pole = add_empty("knee pole", (0.4, -1.2, 0.6))
    add_ik(obj, "b1", add_empty("foot target", (0.15, -0.25, 0.3)), 2, pole, 30.0)
    assert agreement(obj, ["b0", "b1"]) < AGREEMENT
    assert tuple(thigh.lock_rotation) == (True, False, True)  # the user's locks stay
    assert not thigh.reach_ik.hold_lock_rotation


def test_what_blender_does_differently_is_reported(rigify_metarig: bpy.types.Object,
                                                   extension: object) -> None:  # fmt: skip
    """A hinge whose axis is off the bend plane's normal (the metarig's elbow, 12 degrees)
    makes Blender leave the plane; IK Stretch on a chain whose IK does not stretch."""
    obj = rigify_metarig
    hinge(obj, "forearm.L")
    obj.pose.bones["thigh.L"].ik_stretch = 0.2
    elbow = world_bone_matrix(obj, "forearm.L")[:3, 3]
    pole = add_empty("elbow pole", tuple(elbow + np.array([0.0, 1.0, 0.0])))
    add_ik(obj, "forearm.L", add_empty("hand", tuple(elbow + np.array([0.1, -0.2, 0.0]))), 2, pole)
    add_ik(obj, "shin.L", add_empty("foot", (0.1, -0.2, 0.3)), 2, use_stretch=False)
    conversion = extension.bridge.edit.convert.convert_builtin_ik(bpy.context, obj)
    assert conversion.skipped == (
        "forearm.L IK pole plane approximate: hinge 'forearm.L' turns about an axis 12 degrees "
        "off the bend plane's normal (Blender's IK leaves the plane)",
        "shin.L IK Stretch off while thigh.L have IK Stretch (Blender keeps their length, "
        "Reach stretches them: set their IK Stretch to 0 to match)",
    )


def test_pole_in_a_shared_ik_tree_is_reported(
    clean_scene: bpy.types.Scene, extension: object
) -> None:
    """Two IK chains from one root bone make one tree in Blender, whose solver then ignores the
    pole (checked here on Blender's own pose): Convert reports the pole, makes no plane."""
    arm = bpy.data.armatures.new("Y")
    obj = bpy.data.objects.new("Y", arm)
    clean_scene.collection.objects.link(obj)
    activate(obj)
    bpy.ops.object.mode_set(mode="EDIT")
    hip = arm.edit_bones.new("hip")
    hip.head, hip.tail = (0.0, 0.0, 1.0), (0.0, -0.05, 0.5)
    for name, x in (("a", 0.1), ("b", -0.1)):
        bone = arm.edit_bones.new(name)
        bone.head, bone.tail, bone.parent, bone.use_connect = hip.tail, (x, 0, 0.05), hip, True
    bpy.ops.object.mode_set(mode="OBJECT")
    ik = add_ik(obj, "a", add_empty("Ta", (0.15, -0.25, 0.3)), 2, add_empty("P", (0.4, -1, 0.6)))
    add_ik(obj, "b", add_empty("Tb", (-0.1, -0.2, 0.35)), 2)
    with_pole = bone_points(obj, ["hip", "a", "b"], True)
    ik.pole_target = None
    bpy.context.view_layer.update()
    assert np.array_equal(bone_points(obj, ["hip", "a", "b"], True), with_pole)
    ik.pole_target = bpy.data.objects["P"]
    conversion = extension.bridge.edit.convert.convert_builtin_ik(bpy.context, obj)
    assert conversion.converted == ("a IK", "b IK")
    assert conversion.skipped == ("a IK pole target (Blender ignores it: one IK tree with b IK)",)
