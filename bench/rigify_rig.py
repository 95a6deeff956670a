"""Rigify's generated human, the production rig of the Blender benches.

``bpy.ops.pose.rigify_generate()`` on Rigify's human metarig gives the rig most Blender
animators pose (about 700 bones, drivers, IK chains on the arms and legs whose targets follow
the ``hand_ik`` / ``foot_ik`` controls). :func:`generated_rig` makes it in an empty file and
converts its built-in IK (``bpy.ops.reach.convert_ik``), as a new user would; :func:`drag_to`
moves a control along the benches' circle. Generating takes several seconds of bpy.
"""

from __future__ import annotations

import math

import numpy as np

#: The control dragged by the benches (a pose bone of the generated rig).
CONTROL = "hand_ik.L"
#: Radius of the dragged circle, scene units, and its steps (one turn).
RADIUS = 0.12
STEPS = 120


def generated_rig() -> object:
    """An empty file with Rigify's generated human, its built-in IK converted to Reach
    constraints; returns the rig object (active, object mode)."""
    import addon_utils
    import bpy

    bpy.ops.wm.read_homefile(use_empty=True)
    if not addon_utils.check("rigify")[1]:
        addon_utils.enable("rigify", default_set=True)
    assert bpy.ops.object.armature_human_metarig_add() == {"FINISHED"}
    assert bpy.ops.pose.rigify_generate() == {"FINISHED"}
    rig = bpy.data.objects["rig"]
    for obj in bpy.context.view_layer.objects:
        obj.select_set(obj is rig)
    bpy.context.view_layer.objects.active = rig
    assert bpy.ops.reach.convert_ik() == {"FINISHED"}
    bpy.context.view_layer.update()
    return rig


def circle(step: int, steps: int = STEPS, radius: float = RADIUS) -> np.ndarray:
    """Offset (3,) of the control at ``step`` from where it started: a circle in the
    control's XZ plane through the start, one turn in ``steps`` steps."""
    angle = 2.0 * math.pi * step / steps
    return radius * np.array([math.cos(angle) - 1.0, 0.0, math.sin(angle)])


def drag_to(rig: object, centre: np.ndarray, step: int) -> None:
    """Put the control at ``centre`` (its start location, (3,)) plus :func:`circle` of
    ``step`` and let Blender update the view layer (what one step of a drag does)."""
    import bpy

    rig.pose.bones[CONTROL].location = (centre + circle(step)).tolist()
    bpy.context.view_layer.update()
