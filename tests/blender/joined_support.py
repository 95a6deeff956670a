"""Support for the tests of several armatures solved as one system (not a test file): the
two-arm scene, and a bone rotation the model does not reproduce.

Import with ``from tests.blender.joined_support import two_arms``.
"""

from __future__ import annotations

import bpy

from tests.blender.reach_scenes import activate, add_constraint, add_empty, make_chain


def two_arms() -> tuple[bpy.types.Object, bpy.types.Object]:
    """A at the origin and B 2.5 along X, two unit bones each along +Z; A's tip held on B's
    tip (A's constraint targets armature B, Target Bone ``b1``, its tail), B's tip on the
    plane z = 1.2 (the empty "Plane"). A is active, in Pose mode, nothing selected."""
    b = make_chain("B", n=2)
    b.location = (2.5, 0.0, 0.0)
    a = make_chain("A", n=2)
    plane = add_empty("Plane", (2.5, 0.0, 1.2))
    add_constraint(b, "b1", plane, "PLANE", target_axis="Z")
    add_constraint(a, "b1", b, "POSITION", target_bone="b1", target_head_tail=1.0)
    for obj in bpy.context.view_layer.objects:
        obj.select_set(False)
    activate(a)
    bpy.ops.object.mode_set(mode="POSE")
    return a, b


def copy_rotation_on_a(a: bpy.types.Object) -> None:
    """A Copy Rotation at influence 0.2 on A's tip bone (towards an empty "source"), which the
    model does not reproduce: a joined Solve's first pose misses on Blender's pose (0.47 units)
    and correction passes run. A is left active, in Object mode."""
    bpy.ops.object.mode_set(mode="OBJECT")
    con = a.pose.bones["b1"].constraints.new("COPY_ROTATION")
    con.target = add_empty("source", (0.4, -0.3, 1.2), (0.3, -0.5, 0.8))
    con.influence = 0.2
    activate(a)
