"""*Attach to Bone* from two bones: a point of one bone held on a point of the other.

The new constraint (goal type ``ATTACH``, see :mod:`..rig.attach`) holds the bone's tail on the
point of the other bone nearest to it (its *Target Head/Tail*), and moves the loop the two
bones close: each side's chain runs up to, not including, the lowest bone above both (their
common ancestor), so a cylinder and a boom hanging off the same base both turn and the base
stays. Bones hanging off different roots move with every ancestor. ``bpy`` is used only
through the objects passed in.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

import numpy as np

from ...props.access import armature_data
from ..errors import RigError
from ..loops import chains
from .constraint_list import append

if TYPE_CHECKING:
    import bpy

    from ...props.groups import ReachConstraint, ReachSettings

#: A slider's default line: along the other bone.
SLIDER_AXIS = "Y"


def pair(selected: list[str], active: str | None, bone: str, other: str) -> tuple[str, str]:
    """The bone and the other bone: given, else the selected bone that is not the active one
    and the active one; RigError naming what is missing."""
    if not other:
        if active is None:
            raise RigError("Attach to Bone: no other bone (select two bones, the other active)")
        other = active
    if not bone:
        rest = [name for name in selected if name != other]
        if len(rest) != 1:
            raise RigError(
                f"Attach to Bone: select exactly two bones, the one to attach and '{other}' "
                f"(active); {len(rest) + (other in selected)} selected"
            )
        bone = rest[0]
    if bone == other:
        raise RigError(f"Attach to Bone: bone '{bone}' cannot be attached to itself")
    return bone, other


def _nearest_fraction(obj: bpy.types.Object, bone: str, other: str) -> float:
    """Where along ``other`` (0 head, 1 tail) its point nearest to ``bone``'s tail lies, in
    the current pose."""
    pose = obj.pose.bones
    point = np.array(pose[bone].tail, dtype=float)
    head, tail = np.array(pose[other].head, dtype=float), np.array(pose[other].tail, dtype=float)
    axis = tail - head
    return float(np.clip((point - head) @ axis / (axis @ axis), 0.0, 1.0))


def _top_below(lineage: list[str], common: str | None) -> str | None:
    """The last bone of ``lineage`` before ``common`` (None: ``lineage`` starts at it)."""
    if common is None:
        return lineage[-1]
    index = lineage.index(common)
    return lineage[index - 1] if index > 0 else None


def attach(obj: bpy.types.Object, settings: ReachSettings, bone: str, other: str, hold: str) -> str:
    """Append an *Attach to Bone* of ``bone``'s tail to ``other`` (bones of armature ``obj``)
    holding ``hold`` (``POINT``, ``WELD``, ``HINGE``, ``SLIDER``); return the report sentence.

    Raises:
        RigError: a bone that is not in ``obj``, or a bone attached to itself.
    """
    bones = armature_data(obj).bones
    for name in (bone, other):
        if name not in bones:
            raise RigError(f"Attach to Bone: bone '{name}' not found in '{obj.name}'")
    if bone == other:
        raise RigError(f"Attach to Bone: bone '{bone}' cannot be attached to itself")
    item = cast("ReachConstraint", append(settings, f"{bone} to {other}", bone, obj, "ATTACH"))
    item.target_bone = other
    item.attach_hold = hold
    item.effector = "TAIL"
    item.target_head_tail = _nearest_fraction(obj, bone, other)
    if hold == "SLIDER":
        item.target_axis = SLIDER_AXIS
    own, theirs = chains.lineage(bones, bone), chains.lineage(bones, other)
    common = next((name for name in own if name in theirs), None)
    top = _top_below(own, common)
    if top is None:  # the other bone hangs below this one: only its side can close the loop
        item.chain_mode, item.chain_length = "LENGTH", 1
    else:
        item.chain_mode, item.chain_root = ("ALL", "") if common is None else ("ROOT", top)
    target_top = _top_below(theirs, common)
    if target_top is not None:
        item.target_chain_mode = "ALL" if common is None else "ROOT"
        item.target_chain_root = "" if common is None else target_top
    moved = "its chain" if target_top is None else "both chains"
    return (
        f"added '{item.name}': '{bone}' tail held on '{other}' at "
        f"{item.target_head_tail:.3g} of its length ({hold.lower()}); {moved} solved"
    )
