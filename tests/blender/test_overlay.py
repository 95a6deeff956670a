"""The viewport overlay in real Blender: views read from the scene, colours from the last
measured solve, batches built by the draw handler.

Background Blender (the ``bpy`` wheel) has no GPU backend until something creates one: every
``gpu`` call raises ``SystemError`` until the first render (a Workbench render sets up an
OpenGL context, even headless). The draw handler's calls go through a recorder of the four
``gpu`` calls it makes (built-in shader, batch, viewport size, blend mode), which also builds
the real batches whenever Blender has a GPU backend; ``test_real_batches_build`` renders a
4x4 Workbench frame first so that the real shaders and batches are always built.
"""

from __future__ import annotations

import types
from types import ModuleType
from typing import Any

import bpy
import gpu
import numpy as np
import pytest

from tests.blender.conftest import run_op, world_bone_tail
from tests.blender.reach_scenes import add_constraint, add_empty, make_chain


class _Recorded:
    def __init__(self, name: str) -> None:
        self.name, self.uniforms, self.drawn = name, {}, 0

    def uniform_float(self, key: str, value: object) -> None:
        self.uniforms[key] = value


class _Batch:
    def __init__(self, shader: _Recorded, kind: str, content: dict[str, Any]) -> None:
        self.shader, self.kind, self.content = shader, kind, content

    def draw(self, shader: _Recorded) -> None:
        assert shader is self.shader
        shader.drawn += 1


class RecordingGpu:
    """Records the draw handler's ``gpu`` calls (``panels.overlay_draw.GpuApi``'s four); with
    ``real`` (a ``GpuApi`` of a Blender that has a GPU backend) it also builds every shader and
    batch for real, without drawing (there is no window to draw into)."""

    def __init__(self, real: Any = None) -> None:
        self.real = real
        self.blend_modes: list[str] = []
        self.real_batches: list[Any] = []

    def shader(self, name: str) -> _Recorded:
        recorded = _Recorded(name)
        recorded.real = None if self.real is None else self.real.shader(name)
        return recorded

    def batch(self, shader: _Recorded, kind: str, content: dict[str, Any]) -> _Batch:
        lengths = {len(v) for v in content.values()}
        assert len(lengths) == 1, f"attributes of unequal length: {lengths}"
        assert all(len(v[0]) == (3 if k == "pos" else 4) for k, v in content.items())
        if self.real is not None:
            self.real_batches.append(self.real.batch(shader.real, kind, content))
        return _Batch(shader, kind, content)

    def viewport_size(self) -> tuple[float, float]:
        return (800.0, 600.0)

    def blend(self, mode: str) -> None:
        self.blend_modes.append(mode)


def _gpu(extension: ModuleType) -> RecordingGpu:
    """A recorder that also builds the real batches when Blender has a GPU backend."""
    real = extension.panels.overlay_draw.GpuApi()
    try:
        real.shader(extension.panels.overlay_draw.LINE_SHADER)
    except SystemError as exc:  # no backend yet: only in background, before any render
        assert bpy.app.background and "not available in background mode" in str(exc)
        return RecordingGpu()
    return RecordingGpu(real)


def _start_gpu() -> None:
    """Give background Blender its GPU backend: render a 4x4 Workbench frame."""
    scene = bpy.context.scene
    scene.render.engine = "BLENDER_WORKBENCH"
    scene.render.resolution_x = scene.render.resolution_y = 4
    camera = bpy.data.objects.new("Camera", bpy.data.cameras.new("Camera"))
    scene.collection.objects.link(camera)
    scene.camera = camera
    assert bpy.ops.render.render() == {"FINISHED"}
    bpy.data.objects.remove(camera)


def _scene() -> tuple[bpy.types.Object, dict[str, str]]:
    obj = make_chain()
    reach = add_empty("Reach", (1.0, 0.0, 2.0))
    floor = add_empty("Floor", (0.0, 0.0, 0.5), rotation=(0.3, 0.0, 0.0))
    add_constraint(obj, "b2", reach, "POSITION")
    add_constraint(obj, "b2", floor, "LINE", enabled=False)
    add_constraint(obj, "b2", floor, "HALF_SPACE")
    add_constraint(obj, "b1", reach, "AIM", weight=0.0)  # ignored by the solve: missed
    items = {"reach": "b2 Position", "half": "b2 Half-space", "aim": "b1 Aim"}
    return obj, items


