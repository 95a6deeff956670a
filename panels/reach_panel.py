"""View3D > Sidebar > "Reach": constraint list, details, solver settings, rigidity, results."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

import bpy

from ..bridge.bake.baking import BakeReport
from ..bridge.live.posing import live_alone, live_error
from ..bridge.measure.frame_report import IGNORED, FrameReport, residual_text
from ..bridge.measure.not_modelled import HEADING, not_modelled
from ..bridge.rig.size import degrees_per_unit, distance_tolerance, rig_length
from ..bridge.session import last_report
from ..props.access import armature_data, bone_settings_of, settings_of
from ..props.automatic import RELATIVE_TOLERANCE
from ..props.methods import method_label

if TYPE_CHECKING:
    from ..bridge.measure.conditioning_readout import ConditioningReadout
    from ..props.groups import ReachConstraint, ReachSettings


def _armature(context: bpy.types.Context) -> bpy.types.Object | None:
    obj = context.active_object
    return obj if obj is not None and obj.type == "ARMATURE" else None


def _active_armature(context: bpy.types.Context) -> bpy.types.Object:
    """The active armature, which the panels' poll has checked is there."""
    obj = _armature(context)
    assert obj is not None, "the panel's poll checks for an active armature"
    return obj


def _bones(obj: bpy.types.Object) -> bpy.types.ArmatureBones:
    """The bones of an armature object's data, typed."""
    return armature_data(obj).bones


class REACH_UL_constraints(bpy.types.UIList):
    """One row per Reach constraint: enabled, selected, name, goal type."""

    def draw_item(
        self,
        context: bpy.types.Context,
        layout: bpy.types.UILayout,
        data: object,
        item: object | None,
        icon: int | None,
        active_data: object,
        active_property: str | None,
        index: int | None = 0,
        flt_flag: int | None = 0,
    ) -> None:
        row = layout.row(align=True)
        row.prop(item, "enabled", text="")
        row.prop(item, "select", text="", icon="RESTRICT_SELECT_OFF")
        row.prop(item, "name", text="", emboss=False)
        goal_type = cast("ReachConstraint", item).goal_type
        row.label(text=goal_type.replace("_", " ").title())


class _ReachPanel(bpy.types.Panel):
    bl_space_type = "VIEW_3D"
    bl_region_type = "UI"
    bl_category = "Reach"

    @classmethod
    def poll(cls, context: bpy.types.Context) -> bool:
        return _armature(context) is not None


class REACH_PT_main(_ReachPanel):
    """Constraint list and the selected constraint's details."""

    bl_label = "Reach IK"

    def draw_header(self, context: bpy.types.Context) -> None:
        obj = _armature(context)
        if obj is not None:
            self.layout.prop(settings_of(obj), "live", text="Live")

    def draw(self, context: bpy.types.Context) -> None:
        obj = _active_armature(context)
        settings = settings_of(obj)
        layout = self.layout
        error = live_error(obj)
        if error:
            layout.label(text=error, icon="ERROR")
        alone = live_alone(obj, context.view_layer)
        if alone:  # not modelled: say so where the user looks
            layout.label(text=alone, icon="INFO")
        row = layout.row()
        row.template_list(
            "REACH_UL_constraints", "", settings, "constraints", settings, "active_index", rows=4
        )
        col = row.column(align=True)
        col.operator("reach.constraint_add", icon="ADD", text="")
        col.operator("reach.constraint_remove", icon="REMOVE", text="")
        col.separator()
        col.operator("reach.constraint_move", icon="TRIA_UP", text="").direction = "UP"  # pyright: ignore[reportAttributeAccessIssue]  (Reach's operator property, unknown to the stubs)
        col.operator("reach.constraint_move", icon="TRIA_DOWN", text="").direction = "DOWN"  # pyright: ignore[reportAttributeAccessIssue]  (Reach's operator property, unknown to the stubs)
        layout.prop(settings, "show_overlay")
        row = layout.row(align=True)
        row.operator("reach.pin", icon="PINNED")
        row.operator("reach.attach_to_bone", icon="CONSTRAINT_BONE")
        row.operator("reach.convert_ik", icon="CON_KINEMATIC")
        if 0 <= settings.active_index < len(settings.constraints):
            _draw_constraint(layout.box(), obj, settings.constraints[settings.active_index])
        row = layout.row(align=True)
        row.operator("reach.solve", icon="PLAY").insert_keys = False  # pyright: ignore[reportAttributeAccessIssue]  (Reach's operator property, unknown to the stubs)
        row.operator("reach.solve", text="Solve & Key", icon="KEY_HLT").insert_keys = True  # pyright: ignore[reportAttributeAccessIssue]  (Reach's operator property, unknown to the stubs)
        row = layout.row(align=True)
        row.operator("reach.bake", icon="RENDER_ANIMATION")
        row.operator_menu_enum("reach.bake", "target", text="Bake To", icon="ACTION")
        row.operator("reach.clear_keys", icon="X")
        layout.prop(settings, "bake_only_selected_bones")
        row = layout.row(align=True)
        row.prop(settings, "bake_smooth")
        sub = row.row(align=True)
        sub.active = settings.bake_smooth
        sub.prop(settings, "bake_max_change")


