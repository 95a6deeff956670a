"""The bones a chain setting names (*Chain* of a constraint's bone, *Target Chain* of its target
bone), walked up the armature's hierarchy."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import bpy

#: How many bones the chain mode ``ALL`` takes at most (every ancestor).
EVERY_BONE = 10**9


def lineage(bones: bpy.types.ArmatureBones, name: str) -> list[str]:
    """Bone ``name`` and its ancestors, lowest first."""
    return [name] + [bone.name for bone in bones[name].parent_recursive]


def walk(
    bones: bpy.types.ArmatureBones,
    start: str,
    mode: str,
    root: str,
    length: int,
    error: Callable[[str], Exception],
    what: str,
) -> tuple[list[str], str]:
    """Bones of a chain (``start`` first, then its parents) and its topmost bone.

    Args:
        bones: the armature's bones.
        start: the chain's lowest bone (a bone of ``bones``).
        mode: ``"ALL"`` (every ancestor), ``"ROOT"`` (up to ``root``; every ancestor when
            ``root`` is empty) or ``"LENGTH"`` (``length`` bones).
        root: the topmost bone for ``"ROOT"``.
        length: the number of bones for ``"LENGTH"`` (>= 1).
        error: the exception type raised for a bad root, with the message.
        what: how the message names the setting's owner (``"Constraint 'C'"``).
    """
    bone = bones[start]
    chain: list[str] = []
    if mode == "ROOT" and root:
        if root not in bones:
            raise error(f"{what}: chain root bone '{root}' not found")
        while bone is not None:
            chain.append(bone.name)
            if bone.name == root:
                return chain, bone.name
            bone = bone.parent
        raise error(f"{what}: chain root '{root}' is not a parent of bone '{start}'")
    limit = length if mode == "LENGTH" else EVERY_BONE
    while bone is not None and len(chain) < limit:
        chain.append(bone.name)
        bone = bone.parent
    return chain, chain[-1]
