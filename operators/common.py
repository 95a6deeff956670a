"""Helpers shared by the operators: result bookkeeping, channel lists, built-in IK muting."""

from __future__ import annotations

import bpy

from ..bridge.rig import Rig, rotation_data_path


def armature_of(context: bpy.types.Context) -> bpy.types.Object | None:
    """The active object when it is an armature, else None."""
    obj = context.active_object
    return obj if obj is not None and obj.type == "ARMATURE" else None


def bone_path(name: str, prop: str) -> str:
    """RNA path of a pose bone property, e.g. ``pose.bones["arm.L"].location``."""
    return f'pose.bones["{bpy.utils.escape_identifier(name)}"].{prop}'


def solved_channels(rig: Rig) -> list[tuple[str, int, str]]:
    """``(data_path, index, group)`` of every channel the rig's solve writes."""
    out = []
    for name, info in rig.solved.items():
        pb = rig.obj.pose.bones[name]
        rot_path = bone_path(name, rotation_data_path(pb))
        out.extend((rot_path, k, name) for k in info.keyed_rotation)
        out.extend((bone_path(name, "location"), axis, name) for axis, _ in info.location_joints)
    return out


def channel_value(rig: Rig, channels: dict, data_path: str, index: int, group: str) -> float:
    """Value of one channel from :meth:`Rig.channels` output."""
    rot, loc = channels[group]
    return float(loc[index] if data_path.endswith(".location") else rot[index])


def store_result(settings: object, names: list[str], worst: dict, status: str, nit: int,
                 seconds: float, dof: int) -> bool:  # fmt: skip
    """Save a solve/bake outcome on the armature for the panel; return "all satisfied".

    ``worst`` maps constraint name -> (distance or None, angle or None, satisfied).
    """
    settings.has_result = True
    settings.status = status
    settings.iterations = nit
    settings.dof_count = dof
    settings.solve_time = seconds * 1000.0
    settings.residuals.clear()
    all_ok = True
    for name in names:
        distance, angle, ok = worst[name]
        item = settings.residuals.add()
        item.name = name
        item.distance = -1.0 if distance is None else distance
        item.angle = -1.0 if angle is None else angle
        item.satisfied = ok
        all_ok &= ok
    settings.satisfied = all_ok
    return all_ok


def residual_text(worst: dict) -> str:
    """One line per constraint: distance, angle and whether it is satisfied."""
    lines = []
    for name, (distance, angle, ok) in worst.items():
        parts = []
        if distance is not None:
            parts.append(f"{distance:.2e} units")
        if angle is not None:
            parts.append(f"{angle:.3f} deg")
        state = "satisfied" if ok else "UNREACHED"
        lines.append(f"  {name}: {', '.join(parts) or '-'} ({state})")
    return "\n".join(lines)


def merge_residuals(worst: dict, residuals: tuple) -> None:
    """Fold one solve's residuals into per-constraint worst values (for bakes)."""
    for r in residuals:
        old = worst.get(r.name)
        if old is None:
            worst[r.name] = (r.distance, r.angle, r.satisfied)
            continue
        distance = _max(old[0], r.distance)
        angle = _max(old[1], r.angle)
        worst[r.name] = (distance, angle, old[2] and r.satisfied)


def _max(a: float | None, b: float | None) -> float | None:
    if a is None:
        return b
    if b is None:
        return a
    return max(a, b)


def builtin_ik_on(rig: Rig) -> list[bpy.types.Constraint]:
    """Blender's own (unmuted) IK constraints on the rig's solved bones."""
    out = []
    for name in rig.solved:
        for con in rig.obj.pose.bones[name].constraints:
            if con.type == "IK" and not con.mute:
                out.append(con)
    return out
