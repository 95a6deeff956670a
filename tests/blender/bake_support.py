"""Support for the bake tests (not a test file): the modal operator driven without an event
loop, and full keyframe comparisons.

Import with ``from tests.blender.bake_support import ...``.
"""

from __future__ import annotations

import types
from types import ModuleType

import bpy
import numpy as np

from tests.blender.reach_scenes import fcurves

KEYFRAME_PROPERTIES = (
    ("co", np.float32, 2), ("handle_left", np.float32, 2), ("handle_right", np.float32, 2),
    ("interpolation", np.int32, 1), ("handle_left_type", np.int32, 1),
    ("handle_right_type", np.int32, 1), ("easing", np.int32, 1), ("type", np.int32, 1),
    ("back", np.float32, 1), ("amplitude", np.float32, 1), ("period", np.float32, 1),
)  # fmt: skip


def keyframes_of(obj: bpy.types.Object) -> dict[tuple[str, int], dict[str, np.ndarray]]:
    """Every keyframe property of every F-curve of the object's action."""
    out = {}
    for fcurve in fcurves(obj):
        points = fcurve.keyframe_points
        data = {}
        for prop, dtype, width in KEYFRAME_PROPERTIES:
            values = np.empty(width * len(points), dtype=dtype)
            points.foreach_get(prop, values)
            data[prop] = values
        out[(fcurve.data_path, fcurve.array_index)] = data
    return out


class FakeWorkspace:
    """Stands in for ``context.workspace``: records the status bar texts."""

    def __init__(self) -> None:
        self.status: list[str | None] = []

    def status_text_set(self, text: str | None) -> None:
        self.status.append(text)


class FakeWindowManager:
    """Stands in for ``context.window_manager`` of an interactive session."""

    def __init__(self) -> None:
        self.progress: list[int] = []
        self.timers = 0

    def progress_begin(self, lo: int, hi: int) -> None:
        self.progress.append(lo)

    def progress_update(self, value: int) -> None:
        self.progress.append(value)

    def progress_end(self) -> None:
        self.progress.append(-1)

    def event_timer_add(self, step: float, window: object = None) -> object:
        self.timers += 1
        return object()

    def event_timer_remove(self, timer: object) -> None:
        self.timers -= 1

    def modal_handler_add(self, operator: object) -> bool:
        return True


def operator_stand_in(cls: type, **values: object) -> types.SimpleNamespace:
    """A plain object standing in for an instance of the Reach operator class ``cls``: every
    method and constant the add-on's classes in its MRO define (the operator's own and its
    mixins'), methods bound to the stand-in, then ``values`` as its properties.

    Background Blender has no event loop, so a modal path (timer steps, ESC) is driven by
    calling the operator's own methods on such a stand-in with TIMER and ESC events.
    """
    fake = types.SimpleNamespace()
    package = cls.__module__.split(".operators.")[0]
    for klass in reversed(cls.__mro__):
        if not klass.__module__.startswith(package):
            continue  # bpy.types.Operator, typing.Generic, object
        for name, value in vars(klass).items():
            if name.startswith("__") or isinstance(value, (classmethod, staticmethod)):
                continue
            if isinstance(value, types.FunctionType):
                value = types.MethodType(value, fake)
            setattr(fake, name, value)
    fake.reports = []
    fake.report = lambda kind, text: fake.reports.append((kind, text))
    vars(fake).update(values)
    return fake


def modal_operator(extension: ModuleType, obj: bpy.types.Object) -> tuple[object, object]:
    """The bake operator's methods bound to a plain object (:func:`operator_stand_in`), and a
    fake context."""
    cls = extension.operators.bake_ops.REACH_OT_bake
    fake = operator_stand_in(
        cls, use_scene_range=True, frame_start=1, frame_end=250, frame_step=1,
        only_selected=False, mode="REPLACE", time_limit=1.0,
        target="CURRENT", only_selected_bones=False, method="ARMATURE", smooth=False,
        max_change=10.0, all_selected=False, batched=True,
        time_slice=0.0,  # one frame per timer event, however fast the machine
    )  # fmt: skip
    # Every property counts as given by the caller (the armature's settings are not read).
    fake.properties = types.SimpleNamespace(is_property_set=lambda name: True)
    context = types.SimpleNamespace(
        scene=bpy.context.scene, view_layer=bpy.context.view_layer, active_object=obj,
        window=object(), evaluated_depsgraph_get=bpy.context.evaluated_depsgraph_get,
        workspace=FakeWorkspace(),
        window_manager=FakeWindowManager(),
    )  # fmt: skip
    return fake, context
