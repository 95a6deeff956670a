"""Bone constraints on chain bones that the model does not reproduce: the residual is measured
on Blender's pose, the correction passes run, and the panel names the constraint.

Each case puts one Blender constraint on the middle bone of a 3-bone chain that reaches for a
target with its tip. Whether the correction reaches the target depends on the constraint (a
Damped Track at full influence leaves the middle bone no swing of its own); what is checked
is that the report says what Blender draws, that correction was tried, and that the panel
lists the constraint in the constraint's details (it stays there, not only in a report).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from types import ModuleType

import bpy
import numpy as np
import pytest

from tests.blender.conftest import run_op, world_bone_tail
from tests.blender.panel_draw import draw_panels
from tests.blender.reach_scenes import (
    activate,
    add_constraint,
    add_empty,
    last_report,
    make_chain,
    tolerance_of,
)

Setup = Callable[[bpy.types.PoseBone], bpy.types.Constraint]


def _source() -> bpy.types.Object:
    return add_empty("source", (0.4, -0.3, 1.2), (0.3, -0.5, 0.8))


def _copy_rotation(pb: bpy.types.PoseBone) -> bpy.types.Constraint:
    con = pb.constraints.new("COPY_ROTATION")
    con.target, con.influence = _source(), 0.5
    return con


def _copy_location(pb: bpy.types.PoseBone) -> bpy.types.Constraint:
    con = pb.constraints.new("COPY_LOCATION")
    con.target, con.influence = _source(), 0.5
    return con


def _child_of(pb: bpy.types.PoseBone) -> bpy.types.Constraint:
    con = pb.constraints.new("CHILD_OF")
    con.target = _source()
    con.set_inverse_pending = False  # else Blender keeps the bone where it is: no effect
    return con


def _damped_track(pb: bpy.types.PoseBone) -> bpy.types.Constraint:
    con = pb.constraints.new("DAMPED_TRACK")
    con.target = _source()
    return con


def _track_to(pb: bpy.types.PoseBone) -> bpy.types.Constraint:
    con = pb.constraints.new("TRACK_TO")
    con.target, con.influence = _source(), 0.4
    con.track_axis, con.up_axis = "TRACK_Y", "UP_Z"
    return con


def _stretch_to(pb: bpy.types.PoseBone) -> bpy.types.Constraint:
    con = pb.constraints.new("STRETCH_TO")
    con.target = add_empty("source", (0.5, 0.2, 1.9))
    return con


def _transformation(pb: bpy.types.PoseBone) -> bpy.types.Constraint:
    con = pb.constraints.new("TRANSFORM")
    con.target = add_empty("source", (0.5, 0.0, 0.0))
    con.map_from, con.map_to = "LOCATION", "ROTATION"
    con.map_to_x_from, con.from_max_x, con.to_max_x_rot = "X", 1.0, math.radians(90.0)
    return con


def _world_limit_rotation(pb: bpy.types.PoseBone) -> bpy.types.Constraint:
    con = pb.constraints.new("LIMIT_ROTATION")
    con.owner_space = "WORLD"
    con.use_limit_x, con.min_x, con.max_x = True, -0.2, 0.2
    con.use_limit_y, con.min_y, con.max_y = True, -0.2, 0.2
    return con


CASES = [
    (_copy_rotation, "Copy Rotation"),
    (_copy_location, "Copy Location"),
    (_child_of, "Child Of"),
    (_damped_track, "Damped Track"),
    (_track_to, "Track To"),
    (_stretch_to, "Stretch To"),
    (_transformation, "Transformation"),
    (_world_limit_rotation, "Limit Rotation"),
]


@pytest.mark.parametrize(("setup", "kind"), CASES, ids=[kind for _setup, kind in CASES])
def test_a_chain_bone_constraint_is_measured_corrected_and_listed(
    clean_scene: bpy.types.Scene, extension: ModuleType, setup: Setup, kind: str
) -> None:
    obj = make_chain(connected=False)  # Blender ignores location constraints on connected bones
    con = setup(obj.pose.bones["b1"])
    target = add_empty("T", (1.1, 0.4, 1.9))
    add_constraint(obj, "b2", target, "POSITION")
    activate(obj)
    run_op(bpy.ops.reach.solve)
    bpy.context.view_layer.update()
    report = last_report(obj)
    [outcome] = report.constraints
    miss = float(np.linalg.norm(world_bone_tail(obj, "b2") - np.array(target.location)))
    # The residual is the one Blender draws, and "reached" means within tolerance.
    assert abs(outcome.measured.distance - miss) < 1e-6
    assert outcome.satisfied == report.satisfied == (miss <= tolerance_of(obj))
    assert report.passes > 0  # the first solve missed on Blender's pose: correction ran
    named = f"bone 'b1' has a {kind} constraint '{con.name}'"
    assert named in outcome.reason
    assert ("reached after correction" in outcome.reason) == outcome.satisfied
    # The constraint's details in the panel list it, whatever the last solve was.
    labels = [text for entry, text in draw_panels(extension) if entry == "label"]
    listed = f"bone 'b1': {kind} '{con.name}'"
    assert any(text.startswith(listed) for text in labels), labels


def test_modelled_and_muted_constraints_are_not_listed(
    clean_scene: bpy.types.Scene, extension: ModuleType
) -> None:
    obj = make_chain()
    limit = obj.pose.bones["b1"].constraints.new("LIMIT_ROTATION")  # local: the joint limits
    limit.use_limit_x, limit.min_x, limit.max_x = True, -0.5, 0.5
    limit.owner_space, limit.influence = "LOCAL", 0.5
    _damped_track(obj.pose.bones["b0"]).mute = True
    add_constraint(obj, "b2", add_empty("T", (1.1, 0.4, 1.9)), "POSITION")
    activate(obj)
    labels = [text for entry, text in draw_panels(extension) if entry == "label"]
    assert not any(text.startswith("bone 'b") for text in labels), labels
    run_op(bpy.ops.reach.solve)
    report = last_report(obj)
    assert report.satisfied and report.passes == 0


def _not_modelled(extension: ModuleType) -> list[str]:
    """The "Not modelled" lines the constraint box draws now."""
    heading = extension.bridge.measure.not_modelled.HEADING
    labels = [text for entry, text in draw_panels(extension) if entry == "label"]
    if heading not in labels:
        return []
    after = labels[labels.index(heading) + 1 :]
    return list(itertools.takewhile(lambda text: text.startswith(("bone '", "target '")), after))


def test_panel_lists_what_the_rig_holds_at_the_draw(
    clean_scene: bpy.types.Scene, extension: ModuleType
) -> None:
    """The constraint box reads its "Not modelled" lines from the rig at each draw, never a
    copy kept from the last build or solve: an edit shows at the next draw, with no solve and
    no depsgraph update in between (a stale list would name what is no longer there)."""
    obj = make_chain()
    add_constraint(obj, "b2", add_empty("T", (1.1, 0.4, 1.9)), "POSITION")
    activate(obj)
    run_op(bpy.ops.reach.solve)  # the rig is built and solved: what it read then is old
    assert _not_modelled(extension) == []
    con = _copy_rotation(obj.pose.bones["b1"])
    assert _not_modelled(extension) == ["bone 'b1': Copy Rotation 'Copy Rotation' (influence 0.5)"]
    con.name, con.influence = "Follow", 1.0
    assert _not_modelled(extension) == ["bone 'b1': Copy Rotation 'Follow'"]
    con.mute = True
    assert _not_modelled(extension) == []