def _draw_constraint(box: bpy.types.UILayout, obj: bpy.types.Object, item: ReachConstraint) -> None:
    box.prop(item, "name")
    box.prop_search(item, "bone", obj.data, "bones")
    row = box.row(align=True)
    row.prop(item, "effector", expand=True)
    if item.effector == "OFFSET":
        box.prop(item, "offset")
    box.prop(item, "goal_type")
    row = box.row(align=True)
    row.prop(item, "target")
    row.operator("reach.target_track", text="", icon="CURVE_BEZCIRCLE")
    if item.target is not None and item.target.type == "ARMATURE":
        box.prop_search(item, "target_bone", item.target.data, "bones")
        if item.target_bone:
            box.prop(item, "target_head_tail")
    # A closed loop: the other side's chain; on another armature's bone only while it is set
    # (the solve refuses it there, so the field to set it back stays in reach).
    if item.target_bone and (item.target == obj or item.target_chain_mode != "NONE"):
        _draw_target_chain(box, obj, item)
    if item.goal_type == "ATTACH":
        _draw_attach(box, obj, item)
    else:
        _draw_goal(box, obj, item)
    box.prop(item, "chain_mode")
    if item.chain_mode == "ROOT":
        box.prop_search(item, "chain_root", obj.data, "bones")
    elif item.chain_mode == "LENGTH":
        box.prop(item, "chain_length")
    lines = not_modelled(obj, item)  # read from the rig now: no solve needed, never stale
    if lines:
        col = box.column(align=True)
        col.label(text=HEADING, icon="ERROR")
        for line in lines:
            col.label(text=line)


def _draw_goal(box: bpy.types.UILayout, obj: bpy.types.Object, item: ReachConstraint) -> None:
    """The settings of a goal on a target (every goal type but Attach to Bone)."""
    kind = item.goal_type
    if kind in ("LINE", "PLANE", "HALF_SPACE"):
        box.prop(item, "target_axis")
    if kind == "AIM":
        box.prop(item, "aim_axis")
    if kind in ("ORIENTATION", "POSITION_ORIENTATION", "AIM"):
        _draw_degrees(box, item, rig_length(obj))
    if kind in ("ORIENTATION", "POSITION_ORIENTATION"):
        box.prop(item, "suppress")
    if kind == "POSITION_ORIENTATION":
        box.prop(item, "position_weight")
    box.prop(item, "weight")
    box.prop(item, "group")


def _draw_target_chain(
    box: bpy.types.UILayout, obj: bpy.types.Object, item: ReachConstraint
) -> None:
    box.prop(item, "target_chain_mode")
    if item.target_chain_mode == "ROOT":
        box.prop_search(item, "target_chain_root", obj.data, "bones")
    elif item.target_chain_mode == "LENGTH":
        box.prop(item, "target_chain_length")


