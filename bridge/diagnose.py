"""Why Blender's evaluated pose differs from the solver's model, in one line.

When the residual measured on Blender's pose (:mod:`.measure`) and the modelled one disagree,
something in the rig moves the bones after the pose channels are written, or moves the
target with the solve. :func:`explain` scans what the model leaves out, in the order a user
would look: the chain's bone constraints, drivers on its pose channels, bones that do not
inherit their parent's rotation or scale, pose scale, and a target that hangs off the
armature itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .rig_goals import ConstraintSpec
from .settings import armature_data

if TYPE_CHECKING:
    import bpy

UNKNOWN = "Blender evaluates this chain differently from the solver's model"


def _modelled(con: bpy.types.Constraint) -> bool:
    """Bone constraints the model reproduces exactly: a muted one, or a full local-space
    Limit Rotation (it becomes the joint limits)."""
    if con.mute or con.influence == 0.0:
        return True
    return con.type == "LIMIT_ROTATION" and con.owner_space == "LOCAL" and con.influence == 1.0


def _chain(obj: bpy.types.Object, bone: str) -> list[str]:
    """The bone and all its parents (effector first): every bone that moves the effector."""
    out = []
    b = armature_data(obj).bones[bone]
    while b is not None:
        out.append(b.name)
        b = b.parent
    return out


def _driven_bones(obj: bpy.types.Object) -> dict[str, str]:
    """Bone name -> the first driven pose-channel path of that bone."""
    out: dict[str, str] = {}
    animation = obj.animation_data
    if animation is None:
        return out
    for fcurve in animation.drivers:
        path = fcurve.data_path
        if path.startswith('pose.bones["'):
            name = path[len('pose.bones["') : path.find('"]')]
            out.setdefault(name.replace('\\"', '"').replace("\\\\", "\\"), path)
    return out


def _bone_reason(obj: bpy.types.Object, name: str, driven: dict[str, str]) -> str:
    pb, bone = obj.pose.bones[name], armature_data(obj).bones[name]
    for con in pb.constraints:
        if not _modelled(con):
            kind = "IK" if con.type == "IK" else con.type.replace("_", " ").title()
            article = "an" if kind[0] in "AEIOU" else "a"
            share = f" at influence {con.influence:g}" if con.influence < 1.0 else ""
            return (
                f"bone '{name}' has {article} {kind} constraint '{con.name}'{share} that "
                "overrides the solve"
            )
    if name in driven:
        channel = driven[name].split(".")[-1]
        return f"bone '{name}' is driven ({channel}): the driver overrides the solve"
    if not bone.use_inherit_rotation:
        return f"bone '{name}' does not inherit its parent's rotation (not modelled)"
    if bone.inherit_scale != "FULL":
        return f"bone '{name}' inherits scale as '{bone.inherit_scale}' (not modelled)"
    if any(abs(s - 1.0) > 1e-6 for s in pb.scale):
        return f"bone '{name}' has a pose scale (not modelled)"
    return ""


def _target_reason(obj: bpy.types.Object, spec: ConstraintSpec) -> str:
    for binding in spec.bindings:
        if binding.carrier is not None:
            continue
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
        target = binding.target
        for con in getattr(target, "constraints", ()):
            if not con.mute and getattr(con, "target", None) == obj:
                return (
                    f"target '{target.name}' follows the armature through constraint '{con.name}'"
                )
    return ""


def explain(obj: bpy.types.Object, spec: ConstraintSpec) -> str:
    """One line saying what in the rig makes Blender's pose differ from the model.

    Args:
        obj: the armature object.
        spec: the constraint whose measured residual disagrees with the modelled one.

    Returns:
        The first cause found (a bone constraint, a driver, a bone not inheriting rotation
        or scale, pose scale, a target that moves with the armature), or :data:`UNKNOWN`.
    """
    driven = _driven_bones(obj)
    for name in _chain(obj, spec.bone):
        reason = _bone_reason(obj, name, driven)
        if reason:
            return reason
    return _target_reason(obj, spec) or UNKNOWN
