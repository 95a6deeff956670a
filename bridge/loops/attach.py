"""*Attach to Bone* and the target side of a closed loop (goals built by :mod:`..rig.goals`).

A constraint whose target is a bone of its own armature closes a loop: the goal is carried by
that bone's segment (see :mod:`..rig.goals`). Its *Target Chain* adds the target bone's own chain
to the solve, so both sides of the loop move (the rocker of a four-bar, the cylinder of a
hydraulic ram) in one system with every other constraint.

*Attach to Bone* (goal type ``ATTACH``) is such a constraint whose *Hold* says what is held,
each mapped onto a goal the solver has, carried by the other bone:

``POINT``  the end-effector on the other bone's point (a ``PositionGoal``): a ball joint;
``WELD``   the point, and the bone's X and Y axes on the axes they have in the other bone's
    frame at rest (``PositionOrientationGoal``): the two bones move as one;
``HINGE``  the point, and the bone's *Hinge Axis* (``aim_axis``) parallel to the other bone's
    *Axis* (``target_axis``) (``PositionOrientationGoal`` with one direction): a hinge pin;
``SLIDER`` the point on the line through the other bone's point along its *Axis*
    (``LineGoal``): a slider; with *Keep Orientation* a second constraint (``OrientationGoal``,
    named ``"<item> (orientation)"``) holds the weld's orientation too.

The solver's chain of such a constraint starts at the lowest bone above both chains' tops
(:func:`loop_root`): it holds both sides' joints, and the joints above it move both points
alike, so they change nothing of the loop's closure. (A solver constraint has one chain root;
so a bone between that common bone and a chain's top, which another constraint solves, joins
this chain too: the chain is exactly Chain + Target Chain when the two tops are children of
one bone, as ``reach.attach_to_bone`` makes them.)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from ...props.access import armature_data
from ..blender.axes import AXIS_VECTORS, signed_axis
from . import chains

if TYPE_CHECKING:
    import bpy

    from ...props.groups import ReachConstraint

#: Added to a slider's name for its second constraint, which keeps the orientation.
ORIENTATION_SUFFIX = " (orientation)"

#: The goal type (``POSITION``, ``LINE``, ...) each *Hold* is solved and measured as.
HOLD_KINDS = {
    "POINT": "POSITION",
    "WELD": "POSITION_ORIENTATION",
    "HINGE": "POSITION_ORIENTATION",
    "SLIDER": "LINE",
}


def solver_kind(item: ReachConstraint) -> str:
    """The goal type ``item`` is solved as: its own, or its *Hold*'s for *Attach to Bone*."""
    if item.goal_type == "ATTACH":
        return HOLD_KINDS[item.attach_hold]
    return item.goal_type


def suppress(item: ReachConstraint) -> str:
    """The orientation direction left free: a hinge matches only Y (its axis), a weld both."""
    if item.goal_type != "ATTACH":
        return item.suppress
    return "X" if item.attach_hold == "HINGE" else "NONE"


def effector_axes(item: ReachConstraint) -> tuple[np.ndarray | None, np.ndarray | None]:
    """The end-effector's directions ``x``, ``y`` (3,) in its bone's frame for an *Attach to
    Bone* item: a weld's X and Y, a hinge's axis as ``y``; (None, None) for a point or a
    slider."""
    if item.attach_hold == "WELD":
        return AXIS_VECTORS["X"], AXIS_VECTORS["Y"]
    if item.attach_hold == "HINGE":
        return None, signed_axis(item.aim_axis)
    return None, None


def relative_axes(arm: bpy.types.Object, item: ReachConstraint) -> np.ndarray | None:
    """The goal's axes (3, 3) (columns X, Y, Z) in the target bone's frame, or None for the
    target bone's own axes.

    A weld: the bone's rest axes in the other bone's rest frame (armature space, so the pair
    keeps the orientation it has at rest). A hinge: the other bone's *Axis* as the goal's Y.
    A slider's line direction is read from *Axis* like a Line goal's.
    """
    if item.goal_type != "ATTACH" or item.attach_hold not in ("WELD", "HINGE"):
        return None
    if item.attach_hold == "HINGE":
        out = np.eye(3)
        out[:, 1] = signed_axis(item.target_axis)
        return out
    return rest_axes(arm, item)


def keeps_orientation(item: ReachConstraint) -> bool:
    """Whether ``item`` is a slider that also keeps its orientation (a second constraint)."""
    return item.goal_type == "ATTACH" and item.attach_hold == "SLIDER" and item.slider_orientation