def _draw_attach(box: bpy.types.UILayout, obj: bpy.types.Object, item: ReachConstraint) -> None:
    """What an *Attach to Bone* holds (its axes) and its weights."""
    box.prop(item, "attach_hold")
    hold = item.attach_hold
    if hold == "HINGE":
        box.prop(item, "aim_axis", text="Hinge Axis")
    if hold in ("HINGE", "SLIDER"):
        box.prop(item, "target_axis", text="Other Bone's Axis")
    if hold == "SLIDER":
        box.prop(item, "slider_orientation")
    if hold in ("WELD", "HINGE") or (hold == "SLIDER" and item.slider_orientation):
        _draw_degrees(box, item, rig_length(obj))
        box.prop(item, "position_weight")
    box.prop(item, "weight")


def _scene_units(value: float) -> str:
    return f"{value:.3g} units"


def _draw_degrees(box: bpy.types.UILayout, item: ReachConstraint, length: float | None) -> None:
    """Degrees per Unit: the Automatic switch, then the value in use (degrees per scene unit)."""
    row = box.row(heading="Degrees per Unit")
    row.prop(item, "auto_degrees")
    if not item.auto_degrees:
        box.prop(item, "degrees")
    elif length is None:
        box.label(text="1 radian weighs like the rig's size (shown after a solve)")
    else:
        box.label(text=f"1 radian weighs like {_scene_units(length)}: "
                  f"{degrees_per_unit(item, length):.3g} degrees per unit")  # fmt: skip


def _draw_tolerance(layout: bpy.types.UILayout, settings: ReachSettings,
                    length: float | None) -> None:  # fmt: skip
    """Tolerance: the Automatic switch, then the value in use in scene units."""
    row = layout.row(heading="Tolerance")
    row.prop(settings, "auto_tolerance")
    if not settings.auto_tolerance:
        layout.prop(settings, "tolerance")
    elif length is None:
        layout.label(text=f"{RELATIVE_TOLERANCE:g} of the rig's size (shown after a solve)")
    else:
        tolerance = _scene_units(distance_tolerance(settings, length))
        size = _scene_units(length)
        layout.label(text=f"{tolerance} ({RELATIVE_TOLERANCE:g} of the rig's size, {size})")


class REACH_PT_settings(_ReachPanel):
    """Solver settings of the armature."""

    bl_label = "Solver"
    bl_parent_id = "REACH_PT_main"
    bl_options = {"DEFAULT_CLOSED"}

    def draw(self, context: bpy.types.Context) -> None:
        obj = _active_armature(context)
        settings = settings_of(obj)
        layout = self.layout
        layout.prop(settings, "method")
        _draw_tolerance(layout, settings, rig_length(obj))
        layout.prop(settings, "angle_tolerance")
        layout.prop(settings, "max_iterations")
        layout.prop(settings, "use_root_translation")
        layout.prop(settings, "evaluate_on_frame_change")


class REACH_PT_bone(_ReachPanel):
    """Rigidity of the active bone."""

    bl_label = "Active Bone Rigidity"
    bl_parent_id = "REACH_PT_main"

    def draw(self, context: bpy.types.Context) -> None:
        obj = _active_armature(context)
        bone = _bones(obj).active
        layout = self.layout
        if bone is None:
            layout.label(text="No active bone")
            return
        pb = obj.pose.bones[bone.name]
        layout.label(text=pb.name, icon="BONE_DATA")
        rigidity = bone_settings_of(pb)
        layout.prop(rigidity, "use_rigidity")
        col = layout.column(align=True)
        if rigidity.use_rigidity:
            col.prop(rigidity, "rigidity")
        else:
            col.label(text="Using IK Stiffness:")
            col.prop(pb, "ik_stiffness_x", text="X")
            col.prop(pb, "ik_stiffness_y", text="Y")
            col.prop(pb, "ik_stiffness_z", text="Z")
        layout.prop(rigidity, "hold_lock_rotation")
        layout.prop(rigidity, "driven")


