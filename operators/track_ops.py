"""Target Track: key a target's location along a circle, figure-eight, spiral or line.

The path is :mod:`..bridge.edit.track_paths`, the keying :mod:`..bridge.edit.target_track`;
this operator only gathers the context (the object, the centre, the view's plane).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import bpy
from bpy.props import (
    BoolProperty,
    EnumProperty,
    FloatProperty,
    FloatVectorProperty,
    IntProperty,
    StringProperty,
)

from ..bridge.edit import target_track
from ..bridge.edit.track_paths import SHAPES, TrackError
from . import common

if TYPE_CHECKING:
    from bpy._typing.rna_enums import OperatorReturnItems

PLANES = (
    ("XY", "XY", "The world XY plane (seen from the top)"),
    ("XZ", "XZ", "The world XZ plane (seen from the front)"),
    ("YZ", "YZ", "The world YZ plane (seen from the side)"),
    ("VIEW", "View", "The 3D viewport's view plane"),
)
CENTERS = (
    ("OBJECT", "Object", "Where the object is now"),
    ("CURSOR", "3D Cursor", "The 3D cursor"),
    ("VALUE", "Value", "The Center option"),
)


class REACH_OT_target_track(bpy.types.Operator):
    """Key the target's location along a circle, figure-eight, spiral or line"""

    bl_idname = "reach.target_track"
    bl_label = "Target Track"
    bl_options = {"REGISTER", "UNDO"}

    shape: EnumProperty(name="Shape", items=SHAPES, default="CIRCLE")
    size: FloatProperty(
        name="Size", default=1.0, soft_min=0.001, unit="LENGTH",
        description="Radius (circle, spiral's end), half-width (figure-eight), half-length (line)",
    )  # fmt: skip
    turns: FloatProperty(
        name="Turns", default=1.0, soft_min=-10.0, soft_max=10.0,
        description="Loops (or there-and-back cycles of the line) over the range; negative: "
        "the other way round",
    )  # fmt: skip
    plane: EnumProperty(name="Plane", items=PLANES, default="XY")
    center_from: EnumProperty(name="Centre", items=CENTERS, default="OBJECT")
    center: FloatVectorProperty(name="Center", size=3, default=(0.0, 0.0, 0.0), unit="LENGTH")
    use_scene_range: BoolProperty(name="Scene Range", default=True)
    frame_start: IntProperty(name="Start", default=1)
    frame_end: IntProperty(name="End", default=250)
    target: StringProperty(
        name="Object",
        description="Object to animate (default: the active Reach constraint's target, or the "
        "active object)",
    )  # fmt: skip

    def invoke(
        self, context: bpy.types.Context, event: bpy.types.Event
    ) -> set[OperatorReturnItems]:
        return context.window_manager.invoke_props_dialog(self)

    def draw(self, context: bpy.types.Context) -> None:
        """The dialog and the Adjust Last Operation panel: only the options that apply."""
        layout = self.layout
        layout.use_property_split = True
        for name in ("shape", "size", "turns", "plane", "center_from"):
            layout.prop(self, name)
        if self.center_from == "VALUE":
            layout.prop(self, "center")
        layout.prop(self, "use_scene_range")
        if not self.use_scene_range:
            layout.prop(self, "frame_start")
            layout.prop(self, "frame_end")
        layout.prop_search(self, "target", context.scene, "objects")

    def execute(self, context: bpy.types.Context) -> set[OperatorReturnItems]:
        return common.run(self, lambda: self._key(context))

    def _key(self, context: bpy.types.Context) -> str:
        named = None
        if self.target:
            named = bpy.data.objects.get(self.target)
            if named is None:
                raise TrackError(f"object '{self.target}' not found")
        obj = target_track.chosen_object(context.active_object, named)
        scene = context.scene
        if self.use_scene_range:
            frame_range = (scene.frame_start, scene.frame_end)
        else:
            frame_range = (self.frame_start, self.frame_end)
        center = target_track.track_center(obj, scene, self.center_from, self.center)
        axes = target_track.plane_axes(context, self.plane)
        return target_track.key_track(
            obj, self.shape, frame_range, self.size, self.turns, center, axes
        )


classes = (REACH_OT_target_track,)
