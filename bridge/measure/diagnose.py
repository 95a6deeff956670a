"""Why Blender's evaluated pose differs from the solver's model, in one line.

When the residual measured on Blender's pose (:mod:`.residuals`) and the modelled one disagree,
something in the rig moves the bones after the pose channels are written, or moves the
target with the solve. :func:`explain` scans what the model leaves out, in the order a user
would look: the chain's bone constraints, drivers on its pose channels, pose scale the
figure cannot express (:mod:`..rig.pose_scale`), and a target that hangs off the armature itself.
"""

from __future__ import annotations

from collections.abc import Container
from typing import TYPE_CHECKING

from ...props.access import armature_data
from ..rig.carried_targets import constraint_link
from ..rig.goals import ConstraintSpec
from ..rig.pose_scale import scale_reason
from ..rig.still_bones import constrained_still_bones

if TYPE_CHECKING:
    import bpy

UNKNOWN = "Blender evaluates this chain differently from the solver's model"
#: Constraint types whose name in Blender's menu is not their identifier in title case.
KINDS = {
    "IK": "IK",
    "SPLINE_IK": "Spline IK",
    "TRANSFORM": "Transformation",
    "SAME_VOLUME": "Maintain Volume",
}


def modelled(con: bpy.types.Constraint) -> bool:
    """Bone constraints the solve accounts for: a muted one (or of influence 0), or a
    local-space Limit Rotation (its limits become the joint limits, so a solved pose is
    inside them and the constraint leaves it alone at any influence)."""
    if con.mute or con.influence <= 0.0:
        return True
    return con.type == "LIMIT_ROTATION" and con.owner_space == "LOCAL"


def kind(con: bpy.types.Constraint) -> str:
    """The constraint type in words, as Blender's Add Constraint menu names it ("Copy
    Rotation", "Transformation", ...; "IK" for Inverse Kinematics)."""
    return KINDS.get(con.type) or con.type.replace("_", " ").title()


def interfering(obj: bpy.types.Object, bone: str, root: str | None = None) -> list[str]:
    """One line per bone constraint that moves ``bone`` after the solve writes the pose.

    Every enabled constraint on the bone and its parents that :func:`modelled` does not
    cover, e.g. ``"bone 'b1': Copy Rotation 'Copy Rotation' (influence 0.5)"``, parents
    last. The solve measures such a chain on Blender's pose and runs correction passes.
    Above the chain's topmost bone ``root`` (None: the chain goes up to the armature's root)
    a constrained bone is read where Blender evaluates it (:mod:`..rig.still_bones`), so only a
    bone there that does not inherit its parent's rotation (its channels are read) gives
    lines. An unknown bone gives no line.
    """
    bones = armature_data(obj).bones
    if bone not in bones:
        return []
    lines = []
    above = False  # past the chain's topmost bone
    for name in _chain(obj, bone):
        read = above and (bones[name].use_inherit_rotation or bones[name].parent is None)
        for con in () if read else obj.pose.bones[name].constraints:
            if not modelled(con):
                share = f" (influence {con.influence:g})" if con.influence < 1.0 else ""
                lines.append(f"bone '{name}': {kind(con)} '{con.name}'{share}")
        above = above or name == root
    return lines


def _chain(obj: bpy.types.Object, bone: str) -> list[str]:
    """The bone and all its parents (effector first): every bone that moves the effector."""
    out = []
    b = armature_data(obj).bones[bone]
    while b is not None:
        out.append(b.name)
        b = b.parent
    return out


#: Pose-channel properties whose driver overrides the pose the solve writes.
CHANNELS = (".location", ".rotation_", ".scale")


def _driven_bones(obj: bpy.types.Object) -> dict[str, str]:
    """Bone name -> the first path of an enabled driver on that bone's pose channels.

    A driver on one of the bone's constraints (Rigify drives the ``mute`` of its IK
    constraints; Convert mutes those drivers) does not move the bone by itself: the
    constraint is named when it interferes, the driver is not.
    """
    out: dict[str, str] = {}
    animation = obj.animation_data
    if animation is None:
        return out
    for fcurve in animation.drivers:
        path = fcurve.data_path
        if fcurve.mute or not path.startswith('pose.bones["'):
            continue
        end = path.find('"]')
        if path[end + 2 :].startswith(CHANNELS):
            name = path[len('pose.bones["') : end]
            out.setdefault(name.replace('\\"', '"').replace("\\\\", "\\"), path)
    return out


