"""Pictures of the demo shot: display geometry for the metarig, a camera, Workbench renders.

Used by :mod:`examples.blender_demo` (``make demo``), which renders a few frames before and
after the bake and tiles them into ``out/demo.png`` with :func:`contact_sheet` (matplotlib,
from the bench dependencies ``make demo`` installs). The render step itself needs only
``bpy``: Blender's Workbench engine renders headless.

The figure is drawn as one mesh skinned to the armature: an octahedron per deforming bone
(the face's bones left out)
(like Blender's own bone display, from head to tail, 10 % of the length wide), each vertex
weighted fully to its bone, deformed by an Armature modifier, so the render shows the pose
exactly as Blender evaluates it. Each target empty gets a small sphere (empties do not render).
These objects are disabled in viewports: only the render evaluates them, so they cost a
solve or a bake nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

FIGURE_COLOUR = (0.55, 0.62, 0.72, 1.0)
TARGET_COLOUR = (0.95, 0.35, 0.1, 1.0)
#: Octahedron faces over vertices (head, tail, four around the bone at 10 % of its length).
_FACES = ((0, 2, 3), (0, 3, 4), (0, 4, 5), (0, 5, 2), (1, 3, 2), (1, 4, 3), (1, 5, 4), (1, 2, 5))


def _octahedra(rig: object) -> tuple[np.ndarray, list[tuple[int, ...]], list[str]]:
    """Vertices (n, 3) in armature space, faces, and the bone of each vertex."""
    verts, faces, owners = [], [], []
    for bone in rig.data.bones:
        if not bone.use_deform or any(p.name == "face" for p in bone.parent_recursive):
            continue  # the face's many small bones would only blur the head
        m = np.array(bone.matrix_local, dtype=float)
        head, tail = np.array(bone.head_local), np.array(bone.tail_local)
        x, z = m[:3, 0], m[:3, 2]
        width = 0.1 * bone.length
        ring = head + 0.1 * (tail - head)
        base = len(verts)
        verts += [head, tail, ring + width * x, ring + width * z, ring - width * x,
                  ring - width * z]  # fmt: skip
        faces += [tuple(base + i for i in face) for face in _FACES]
        owners += [bone.name] * 6
    return np.array(verts), faces, owners


def add_figure_mesh(rig: object) -> object:
    """A mesh object drawing ``rig``'s deforming bones, skinned to it; returns the object."""
    import bpy

    verts, faces, owners = _octahedra(rig)
    mesh = bpy.data.meshes.new(f"{rig.name} display")
    mesh.from_pydata(verts.tolist(), [], faces)
    mesh.update()
    figure = bpy.data.objects.new(f"{rig.name} display", mesh)
    bpy.context.scene.collection.objects.link(figure)
    figure.parent = rig
    for index, bone in enumerate(owners):
        group = figure.vertex_groups.get(bone) or figure.vertex_groups.new(name=bone)
        group.add([index], 1.0, "REPLACE")
    modifier = figure.modifiers.new("Armature", "ARMATURE")
    modifier.object = rig
    figure.color = FIGURE_COLOUR
    figure.hide_viewport = True  # rendered only: the view layer (and a bake) never evaluates it
    return figure


def add_target_spheres(targets: Sequence[object], radius: float = 0.04) -> list[object]:
    """A small sphere on each target empty (parented, at its origin)."""
    import bpy

    spheres = []
    for target in targets:
        mesh = bpy.data.meshes.new(f"{target.name} sphere")
        _uv_sphere(mesh, radius)
        sphere = bpy.data.objects.new(f"{target.name} sphere", mesh)
        bpy.context.scene.collection.objects.link(sphere)
        sphere.parent = target
        sphere.color = TARGET_COLOUR
        sphere.hide_viewport = True
        spheres.append(sphere)
    return spheres