def rest_axes(arm: bpy.types.Object, item: ReachConstraint) -> np.ndarray:
    """The bone's rest axes (3, 3) in the other bone's rest frame: the orientation a weld, or
    a slider keeping its orientation, holds. Armature space for a bone of ``arm``; for a bone
    of another armature, the world, with both armature objects placed as they are now."""
    own = np.array(armature_data(arm).bones[item.bone].matrix_local, dtype=float)[:3, :3]
    target = item.target
    if target is None or target == arm:
        other = np.array(armature_data(arm).bones[item.target_bone].matrix_local, dtype=float)
        relative = other[:3, :3].T @ own
    else:  # a bone of another armature: both in the world (object rotations, scale divided out)
        other = np.array(target.matrix_world, dtype=float) @ np.array(
            armature_data(target).bones[item.target_bone].matrix_local, dtype=float
        )
        own = np.array(arm.matrix_world, dtype=float)[:3, :3] @ own
        relative = other[:3, :3].T @ own
    u, _s, vt = np.linalg.svd(relative)  # orthonormal (rest matrices, scale, round-off)
    return u @ vt


def target_chain(
    arm: bpy.types.Object, item: ReachConstraint, error: Callable[[str], Exception]
) -> tuple[list[str], str | None]:
    """Bones of the item's *Target Chain* (target bone first) and its topmost bone; ([], None)
    when it has none (``NONE``, or a target that is not a bone of ``arm``)."""
    if item.target != arm or not item.target_bone or item.target_chain_mode == "NONE":
        return [], None
    return chains.walk(
        armature_data(arm).bones, item.target_bone, item.target_chain_mode,
        item.target_chain_root, item.target_chain_length, error,
        f"Constraint '{item.name}' (Target Chain)",
    )  # fmt: skip


def target_chain_top(arm: bpy.types.Object, item: ReachConstraint) -> str | None:
    """The topmost bone of ``item``'s *Target Chain*, or None when it has none or its settings
    name no bone of ``arm`` (the next solve names the problem)."""
    if item.target_bone not in armature_data(arm).bones:
        return None
    try:  # a Target Chain Root that is no bone, or not above the target bone
        return target_chain(arm, item, ValueError)[1]
    except ValueError:
        return None


def loop_root(arm: bpy.types.Object, top: str, target_top: str) -> str | None:
    """The lowest bone at or above both chain tops (the solver's chain root of a loop whose
    two sides move), or None when they hang off different roots (every ancestor then)."""
    bones = armature_data(arm).bones
    above_target = set(chains.lineage(bones, target_top))
    return next((b for b in chains.lineage(bones, top) if b in above_target), None)


def check_loop(
    arm: bpy.types.Object,
    item: ReachConstraint,
    moved: list[str],
    error: Callable[[str], Exception],
) -> None:
    """Refuse an *Attach to Bone* no solved bone can close: every bone of its chains
    (``moved``, both sides) is at or above both the bone and the other bone, so it moves the
    two points alike (the other bone hangs below the bone's chain, and has no chain of its
    own)."""
    if item.target != arm:  # a bone of another armature: no bone of ``arm`` carries it
        return
    bones = armature_data(arm).bones
    common = set(chains.lineage(bones, item.bone)) & set(chains.lineage(bones, item.target_bone))
    if all(name in common for name in moved):
        raise error(
            f"Constraint '{item.name}': bone '{item.bone}' is attached to '{item.target_bone}', "
            f"and every bone its chain moves ({', '.join(moved)}) carries both bones alike, so "
            "no loop closes; give the other bone a Target Chain, or attach to a bone that does "
            f"not hang below '{item.bone}''s chain"
        )


def check_item(
    arm: bpy.types.Object, item: ReachConstraint, error: Callable[[str], Exception]
) -> None:
    """The checks only an *Attach to Bone* needs: a bone of an armature to attach to (of
    ``arm``, or of another armature, which is then solved with ``arm`` as one system when it
    has Reach constraints of its own: :mod:`..joined`), and no *Target Chain* on another
    armature (its bones move by that armature's own constraints)."""
    if item.goal_type != "ATTACH":
        return
    target = item.target
    if target is None or target.type != "ARMATURE":
        named = "no target" if target is None else f"target '{target.name}'"
        raise error(
            f"Constraint '{item.name}': Attach to Bone holds bone '{item.bone}' on another bone "
            f"of armature '{arm.name}', but it has {named}: set its Target to '{arm.name}' (or "
            "to another armature) and a Target Bone"
        )
    if not item.target_bone:
        raise error(f"Constraint '{item.name}': no bone to attach '{item.bone}' to (Target Bone)")
    if target != arm and item.target_chain_mode != "NONE":
        raise error(
            f"Constraint '{item.name}': a Target Chain moves bones of armature '{arm.name}' "
            f"only, and '{item.target_bone}' is a bone of armature '{target.name}': set Target "
            f"Chain to None; '{target.name}''s bones move as its own Reach constraints solve "
            f"them (give it one on '{item.target_bone}''s chain: both armatures are then solved "
            "as one system)"
        )
