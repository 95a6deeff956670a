"""Part of the bridge (:mod:`.build`): IK Stretch as Blender's own IK does it.

What Blender does (``iksolver_plugin.cc``, measured in bpy 4.2 and 5.0): a chain bone with
*IK Stretch* > 0 gets a translation DOF along its Y axis in the IK solver (the bone's length
``L`` plus a change ``t``, ``IK_QTranslateSegment``); its stretch is ``S = (L + t) / L``, and
the evaluated bone is scaled by ``S`` on all three axes (its tail, its drawn width and every
offset of its children grow by ``S``). A chain bone below it gets the scale ratio
``S_child / S_parent`` (1 / ``S_parent`` for a bone that does not stretch), so only the
stretched bones show a scale; bones outside the chain inherit the scale as usual. A child
whose *Inherit Scale* is None keeps its size without help; its head still follows the
stretched parent. The stretch has no upper limit; the translation's lower limit keeps a bone
from collapsing; the *IK Stretch* amount sets only the stiffness of the translation,
``1 - ik_stretch^2``.

Reach writes the same pose into the channels: ``scale = (k, k, k)`` with
``k = S_bone / S_parent`` on every stretched bone and on the solved children of one that
inherit its scale, so Blender's evaluation of the written channels is Blender's IK result.

The model (exact for children at any offset and effectors anywhere along the bone): the
stretch is one group parameter ``t = (S - 1) L`` (scene units, the translation change
Blender's IK solves for) driving one prismatic joint per point that hangs off the bone: a
child bone's head at offset ``d`` (bone frame, scene units) moves by ``t |d| / L`` along
``d`` (a helper segment ``<child>@stretch`` between the bone and the child), and an
end-effector at ``f L`` along the bone moves by ``f t`` along Y (a helper segment
``<bone>@tip<n>`` carrying the effector). Rotations stay on the bone's own segment, so the
helpers turn with it. A child's offset is read when the rig is built; a child whose location
changes later (an animated location during a bake) is not followed by the model.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from ... import solver

if TYPE_CHECKING:
    import bpy

    from .goals import ConstraintSpec
    from .joints import SolvedBone

#: Smallest stretch ``S`` (a bone keeps 1/1000 of its length; Blender's IK keeps its
#: translation above 1/1000 of the chain's size in its solver's units).
MIN_STRETCH = 1e-3
#: Blender clamps IK stiffness to this (``IK_SetStiffness``).
MAX_STIFFNESS = 0.99
#: Offsets shorter than this (scene units) do not move with the stretch.
EPS_OFFSET = 1e-9


def stretch_rigidity(ik_stretch: float) -> float:
    """Rigidity in [0, 0.99] of a stretch DOF: Blender's stiffness ``1 - ik_stretch^2``."""
    return float(min(max(1.0 - ik_stretch * ik_stretch, 0.0), MAX_STIFFNESS))


@dataclass
class StretchPlan:
    """The stretched bones of a figure and the prismatic joints their stretch drives.

    Attributes:
        lengths: stretched bone -> its length ``L`` (scene units, object scale applied).
        amounts: stretched bone -> its *IK Stretch* amount in (0, 1].
        attachments: stretched bone -> (prismatic joint, coefficient) pairs: the joint moves
            by ``coefficient * t``.
    """

    lengths: dict[str, float] = field(default_factory=dict)
    amounts: dict[str, float] = field(default_factory=dict)
    attachments: dict[str, list[tuple[str, float]]] = field(default_factory=dict)

    @classmethod
    def of(cls, obj: bpy.types.Object, chain_bones: Iterable[str], scale: float) -> StretchPlan:
        """The chain bones of ``obj`` with *IK Stretch* > 0 (``scale``: the object's)."""
        plan = cls()
        for name in chain_bones:
            pb = obj.pose.bones[name]
            if pb.ik_stretch > 0.0:
                plan.lengths[name] = pb.bone.length * scale
                plan.amounts[name] = float(pb.ik_stretch)
                plan.attachments[name] = []
        return plan

    def child_segment(self, fig: solver.Figure, child: str, parent: str, offset: np.ndarray) -> str:
        """The segment ``child`` hangs from: ``parent``, or a new helper that slides along
        the child's ``offset`` (3,) (parent's frame, scene units) when ``parent`` stretches."""
        distance = float(np.linalg.norm(offset))
        if parent not in self.lengths or distance <= EPS_OFFSET:
            return parent
        helper = f"{child}@stretch"
        fig.add_segment(helper, parent)
        joint = fig.add_prismatic(helper, offset / distance, name=f"{helper}:slide")
        self.attachments[parent].append((joint, distance / self.lengths[parent]))
        return helper

    def place_effectors(self, fig: solver.Figure, specs: Iterable[ConstraintSpec]) -> None:
        """Move each end-effector on a stretched bone (away from its head) onto a helper
        segment that slides by ``f t`` along Y (sets ``spec.segment``)."""
        helpers: dict[tuple[str, float], str] = {}
        for spec in specs:
            length = self.lengths.get(spec.bone)
            along = float(spec.point[1])
            if length is None or abs(along) <= EPS_OFFSET:
                continue
            key = (spec.bone, along)
            if key not in helpers:
                helper = f"{spec.bone}@tip{len(helpers)}"
                fig.add_segment(helper, spec.bone)
                joint = fig.add_prismatic(helper, (0.0, 1.0, 0.0), name=f"{helper}:slide")
                self.attachments[spec.bone].append((joint, along / length))
                helpers[key] = helper
            spec.segment = helpers[key]

    def add_groups(self, fig: solver.Figure, solved: dict[str, SolvedBone]) -> None:
        """One group parameter ``t`` per stretched bone with something hanging off it."""
        for name, attached in self.attachments.items():
            if not attached:
                continue  # nothing moves with this bone's stretch (effector at its head)
            length = self.lengths[name]
            [param] = fig.add_group(
                f"{name}:stretch",
                [joint for joint, _ in attached],
                [[coefficient] for _, coefficient in attached],
                lower=(MIN_STRETCH - 1.0) * length,
                rigidity=stretch_rigidity(self.amounts[name]),
            )
            info = solved[name]
            info.stretch, info.length, info.writes_scale = param, length, True

    @staticmethod
    def mark_children(obj: bpy.types.Object, solved: dict[str, SolvedBone]) -> None:
        """A solved child that inherits a stretched parent's scale writes its scale too
        (``S_child / S_parent``)."""
        for name, info in solved.items():
            parent = obj.pose.bones[name].parent
            if (
                parent is not None
                and parent.name in solved
                and solved[parent.name].stretch
                and inherits_scale(obj, name)
            ):
                info.writes_scale = True


def inherits_scale(obj: bpy.types.Object, name: str) -> bool:
    """Whether bone ``name`` takes its parent's (uniform) scale: every *Inherit Scale* mode
    but None does; its head follows the parent's scaled offset in every mode (measured)."""
    return obj.pose.bones[name].bone.inherit_scale not in ("NONE", "NONE_LEGACY")


def parent_stretch(
    obj: bpy.types.Object, name: str, stretch: Mapping[str, float], solved: Mapping[str, SolvedBone]
) -> float:
    """The stretch bone ``name`` inherits: its solved parent's ``S`` (``stretch``: stretched
    bone -> its current ``S``), 1 when the parent does not stretch or the bone does not
    inherit scale."""
    parent = obj.pose.bones[name].parent
    if parent is None or parent.name not in solved or not inherits_scale(obj, name):
        return 1.0
    return stretch.get(parent.name, 1.0)
