"""The mesh object that shows a reach envelope: a small cube on every reached sample.

Each cube is ``CUBE_SIZE`` of the grid's spacing across, so the cloud reads as the reachable
region with the grid visible through it. The mesh carries, per vertex, the sample's effort
(float attribute ``reach_effort``) and a colour from green (least effort among the reached
samples) through yellow to red (most) in the colour attribute ``Reach Effort``, the mesh's
active colour: the viewport shows it in Solid mode with *Color: Attribute*.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

import numpy as np

from .reach_map import EFFORTS, Envelope

if TYPE_CHECKING:
    import bpy

#: Width of each sample's cube over the grid spacing.
CUBE_SIZE = 0.5
#: The colour attribute's name.
COLOR_NAME = "Reach Effort"
#: Corners of the unit cube centred on the origin (8, 3) and its faces (6, 4), outward.
_CORNERS = np.array(
    [[x, y, z] for z in (-0.5, 0.5) for y in (-0.5, 0.5) for x in (-0.5, 0.5)], dtype=float
)
_FACES = np.array(
    [[0, 2, 3, 1], [4, 5, 7, 6], [0, 1, 5, 4], [2, 6, 7, 3], [0, 4, 6, 2], [1, 3, 7, 5]]
)


def effort_colors(effort: np.ndarray) -> np.ndarray:
    """RGBA colours (n, 4) of efforts (n,): green at the smallest, yellow, red at the largest
    (all green when they are equal)."""
    if not len(effort):
        return np.zeros((0, 4))
    low, high = float(effort.min()), float(effort.max())
    t = (effort - low) / (high - low) if high > low else np.zeros_like(effort)
    red = np.clip(2.0 * t, 0.0, 1.0)
    green = np.clip(2.0 * (1.0 - t), 0.0, 1.0)
    return np.stack([red, green, np.zeros_like(t), np.ones_like(t)], axis=1)


def make_cloud(
    blend_data: bpy.types.BlendData,
    collection: bpy.types.Collection,
    envelope: Envelope,
    name: str,
) -> bpy.types.Object:
    """A new mesh object ``name`` in ``collection`` with a cube on every reached sample.

    The object sits at the world origin with its vertices in world coordinates, so it stays
    where the envelope was measured whatever the armature does later. Its custom properties
    say what it shows: ``reach_constraint``, ``reach_effort``, ``reach_spacing``,
    ``reach_samples``, ``reach_reached``.
    """
    centres = envelope.points[envelope.reached]
    effort = envelope.effort[envelope.reached]
    size = CUBE_SIZE * envelope.spacing
    n = len(centres)
    verts = (centres[:, None, :] + size * _CORNERS[None, :, :]).reshape(-1, 3)
    faces = (_FACES[None, :, :] + 8 * np.arange(n)[:, None, None]).reshape(-1, 4)
    mesh = blend_data.meshes.new(name)
    mesh.from_pydata(verts.tolist(), [], faces.tolist())
    values = cast("bpy.types.FloatAttribute", mesh.attributes.new("reach_effort", "FLOAT", "POINT"))
    # foreach_set reads any buffer; the stubs list sequences only.
    values.data.foreach_set("value", np.repeat(effort, 8).astype(np.float32))  # pyright: ignore[reportArgumentType]
    colors = cast(
        "bpy.types.FloatColorAttribute",
        mesh.color_attributes.new(COLOR_NAME, "FLOAT_COLOR", "POINT"),
    )
    rgba = np.repeat(effort_colors(effort), 8, axis=0).astype(np.float32).ravel()
    colors.data.foreach_set("color", rgba)  # pyright: ignore[reportArgumentType]
    mesh.color_attributes.active_color = colors
    mesh.color_attributes.render_color_index = mesh.color_attributes.active_color_index or 0
    mesh.update()
    mesh.validate()
    obj = blend_data.objects.new(name, mesh)
    collection.objects.link(obj)
    obj["reach_constraint"] = envelope.constraint
    obj["reach_effort"] = EFFORTS[envelope.effort_kind][0]
    obj["reach_spacing"] = envelope.spacing
    obj["reach_samples"] = len(envelope.points)
    obj["reach_reached"] = n
    return obj