def _bone_reason(obj: bpy.types.Object, name: str, driven: dict[str, str]) -> str:
    pb = obj.pose.bones[name]
    for con in pb.constraints:
        if not modelled(con):
            name_of_kind = kind(con)
            article = "an" if name_of_kind[0] in "AEIOU" else "a"
            share = f" at influence {con.influence:g}" if con.influence < 1.0 else ""
            return (
                f"bone '{name}' has {article} {name_of_kind} constraint '{con.name}'{share} "
                "that overrides the solve"
            )
    if name in driven:
        channel = driven[name].split(".")[-1]
        return f"bone '{name}' is driven ({channel}): the driver overrides the solve"
    return scale_reason(obj, name)


def _follows(obj: bpy.types.Object, con: bpy.types.Constraint) -> bool:
    """An enabled object constraint that reads the armature ``obj`` (its bones move)."""
    if con.mute or con.influence <= 0.0:
        return False
    targets = [getattr(con, "target", None)]
    targets += [t.target for t in getattr(con, "targets", ())]  # an Armature constraint's
    return obj in targets


def target_links(obj: bpy.types.Object, target: bpy.types.Object | None) -> list[str]:
    """One line per way ``target`` follows the armature ``obj`` that the solve does not model.

    Walks the target and its parents: an enabled constraint reading the armature (Copy
    Location, a Child Of with some channels off, ...) on any of them, a bone parent with
    *Relative Parenting*, or a bone parent below an object with enabled constraints. A target
    carried by a bone (bone-parented, or held by a full Child Of or a Copy Transforms, see
    :mod:`..rig.carried_targets`) gives no line: the solve models it.
    """
    if target is None:
        return []
    lines: list[str] = []
    child: bpy.types.Object | None = target
    constrained = ""
    while child is not None and child != obj:
        of = "" if child == target else f" of '{child.name}'"
        link = constraint_link(obj, child)  # carried by its bone when the solve moves it
        for con in child.constraints:
            if con == link:
                continue
            if _follows(obj, con):
                lines.append(
                    f"target '{target.name}' follows the armature through constraint "
                    f"'{con.name}'{of}"
                )
            elif not con.mute and con.influence > 0.0 and not constrained:
                constrained = f"constraint '{con.name}'{of}"
        parent = child.parent
        if parent == obj and child.parent_type == "BONE":
            bone = armature_data(obj).bones.get(child.parent_bone)
            where = f"target '{target.name}' is parented to bone '{child.parent_bone}'"
            if bone is not None and bone.use_relative_parent:
                lines.append(f"{where} with Relative Parenting (not modelled)")
            elif constrained and not lines:
                lines.append(f"{where} under {constrained} (not modelled)")
        child = parent
    return lines


def _target_reason(obj: bpy.types.Object, spec: ConstraintSpec) -> str:
    for binding in spec.bindings:
        if binding.carrier is not None:
            continue
        lines = target_links(obj, binding.target)
        if lines:
            return lines[0]
        child = binding.target
        while child is not None:
            parent = child.parent
            if parent == obj:
                via = f"bone '{child.parent_bone}'" if child.parent_type == "BONE" else "it"
                return (
                    f"target '{binding.target.name}' is parented to the armature ({via}), "
                    "so it moves with the solve"
                )
            child = parent
    return ""


def explain(
    obj: bpy.types.Object, spec: ConstraintSpec, solved: Container[str] | None = None
) -> str:
    """One line saying what in the rig makes Blender's pose differ from the model.

    Args:
        obj: the armature object.
        spec: the constraint whose measured residual disagrees with the modelled one.
        solved: the bones the solve moves. A constrained bone none of them moves is read
            where Blender evaluates it (:mod:`..rig.still_bones`), so it is not a cause; None:
            every bone of the chain is considered.

    Returns:
        The first cause found (a bone constraint, a driver, pose scale the model cannot
        express, a target that moves with the armature), or :data:`UNKNOWN`.
    """
    driven = _driven_bones(obj)
    chain = _chain(obj, spec.bone)
    read = set() if solved is None else set(constrained_still_bones(obj, chain, solved))
    for name in chain:
        if name in read:
            continue
        reason = _bone_reason(obj, name, driven)
        if reason:
            return reason
    return _target_reason(obj, spec) or UNKNOWN
