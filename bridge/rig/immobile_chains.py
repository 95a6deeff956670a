"""Part of the bridge (:mod:`.build`): a constraint whose chain cannot move is refused.

A chain has no freedom when every joint of every solved bone on it is fixed: all three IK
axes locked (*Lock IK*), every Euler channel locked (*Lock Rotation*, held at its value), or
every axis fully rigid (rigidity 1); a *Driven* bone (its channels are inputs) is no solved
bone at all. Solving it could only report a miss, so the solve is
refused before anything is written, with the constraint and its bones named.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable
from typing import TYPE_CHECKING

from ... import solver

if TYPE_CHECKING:
    import bpy

    from .goals import ConstraintSpec
    from .joints import SolvedBone


def chain_of(arm: bpy.types.Object, spec: ConstraintSpec) -> list[str]:
    """Bone names of a constraint's chain (``(n,)``, effector bone first, up to its root), then
    those of its *Target Chain* (a loop's other side)."""
    bones = arm.pose.bones
    bone: bpy.types.PoseBone | None = bones[spec.bone]
    out = []
    while bone is not None:
        out.append(bone.name)
        if bone.name == spec.root:
            break
        bone = bone.parent
    return out + [name for name in spec.target_chain if name not in out]


def joint_moves(figure: solver.Figure, name: str) -> bool:
    """Whether joint ``name`` can move: a free range (lower < upper) and rigidity < 1, or, for
    a joint driven by a group, some parameter of its group with both."""
    joint = figure.joints[figure.joint_index(name)]
    if joint.group < 0:
        return joint.lower < joint.upper and joint.rigidity < 1.0
    group = figure.groups[joint.group]
    column = group.matrix[group.joints.index(figure.joint_index(name))]
    return any(
        c != 0.0 and lo < hi and r < 1.0
        for c, lo, hi, r in zip(column, group.lower, group.upper, group.rigidity, strict=True)
    )


def _bone_moves(figure: solver.Figure, info: SolvedBone | None) -> bool:
    if info is None:
        return False
    joints = [j for _axis, j in info.rotation_joints + info.location_joints]
    return any(joint_moves(figure, j) for j in joints)


def check_chains_move(
    arm: bpy.types.Object,
    figure: solver.Figure,
    specs: Iterable[ConstraintSpec],
    solved: dict[str, SolvedBone],
    error: Callable[[str], Exception],
    driven: Collection[str] = (),
) -> None:
    """Raise ``error`` naming the first constraint none of whose chain bones can move
    (``driven``: the chain bones that are *Driven*, named as such)."""
    for spec in specs:
        chain = chain_of(arm, spec)
        if not any(_bone_moves(figure, solved.get(name)) for name in chain):
            inputs = [name for name in chain if name in driven]
            held = [name for name in chain if name not in driven]
            why = []
            if held:
                why.append(
                    f"{', '.join(held)}: every rotation axis is locked (Lock IK, Lock Rotation) "
                    "or fully rigid"
                )
            if inputs:
                why.append(f"{', '.join(inputs)}: Driven (an input, never solved)")
            raise error(
                f"Constraint '{spec.name}': no bone of its chain can move ({'; '.join(why)}); "
                "unlock an axis, lower the rigidity or turn Driven off"
            )