def test_views_follow_the_pose_and_the_last_measured_solve(
    clean_scene: bpy.types.Scene, extension: ModuleType
) -> None:
    scene_module = extension.bridge.overlay.views
    results = extension.bridge.session.last_report
    obj, items = _scene()
    views = scene_module.views_of(obj, obj.reach_ik, results.last(obj))
    assert [v.name for v in views] == [items[k] for k in ("reach", "half", "aim")]
    assert {v.state for v in views} == {"UNSOLVED"}  # the disabled line goal is not drawn
    np.testing.assert_allclose(views[0].effector, world_bone_tail(obj, "b2"), atol=1e-6)
    np.testing.assert_allclose(views[0].target, (1.0, 0.0, 2.0), atol=1e-6)
    floor = np.array(bpy.data.objects["Floor"].matrix_world)
    np.testing.assert_allclose(views[1].axis, floor[:3, 2], atol=1e-6)  # the target's Z
    np.testing.assert_allclose(views[2].aim, (0.0, 0.0, 1.0), atol=1e-6)  # b1's Y: up
    run_op(bpy.ops.reach.solve)
    report = results.last(obj)
    views = scene_module.views_of(obj, obj.reach_ik, report)
    states = {v.name: v.state for v in views}
    assert states[items["reach"]] == "REACHED" and states[items["aim"]] == "MISSED"
    assert states == {o.name: "REACHED" if o.satisfied else "MISSED" for o in report.constraints}
    np.testing.assert_allclose(views[0].effector, world_bone_tail(obj, "b2"), atol=1e-6)
    np.testing.assert_allclose(views[0].effector, (1.0, 0.0, 2.0), atol=1e-4)
    clean_scene.frame_start, clean_scene.frame_end = 1, 2
    run_op(bpy.ops.reach.bake)
    baked = results.last(obj)
    views = scene_module.views_of(obj, obj.reach_ik, baked)
    worst = {name: "REACHED" if ok else "MISSED" for name, (_d, _a, ok) in baked.worst.items()}
    assert {v.name: v.state for v in views} == worst  # a bake: its worst frame
    assert worst[items["reach"]] == "REACHED" and worst[items["aim"]] == "MISSED"


def test_draw_handler_builds_the_batches(
    clean_scene: bpy.types.Scene, extension: ModuleType
) -> None:
    draw_module = extension.panels.overlay_draw
    assert len(draw_module._HANDLE) == 1  # registered with the add-on, once
    obj, _items = _scene()
    gpu = _gpu(extension)
    batches = draw_module.draw(gpu)
    assert [b.kind for b in batches] == ["TRIS", "LINES"]
    tris, lines = batches
    geometry = draw_module.overlay_of(bpy.context)
    assert len(tris.content["pos"]) == len(geometry.triangles) == 36  # one half-space
    # three effector lines, the half-space's outline and normal, the aim ray
    assert len(lines.content["pos"]) == len(geometry.lines) == 2 * (3 + 4 + 1 + 1)
    assert lines.shader.name == "POLYLINE_SMOOTH_COLOR" and tris.shader.name == "SMOOTH_COLOR"
    assert lines.shader.uniforms == {"viewportSize": (800.0, 600.0), "lineWidth": 2.0}
    assert tris.shader.drawn == lines.shader.drawn == 1
    assert gpu.blend_modes == ["ALPHA", "NONE"]
    prefs = extension.props.preferences.preferences()
    unsolved = tuple(lines.content["color"][0])
    assert unsolved == pytest.approx(tuple(prefs.unsolved_color))
    run_op(bpy.ops.reach.solve)
    _tris, lines = draw_module.draw(gpu)
    drawn = {tuple(round(c, 6) for c in color) for color in lines.content["color"]}
    expected = {tuple(round(c, 6) for c in p) for p in (prefs.reached_color, prefs.missed_color)}
    assert drawn == expected  # green where reached, red where missed; nothing unsolved
    obj.reach_ik.show_overlay = False  # the panel's toggle
    assert draw_module.draw(gpu) == []
    obj.reach_ik.show_overlay = True
    bpy.context.view_layer.objects.active = bpy.data.objects["Reach"]
    assert draw_module.draw(gpu) == []  # not an armature: nothing to draw


def test_viewport_overlays_off_hide_the_goals(
    clean_scene: bpy.types.Scene, extension: ModuleType
) -> None:
    """The 3D View's *Overlays* toggle hides Reach's goals like every other overlay (a
    stand-in view: background Blender has no 3D View)."""
    obj, _items = _scene()
    overlay_of = extension.panels.overlay_draw.overlay_of
    for shown in (True, False):
        space = types.SimpleNamespace(overlay=types.SimpleNamespace(show_overlays=shown))
        context = types.SimpleNamespace(space_data=space, active_object=obj)
        assert (overlay_of(context) is not None) == shown


def test_real_batches_build(clean_scene: bpy.types.Scene, extension: ModuleType) -> None:
    _start_gpu()
    obj, _items = _scene()
    gpu_calls = _gpu(extension)
    assert gpu_calls.real is not None, "a render did not give Blender a GPU backend"
    run_op(bpy.ops.reach.solve)
    batches = extension.panels.overlay_draw.draw(gpu_calls)
    assert len(batches) == 2
    assert len(gpu_calls.real_batches) == 2
    assert all(isinstance(b, gpu.types.GPUBatch) for b in gpu_calls.real_batches)
    assert obj.reach_ik.show_overlay
