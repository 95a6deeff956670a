"""What the constraint box lists as "Not modelled": read from the rig itself, whenever asked.

The lines name what moves a constraint's effector or target after the solve writes the pose
and the model leaves out (:func:`.diagnose.interfering` on its chain,
:func:`.diagnose.target_links` on its target): a solve of such a constraint is measured on
Blender's pose, then corrected. They are there before any solve, and follow the rig as the
user edits it: a constraint muted, renamed, added, or a bone's *Inherit Rotation* switched.

They are read afresh on each call, not kept from the last build or solve: a kept copy is
stale as soon as the user edits the rig, and a cache emptied on Blender's update, frame-change
and undo handlers would still miss an edit made from Python until the next depsgraph
evaluation. The read costs little: 18 µs median (300 reads, bpy 5.0.1, the shin chain of
Rigify's generated rig), where the main panel's draw code around it took 0.3 ms (into the
tests' stand-in layout, :mod:`tests.blender.panel_draw`).

``bpy`` is reached only through the objects passed in.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..loops.attach import target_chain_top
from ..rig.goals import chain_top
from .diagnose import interfering, target_links

if TYPE_CHECKING:
    import bpy

    from ...props.groups import ReachConstraint

#: The heading of the lines in the constraint box.
HEADING = "Not modelled (measured, then corrected):"


def not_modelled(obj: bpy.types.Object, item: ReachConstraint) -> list[str]:
    """One line per bone constraint on ``item``'s chain, then per link of its target to the
    armature ``obj``, that the solve does not model (empty when there is none, or when the
    item's bone is not a bone of ``obj``); a loop's other side (its *Target Chain*) too."""
    lines = interfering(obj, item.bone, chain_top(obj, item))
    target_top = target_chain_top(obj, item)
    if target_top is not None:
        other = interfering(obj, item.target_bone, target_top)
        lines += [line for line in other if line not in lines]
    return lines + target_links(obj, item.target)