def _uv_sphere(mesh: object, radius: float, rings: int = 8, segments: int = 12) -> None:
    """Fill ``mesh`` with a UV sphere of ``radius`` around the origin."""
    verts = [(0.0, 0.0, radius), (0.0, 0.0, -radius)]
    for i in range(1, rings):
        theta = np.pi * i / rings
        for j in range(segments):
            phi = 2.0 * np.pi * j / segments
            s = radius * np.sin(theta)
            verts.append((s * np.cos(phi), s * np.sin(phi), radius * np.cos(theta)))

    def ring(i: int, j: int) -> int:
        return 2 + (i - 1) * segments + j % segments

    faces = [(0, ring(1, j), ring(1, j + 1)) for j in range(segments)]
    for i in range(1, rings - 1):
        faces += [(ring(i, j), ring(i + 1, j), ring(i + 1, j + 1), ring(i, j + 1))
                  for j in range(segments)]  # fmt: skip
    faces += [(1, ring(rings - 1, j + 1), ring(rings - 1, j)) for j in range(segments)]
    mesh.from_pydata(verts, [], faces)
    mesh.update()


def setup_render(
    look_at: Sequence[float] = (0.0, 0.0, 1.05),
    resolution: tuple[int, int] = (300, 400),
    ortho_scale: float = 2.3,
) -> object:
    """Workbench, object colours, a transparent background and an orthographic camera from the
    front left, a little above, looking at ``look_at`` (world units); returns the camera."""
    import bpy
    from mathutils import Vector

    scene = bpy.context.scene
    scene.render.engine = "BLENDER_WORKBENCH"
    scene.render.resolution_x, scene.render.resolution_y = resolution
    scene.render.resolution_percentage = 100
    scene.render.film_transparent = True
    scene.render.image_settings.file_format = "PNG"
    scene.render.image_settings.color_mode = "RGBA"
    shading = scene.display.shading
    shading.light = "STUDIO"
    shading.color_type = "OBJECT"
    camera_data = bpy.data.cameras.new("Demo camera")
    camera_data.type = "ORTHO"
    camera_data.ortho_scale = ortho_scale
    camera = bpy.data.objects.new("Demo camera", camera_data)
    scene.collection.objects.link(camera)
    camera.location = Vector(look_at) + Vector((-4.5, -5.5, 1.0))
    camera.rotation_euler = (Vector(look_at) - camera.location).to_track_quat("-Z", "Y").to_euler()
    scene.camera = camera
    return camera


def render_frame(frame: int, path: Path) -> np.ndarray:
    """Render ``frame`` to the PNG ``path``; return its pixels (height, width, 4), floats in
    [0, 1], top row first (alpha 0 where nothing was drawn)."""
    import bpy

    scene = bpy.context.scene
    scene.frame_set(frame)
    scene.render.filepath = str(path)
    bpy.ops.render.render(write_still=True)
    image = bpy.data.images.load(str(path), check_existing=False)
    try:
        width, height = image.size
        pixels = np.empty(width * height * 4, dtype=np.float32)
        image.pixels.foreach_get(pixels)
    finally:
        bpy.data.images.remove(image)
    return pixels.reshape(height, width, 4)[::-1]


def contact_sheet(rows: Sequence[tuple[str, Sequence[tuple[int, np.ndarray]]]], path: Path) -> None:
    """Tile renders into one PNG: one row per ``(label, [(frame, pixels), ...])``, each
    render on white with its frame number above it (matplotlib)."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    n_cols = max(len(frames) for _label, frames in rows)
    height, width = rows[0][1][0][1].shape[:2]
    inches = 2.2 / height  # per pixel of a render
    size = (n_cols * width * inches, len(rows) * height * inches + 0.3)
    fig, axes = plt.subplots(len(rows), n_cols, squeeze=False, figsize=size)
    for r, (label, frames) in enumerate(rows):
        for c, (frame, pixels) in enumerate(frames):
            ax = axes[r][c]
            alpha = pixels[..., 3:4]
            ax.imshow(np.clip(pixels[..., :3] * alpha + (1.0 - alpha), 0.0, 1.0))
            ax.set_title(f"frame {frame}", fontsize=8)
            ax.set_xticks([])
            ax.set_yticks([])
            if c == 0:
                ax.set_ylabel(label, fontsize=9)
    fig.tight_layout(pad=0.3)
    fig.savefig(path, dpi=100)
    plt.close(fig)
