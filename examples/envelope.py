"""Headless Reach Envelope of the demo figure's left hand: where it reaches with the feet planted
and the gaze kept, coloured by how close the elbow comes to its limits.

Run as ``.venv/bin/python -m examples.envelope`` (``make envelope``). It installs the extension
as :mod:`examples.blender_demo` does, builds the demo scene at its first frame (the metarig,
hands, feet and look-at constrained), runs ``bpy.ops.reach.envelope`` on *Hand L* with the
effort measured as closeness to a joint limit (the elbow's: it is the arm's only limited joint),
cuts away the cubes in front of the shoulder and renders the figure with the cross-section in
its effort colours (Workbench, *Color: Attribute*) to ``out/envelope.png``;
``docs/envelope.png`` is that picture. It prints the counts and the time the envelope took.
"""

from __future__ import annotations

import time
from pathlib import Path

from examples.blender_demo import (
    _isolate_blender_home,
    build_scene,
    install_extension,
    run_and_leave,
)

REPO_ROOT = Path(__file__).resolve().parents[1]
#: Samples along each axis of the cube around the left arm.
RESOLUTION = 15


def demo_at_first_frame() -> object:
    """Install the extension in a throw-away Blender home and build the demo scene at its
    first frame, the rig active; returns the rig."""
    _isolate_blender_home()
    import bpy

    install_extension()
    rig = build_scene()
    bpy.context.scene.frame_set(1)
    bpy.context.view_layer.objects.active = rig
    return rig


def main() -> None:
    """Build the scene, map the left hand's envelope, render it and print what it took."""
    rig = demo_at_first_frame()
    import bpy

    from examples import demo_render

    settings = rig.reach_ik
    settings.active_index = next(
        k for k, item in enumerate(settings.constraints) if item.name == "Hand L"
    )
    start = time.perf_counter()
    result = bpy.ops.reach.envelope(resolution=RESOLUTION, effort="LIMITS")
    seconds = time.perf_counter() - start
    assert result == {"FINISHED"}, result
    cloud = bpy.data.objects["Envelope Hand L"]
    shoulder = rig.matrix_world @ rig.pose.bones["shoulder.L"].head
    _cut_away(cloud, shoulder.y)
    demo_render.add_figure_mesh(rig)
    demo_render.setup_render(look_at=(0.2, 0.0, 1.25), resolution=(480, 480), ortho_scale=1.9)
    bpy.context.scene.display.shading.color_type = "VERTEX"  # the UI's "Attribute"
    out = REPO_ROOT / "out"
    out.mkdir(exist_ok=True)
    demo_render.render_frame(1, out / "envelope.png")
    print(
        f"Reach envelope of 'Hand L': {cloud['reach_reached']} of {cloud['reach_samples']} "
        f"samples reached (spacing {cloud['reach_spacing']:.3f}), {seconds:.1f} s; "
        f"picture {out / 'envelope.png'}"
    )


def _cut_away(cloud: object, y: float) -> None:
    """Delete the cubes in front of the plane ``Y = y`` (world), so the picture shows the
    envelope's cross-section through the shoulder."""
    import bmesh

    mesh = bmesh.new()
    mesh.from_mesh(cloud.data)
    mesh.verts.ensure_lookup_table()
    front = [v for k, v in enumerate(mesh.verts)
             if sum(mesh.verts[8 * (k // 8) + i].co.y for i in range(8)) / 8 < y]  # fmt: skip
    bmesh.ops.delete(mesh, geom=front, context="VERTS")
    mesh.to_mesh(cloud.data)
    mesh.free()


if __name__ == "__main__":
    run_and_leave(main)
