"""The Reach Envelope follows a target Blender does not evaluate, as Solve and Bake do.

A target disabled in viewports (or in an excluded collection) is left out of the depsgraph: its
animation never plays and its ``matrix_world`` stays where it was last evaluated. The envelope
read it as it was: with *Require Orientation* on the metarig's arm, a target keyed to turn
between frames 1 and 12, hidden at frame 1, gave at frame 12 the envelope of the frame-1
orientation (357 of 515 samples reached against 366 with the target visible, on an FBX import
of the metarig), and nothing said so. The envelope now follows such targets for the time it
reads them (``bridge/solve/unevaluated.py``: a muted Copy Location on the armature, removed
again) and says so in its report.
"""

from __future__ import annotations

import math
import types
from types import ModuleType

import bpy
import numpy as np

from tests.blender.bake_support import operator_stand_in
from tests.blender.conftest import world_bone_tail
from tests.blender.reach_scenes import add_constraint, add_empty

RESOLUTION = 9


def _cloud(extension: ModuleType, obj: bpy.types.Object, name: str) -> tuple[np.ndarray, str]:
    """The envelope at the current frame (the operator's ``execute``): its vertices (n, 3)
    and its report; the object is removed."""
    cls = extension.operators.envelope_ops.REACH_OT_envelope
    op = operator_stand_in(cls, resolution=RESOLUTION, effort="MOTION", orientation=True,
                           constraint=name)  # fmt: skip
    context = types.SimpleNamespace(
        scene=bpy.context.scene, view_layer=bpy.context.view_layer, active_object=obj,
        collection=bpy.context.collection, blend_data=bpy.data,
        window_manager=bpy.context.window_manager,
    )  # fmt: skip
    assert op.execute(context) == {"FINISHED"}
    cloud = bpy.data.objects[f"Envelope {name}"]
    co = np.empty(3 * len(cloud.data.vertices))
    cloud.data.vertices.foreach_get("co", co)
    bpy.data.objects.remove(cloud)
    ((_kind, text),) = op.reports
    return co.reshape(-1, 3), text


def test_a_target_disabled_in_viewports_is_followed(
    rigify_metarig: bpy.types.Object, extension: ModuleType
) -> None:
    obj = rigify_metarig
    scene = bpy.context.scene
    target = add_empty("T", tuple(world_bone_tail(obj, "hand.L") + np.array((0.1, -0.2, 0.1))))
    for frame, turn in ((1, (0.0, 0.0, 0.0)), (12, (1.5, 0.5, 0.0))):
        target.rotation_euler = turn
        target.keyframe_insert("rotation_euler", frame=frame)
    item = add_constraint(obj, "hand.L", target, "POSITION", chain_mode="ROOT",
                          chain_root="shoulder.L")  # fmt: skip
    scene.frame_set(12)
    visible, text = _cloud(extension, obj, item.name)
    assert "note:" not in text
    scene.frame_set(1)
    target.hide_viewport = True  # its matrix stays at frame 1's from here on
    scene.frame_set(12)
    assert math.isclose(target.matrix_world.to_euler().x, 0.0, abs_tol=1e-6)
    hidden, text = _cloud(extension, obj, item.name)
    assert hidden.shape == visible.shape and np.array_equal(hidden, visible)
    assert "note: target 'T' is not evaluated by Blender (it is disabled in viewports)" in text
    assert not obj.constraints  # the muted constraint that followed it is gone again
