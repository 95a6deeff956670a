"""Property groups: Reach constraints and solver settings on armature objects, rigidity on bones.

Everything lives in ID data (``Object.reach_ik``, ``PoseBone.reach_ik``), so it is saved with
the .blend file and undone with the scene. Every property is library-overridable, and the
constraint list takes insertions, so an animator can add constraints, solve and bake on a
library override of a linked character and keep the work when the file is saved.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import bpy
from bpy.props import (
    BoolProperty,
    CollectionProperty,
    EnumProperty,
    FloatProperty,
    FloatVectorProperty,
    IntProperty,
    PointerProperty,
    StringProperty,
)

from .automatic import LEGACY_DEGREES, LEGACY_TOLERANCE, RELATIVE_TOLERANCE, automatic
from .methods import method_items

if TYPE_CHECKING:
    from bpy._typing.rna_enums import (
        PropertyOverrideFlagCollectionItems,
        PropertyOverrideFlagItems,
    )

# ``override=`` of every property: editable on a library override, stored in the override.
OVERRIDABLE: set[PropertyOverrideFlagItems] = {"LIBRARY_OVERRIDABLE"}
# Collections also accept items added on the override after the library's own.
OVERRIDABLE_LIST: set[PropertyOverrideFlagCollectionItems] = {
    "LIBRARY_OVERRIDABLE",
    "USE_INSERTION",
}

GOAL_TYPES = (
    ("POSITION", "Position", "Move the end-effector point onto the target's location"),
    ("ORIENTATION", "Orientation", "Align the bone's X and Y axes with the target's X and Y axes"),
    (
        "POSITION_ORIENTATION",
        "Position & Orientation",
        "Both at once, mixed by the position weight",
    ),
    ("AIM", "Aim", "Point the aim axis of the bone, from the effector, at the target's location"),
    ("LINE", "Line", "Put the end-effector on the line through the target along its axis"),
    ("PLANE", "Plane", "Put the end-effector on the plane through the target, normal = its axis"),
    (
        "HALF_SPACE",
        "Half-space",
        "Keep the end-effector on the side of the target's plane its axis points to",
    ),
    (
        "ATTACH",
        "Attach to Bone",
        "Hold the end-effector on a point of another bone of this armature (Target Bone): a "
        "closed loop, both bones' chains solved as one system (Hold says what is held)",
    ),
)
#: What an *Attach to Bone* constraint holds (``ReachConstraint.attach_hold``).
ATTACH_HOLDS = (
    ("POINT", "Point", "The point only: a ball joint"),
    (
        "WELD",
        "Weld",
        "The point and the orientation the two bones have relative to each other at rest",
    ),
    (
        "HINGE",
        "Hinge",
        "The point and one axis: the bone's Hinge Axis kept parallel to the other bone's Axis "
        "(a hinge pin)",
    ),
    ("SLIDER", "Slider", "The point kept on the line along the other bone's Axis (a slider)"),
)
#: The chains a constraint's target side can have (``ReachConstraint.target_chain_mode``).
TARGET_CHAINS = (
    ("NONE", "None", "The target bone's own chain is not solved (it moves only as others move it)"),
    ("ALL", "All Ancestors", "Every parent of the target bone up to the root moves too"),
    ("ROOT", "Root Bone", "Bones from the target chain's root down to the target bone move too"),
    ("LENGTH", "Length", "This many bones, counted from the target bone upwards, move too"),
)
#: The solver's methods (every one registered in :mod:`solver.methods`), labelled.
METHODS = method_items()
AXES = (("X", "X", "Local X axis"), ("Y", "Y", "Local Y axis"), ("Z", "Z", "Local Z axis"))
SIGNED_AXES = (
    *AXES,
    ("-X", "-X", "Negative local X axis"),
    ("-Y", "-Y", "Negative local Y axis"),
    ("-Z", "-Z", "Negative local Z axis"),
)


def tolerance_property(
    name: str = "Tolerance",
    description: str = "Distance (scene units) at which a position goal counts as reached, "
    "when Automatic is off",
    **options: Any,
) -> Any:
    """The distance tolerance setting (scene units); ``options`` as for ``FloatProperty``."""
    return FloatProperty(
        name=name, description=description,
        default=LEGACY_TOLERANCE, min=1e-9, precision=6, **options,
    )  # fmt: skip


def _switch(key: str, value: str, legacy: float) -> tuple[Any, Any]:
    """Getter and setter of an *Automatic* switch stored under ID property ``key``; unstored,
    it reads as :func:`.automatic.automatic` of the property ``value`` (files saved
    before the switch existed keep a value someone chose, see :mod:`.automatic`)."""

    def get(self: bpy.types.PropertyGroup) -> bool:
        return automatic(self, key, getattr(self, value), legacy)

    def set(self: bpy.types.PropertyGroup, on: bool) -> None:
        self[key] = bool(on)

    return get, set


def automatic_property(what: str, key: str, value: str, legacy: float) -> Any:
    """The *Automatic* switch of setting ``value`` (``what``: the help text's sentence)."""
    get, set = _switch(key, value, legacy)
    return BoolProperty(override=OVERRIDABLE, name="Automatic", description=what, get=get, set=set)


def angle_tolerance_property(name: str = "Angle Tolerance", **options: Any) -> Any:
    """The angle tolerance setting (degrees); ``options`` as for ``FloatProperty``."""
    return FloatProperty(
        name=name,
        description="Angle (degrees) at which an orientation goal counts as reached",
        default=0.01, min=1e-6, precision=4, **options,
    )  # fmt: skip


class ReachBoneSettings(bpy.types.PropertyGroup):
    """Per-bone settings (``PoseBone.reach_ik``)."""

    use_rigidity: BoolProperty(
        override=OVERRIDABLE,
        name="Override Rigidity",
        description="Use Reach's own rigidity; when off, Blender's IK Stiffness is used",
        default=False,
    )
    rigidity: FloatVectorProperty(
        override=OVERRIDABLE,
        name="Rigidity",
        description="Resistance of each local rotation axis to motion (0 free, 1 locked)",
        size=3,
        min=0.0,
        max=1.0,
        default=(0.0, 0.0, 0.0),
        subtype="XYZ",
    )
    hold_lock_rotation: BoolProperty(
        override=OVERRIDABLE,
        name="Hold Lock Rotation",
        description=(
            "Keep this bone's locked Euler rotation channels fixed in a solve; off: the locks "
            "only affect the transform tools, as with Blender's IK (Convert turns it off on "
            "the chains it converts)"
        ),
        default=True,
    )
    driven: BoolProperty(
        override=OVERRIDABLE,
        name="Driven",
        description=(
            "This bone's channels are inputs (a crank angle, a piston length): read from its "
            "animation every frame, never solved or keyed; the chains through it move around it"
        ),
        default=False,
    )


class ReachConstraint(bpy.types.PropertyGroup):
    """One spatial constraint: an end-effector on a bone, a goal, and how much it matters."""

    # ``name`` comes from PropertyGroup.
    enabled: BoolProperty(override=OVERRIDABLE, name="Enabled", default=True)
    select: BoolProperty(
        override=OVERRIDABLE, name="Select", description="Selected for partial bakes", default=True
    )
    bone: StringProperty(
        override=OVERRIDABLE, name="Bone", description="Bone carrying the end-effector"
    )
    effector: EnumProperty(
        override=OVERRIDABLE,
        name="End-effector",
        items=(
            ("HEAD", "Head", "The bone's head"),
            ("TAIL", "Tail", "The bone's tail"),
            ("OFFSET", "Offset", "A point along the bone, as a fraction of its length"),
        ),
        default="TAIL",
    )
    offset: FloatProperty(
        override=OVERRIDABLE,
        name="Offset",
        description="Position along the bone (0 head, 1 tail)",
        default=0.5,
        soft_min=0.0,
        soft_max=1.0,
    )
    goal_type: EnumProperty(override=OVERRIDABLE, name="Goal", items=GOAL_TYPES, default="POSITION")
    group: StringProperty(
        override=OVERRIDABLE,
        name="Disjunction Group",
        description=(
            "Constraints of the same bone sharing a group name form one disjunction: "
            "satisfying any one member is enough (e.g. keep out of a box)"
        ),
    )
    target: PointerProperty(override=OVERRIDABLE, name="Target", type=bpy.types.Object)
    target_bone: StringProperty(
        override=OVERRIDABLE,
        name="Target Bone",
        description="Bone of the target armature (a bone of the same armature closes a loop)",
    )
    target_head_tail: FloatProperty(
        override=OVERRIDABLE,
        name="Target Head/Tail",
        description="Point on the target bone (0 head, 1 tail)",
        default=1.0,
        soft_min=0.0,
        soft_max=1.0,
    )
    target_axis: EnumProperty(
        override=OVERRIDABLE,
        name="Target Axis",
        description="Target axis used as line direction or plane normal",
        items=SIGNED_AXES,
        default="Z",
    )
    aim_axis: EnumProperty(
        override=OVERRIDABLE,
        name="Aim Axis",
        description="Bone axis that aims at the target",
        items=SIGNED_AXES,
        default="Y",
    )
    weight: FloatProperty(override=OVERRIDABLE, name="Weight", default=1.0, min=0.0, soft_max=10.0)
    position_weight: FloatProperty(
        override=OVERRIDABLE,
        name="Position Weight",
        description="Share of position in a position & orientation goal (the rest: orientation)",
        default=0.5,
        min=0.0,
        max=1.0,
    )
    degrees: FloatProperty(
        override=OVERRIDABLE,
        name="Degrees per Unit",
        description="Angle error (degrees) that weighs as much as one scene unit of distance "
        "(used when Automatic is off)",
        default=LEGACY_DEGREES,
        min=1e-4,
        soft_max=90.0,
    )
    auto_degrees: automatic_property(
        "Weigh one radian of orientation error like the rig's size (the longest chain the "
        "constraints move), so the rig solves alike at any scale; off: Degrees per Unit",
        "auto_degrees_choice", "degrees", LEGACY_DEGREES,
    )  # fmt: skip
    suppress: EnumProperty(
        override=OVERRIDABLE,
        name="Suppress",
        description="Orientation direction left free",
        items=(
            ("NONE", "None", "Match both X and Y axes"),
            ("X", "X", "Match only the Y axis (free to turn about it)"),
            ("Y", "Y", "Match only the X axis (free to turn about it)"),
        ),
        default="NONE",
    )
    chain_mode: EnumProperty(
        override=OVERRIDABLE,
        name="Chain",
        items=(
            (
                "ALL",
                "All Ancestors",
                "Every parent up to the root moves (on a character: a "
                "hand's chain moves the spine and hips too; Root Bone or Length limits it)",
            ),
            ("ROOT", "Root Bone", "Bones from the chain root down to the effector move"),
            ("LENGTH", "Length", "This many bones, counted from the effector upwards"),
        ),
        default="ALL",
    )
    chain_root: StringProperty(
        override=OVERRIDABLE, name="Chain Root", description="Topmost bone that moves"
    )
    chain_length: IntProperty(
        override=OVERRIDABLE, name="Chain Length", default=2, min=1, soft_max=30
    )
    # A Target Bone of the same armature (a closed loop, *Attach to Bone*): what is held and
    # the target side's own chain, solved with the constrained side's as one system.
    attach_hold: EnumProperty(
        override=OVERRIDABLE, name="Hold", items=ATTACH_HOLDS, default="POINT"
    )
    slider_orientation: BoolProperty(
        override=OVERRIDABLE,
        name="Keep Orientation",
        description="A slider also keeps the orientation the two bones have relative to each "
        "other at rest (a second constraint, '<name> (orientation)', in the reports)",
        default=False,
    )
    target_chain_mode: EnumProperty(
        override=OVERRIDABLE,
        name="Target Chain",
        description="Bones above the target bone (a bone of this armature) the solve moves too, "
        "so both sides of the loop move",
        items=TARGET_CHAINS,
        default="NONE",
    )
    target_chain_root: StringProperty(
        override=OVERRIDABLE, name="Target Chain Root", description="Topmost bone that moves"
    )
    target_chain_length: IntProperty(
        override=OVERRIDABLE, name="Target Chain Length", default=1, min=1, soft_max=30
    )


def _tag_for_live(settings: bpy.types.PropertyGroup, _context: bpy.types.Context) -> None:
    """A live switch changed: tag the armature so the next update sees it (setting a property
    from Python tags nothing) and live posing solves there if the switch is on."""
    obj = settings.id_data
    if isinstance(obj, bpy.types.Object):
        obj.update_tag()


class ReachResidual(bpy.types.PropertyGroup):
    """The last solve's residual of one constraint (for the panel)."""

    distance: FloatProperty(override=OVERRIDABLE, name="Distance", default=-1.0)
    angle: FloatProperty(override=OVERRIDABLE, name="Angle", default=-1.0)
    satisfied: BoolProperty(override=OVERRIDABLE, name="Satisfied", default=False)


class ReachSettings(bpy.types.PropertyGroup):
    """Everything Reach stores on an armature object (``Object.reach_ik``)."""

    constraints: CollectionProperty(override=OVERRIDABLE_LIST, type=ReachConstraint)
    active_index: IntProperty(override=OVERRIDABLE, name="Active Constraint", default=0)
    tolerance: tolerance_property(override=OVERRIDABLE)
    auto_tolerance: automatic_property(
        f"Tolerance relative to the rig's size: {RELATIVE_TOLERANCE:g} of the longest chain the "
        "constraints move, "
        "so a rig in centimetres, one scaled by 0.01 and one in metres solve alike; off: the "
        "Tolerance in scene units",
        "auto_tolerance_choice", "tolerance", LEGACY_TOLERANCE,
    )  # fmt: skip
    angle_tolerance: angle_tolerance_property(override=OVERRIDABLE)
    max_iterations: IntProperty(
        override=OVERRIDABLE, name="Iteration Limit", default=200, min=1, soft_max=5000
    )
    method: EnumProperty(
        override=OVERRIDABLE,
        name="Method",
        description="How the solver minimises the constraints' error",
        items=METHODS,
        default="gauss-newton-hybrid",
    )
    use_root_translation: BoolProperty(
        override=OVERRIDABLE,
        name="Root Translation",
        description="Let root bones move (three prismatic DOFs each, written as location)",
        default=False,
    )
    # Live posing (:mod:`..bridge.live`). Saved with the file: a file saved with Live on
    # re-poses its armature again after reopening, on the first edit of an input.
    live: BoolProperty(
        override=OVERRIDABLE,
        name="Live",
        description="Re-solve whenever a target, a Reach setting or a bone of this armature "
        "changes, and write the pose (keys only when Auto Keying is on, as a transform would)",
        default=False,
        update=_tag_for_live,
    )
    evaluate_on_frame_change: BoolProperty(
        override=OVERRIDABLE,
        name="Evaluate on Frame Change",
        description="Solve at every frame change (playback, scrubbing) from the animated "
        "targets and write the pose without keys: a preview of the shot before baking",
        default=False,
        update=_tag_for_live,
    )
    show_overlay: BoolProperty(
        override=OVERRIDABLE,
        name="Show Goals",
        description="Draw the constraints in the 3D View: effector to target lines, goal shapes "
        "(green: reached at the last solve, red: missed)",
        default=True,
    )
    bake_only_selected_bones: BoolProperty(
        override=OVERRIDABLE,
        name="Only Selected Bones",
        description="Bake Reach keys only the selected bones' solved channels (the solve still "
        "moves the whole chain; other bones play their own animation)",
        default=False,
    )
    bake_smooth: BoolProperty(
        override=OVERRIDABLE,
        name="Smooth",
        description="Bake Reach bounds every solved joint's change from one frame to the next "
        "by Largest Change, so a target passing near a singularity turns the limb over several "
        "frames instead of flipping it; a frame the bound holds can miss its target (the "
        "report counts them)",
        default=False,
    )
    bake_max_change: FloatProperty(
        override=OVERRIDABLE,
        name="Largest Change",
        description="Largest change of a solved joint per frame in a Smooth bake: degrees for "
        "rotations; a solved location channel moves at most this many scene units",
        default=10.0,
        min=1e-3,
        soft_max=180.0,
    )
    # Results of the last solve, shown by the panel.
    has_result: BoolProperty(override=OVERRIDABLE, default=False)
    status: StringProperty(override=OVERRIDABLE, name="Status")
    satisfied: BoolProperty(override=OVERRIDABLE, default=False)
    iterations: IntProperty(override=OVERRIDABLE, name="Iterations")
    dof_count: IntProperty(override=OVERRIDABLE, name="Degrees of Freedom")
    solve_time: FloatProperty(override=OVERRIDABLE, name="Time (ms)")
    residuals: CollectionProperty(override=OVERRIDABLE_LIST, type=ReachResidual)


classes = (ReachBoneSettings, ReachConstraint, ReachResidual, ReachSettings)


# Blender's types gain the RNA properties below at run time; the stubs cannot know them.
def register() -> None:
    """Register the property groups and attach them to Object and PoseBone."""
    for cls in classes:
        bpy.utils.register_class(cls)
    bpy.types.Object.reach_ik = PointerProperty(override=OVERRIDABLE, type=ReachSettings)  # pyright: ignore[reportAttributeAccessIssue]
    bpy.types.PoseBone.reach_ik = PointerProperty(override=OVERRIDABLE, type=ReachBoneSettings)  # pyright: ignore[reportAttributeAccessIssue]


def unregister() -> None:
    """Detach and unregister everything :func:`register` added."""
    del bpy.types.PoseBone.reach_ik  # pyright: ignore[reportAttributeAccessIssue]
    del bpy.types.Object.reach_ik  # pyright: ignore[reportAttributeAccessIssue]
    for cls in reversed(classes):
        bpy.utils.unregister_class(cls)