class REACH_PT_result(_ReachPanel):
    """Outcome of the last solve or bake, as measured on Blender's evaluated pose."""

    bl_label = "Last Solve"
    bl_parent_id = "REACH_PT_main"

    def draw(self, context: bpy.types.Context) -> None:
        report = last_report.last(_active_armature(context))
        if report is None:
            self.layout.label(text="Not solved yet")
        elif isinstance(report, BakeReport):
            draw_bake_report(self.layout, report)
        else:
            draw_report(self.layout, report)


def _residual_row(col: bpy.types.UILayout, name: str, distance: float | None,
                  angle: float | None, ok: bool, ignored: bool = False) -> None:  # fmt: skip
    """One constraint's row: its residual, reached or missed (or ignored: weight 0)."""
    if ignored:
        col.label(text=f"{name}: {residual_text(distance, angle)} ({IGNORED})", icon="DOT")
        return
    col.label(
        text=f"{name}: {residual_text(distance, angle)}", icon="CHECKMARK" if ok else "CANCEL"
    )


def _draw_conditioning(layout: bpy.types.UILayout, readout: ConditioningReadout | None) -> None:
    """The conditioning line of the written pose (computed when first drawn)."""
    if readout is not None:
        layout.label(text=readout.line, icon="ERROR" if readout.ill_conditioned else "NONE")


def draw_report(layout: bpy.types.UILayout, report: FrameReport) -> None:
    """A solve's :class:`FrameReport`: status, figures, one row per constraint and reason."""
    layout.label(text=report.status, icon="CHECKMARK" if report.satisfied else "ERROR")
    passes = f", {report.passes} correction passes" if report.passes else ""
    layout.label(
        text=f"{method_label(report.method)}: {report.dof} DOF, {report.iterations} iterations, "
        f"{report.seconds * 1000.0:.1f} ms{passes}"
    )
    _draw_conditioning(layout, report.conditioning)
    if report.determinacy is not None:  # computed when first drawn
        layout.label(text=report.determinacy.line)
    col = layout.column(align=True)
    for outcome in report.constraints:
        m = outcome.measured
        _residual_row(col, m.name, m.distance, m.angle, m.satisfied, outcome.ignored)
        if outcome.reason and not outcome.ignored:  # the row says why
            col.label(text=f"    {outcome.reason}", icon="INFO")
    for note in report.notes:
        col.label(text=note, icon="INFO")


def draw_bake_report(layout: bpy.types.UILayout, report: BakeReport) -> None:
    """A bake's :class:`BakeReport`: the worst residual of each constraint over the range."""
    n = len(report.frames)
    state = "every goal reached" if report.satisfied else "some goals missed"
    where = "measured on Blender's pose" if report.measured else "modelled"
    layout.label(
        text=f"Baked {n} frames: {state} ({where})",
        icon="CHECKMARK" if report.satisfied else "ERROR",
    )
    per_frame = report.solve_seconds * 1000.0 / max(n, 1)
    layout.label(
        text=f"{method_label(report.method)}: {report.n_dof} DOF, {per_frame:.1f} ms per frame, "
        f"{report.n_keys} keys"
    )
    _draw_conditioning(layout, report.conditioning)
    col = layout.column(align=True)
    for name, (distance, angle, ok) in report.worst.items():
        _residual_row(col, name, distance, angle, ok, name in report.ignored)
    for line in report.path_lines():  # batched or not, and why
        col.label(text=line[0].upper() + line[1:], icon="INFO")
    if report.smooth is not None:
        col.label(
            text=f"Smooth: {len(report.smooth.held)} frame(s) held by the bound "
            f"({report.smooth.change:g} degrees per frame)",
            icon="INFO",
        )
    if report.mechanism is not None:  # sub-steps taken, frames whose loop could not close
        for line in report.mechanism.lines():
            col.label(text=line.strip(), icon="INFO")
    for line in (*report.overrides, *report.notes):
        col.label(text=line, icon="INFO")


classes = (REACH_UL_constraints, REACH_PT_main, REACH_PT_settings, REACH_PT_bone, REACH_PT_result)
