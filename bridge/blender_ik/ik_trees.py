"""Blender's IK chains and trees as its standard solver builds them (``initialize_posetree``).

Blender groups IK chains that start at the same root bone into one solve (a tree), except
that a chain which holds every target already attached there starts a tree of its own. Only
a bone's first active IK takes part (muted ones do not: measured). In a
tree with two or more position targets Blender's solver drops the pole target
(``ConstrainPoleVector``). Reading the trees the same way tells Convert when a pole has no
effect in Blender. ``bpy`` is used only through the objects passed in.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    import bpy


@dataclass
class _Tree:
    tips: list[str] = field(default_factory=list)  # each target's tip bone
    constraints: list[tuple[str, str]] = field(default_factory=list)  # (bone, constraint)
    positions: int = 0  # targets with a position goal


def ik_chain(pb: bpy.types.PoseBone, ik: bpy.types.KinematicConstraint) -> list[bpy.types.PoseBone]:
    """The IK chain as Blender builds it, tip first: ``use_tail = False`` makes the parent the
    tip (its tail the end-effector); ``chain_count`` counts from the tip, 0 for every bone up
    to the root."""
    tip = pb if ik.use_tail or pb.parent is None else pb.parent
    chain: list[bpy.types.PoseBone] = []
    bone: bpy.types.PoseBone | None = tip
    while bone is not None and (ik.chain_count == 0 or len(chain) < ik.chain_count):
        chain.append(bone)
        bone = bone.parent
    return chain


def shared_trees(obj: bpy.types.Object) -> dict[tuple[str, str], list[tuple[str, str]]]:
    """``(bone, constraint)`` of every IK whose tree has two or more position targets ->
    the other constraints of that tree. Only Standard IK: iTaSC builds its trees otherwise."""
    pose = cast("bpy.types.Pose", obj.pose)
    trees: dict[str, list[_Tree]] = {}  # root bone -> its trees, in Blender's order
    for pb in pose.bones:
        for con in pb.constraints:
            if con.type != "IK" or con.mute or con.influence == 0.0:
                continue  # measured: a muted IK does not count in Blender's tree
            ik = cast("bpy.types.KinematicConstraint", con)
            target = ik.target
            if target is None or (target.type == "ARMATURE" and not ik.subtarget):
                continue  # Blender leaves these out of the trees
            chain = [bone.name for bone in ik_chain(pb, ik)]
            root_trees = trees.setdefault(chain[-1], [])
            tree = next((t for t in root_trees if any(s not in chain for s in t.tips)), None)
            if tree is None:
                tree = _Tree()
                root_trees.append(tree)
            tree.tips.append(chain[0])
            tree.constraints.append((pb.name, con.name))
            tree.positions += bool(ik.use_location and ik.weight != 0.0)
            break  # Blender: one active IK per bone
    out: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for root_trees in trees.values():
        for tree in root_trees:
            if tree.positions >= 2:
                for key in tree.constraints:
                    out[key] = [other for other in tree.constraints if other != key]
    return out
