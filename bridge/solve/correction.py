"""Outer correction passes: move a goal by the discrepancy Blender's evaluation adds.

When Blender's evaluated pose puts the end-effector somewhere else than the model does (a
bone constraint, a driver, a bone not inheriting rotation) or the target moves with the solve
in a way the model does not carry (e.g. a Copy Location onto a solved bone; a target parented
to one is carried, see :mod:`..rig.carried_targets`), the model is solved again towards a *shifted*
goal chosen so that, if the discrepancy stayed as it is, Blender's effector would land on the
true target:

* a point ``g`` (position, line, plane, half-space goals):
  ``g' = g + (p_model - p_blender)``, the effector offset undone;
* orientation directions ``x_g``, ``y_g``: ``x_g' = R_model R_blender^-1 x_g`` (the effector
  frame's rotation offset undone);
* an aim point, seen from the effector: ``g' = p_model + R_model R_blender^-1 (g - p_blender)``.

``g`` is re-read from the target's evaluated matrix at every pass, so a target that moves
with the bones is followed. This is a fixed-point iteration (accelerated, see
:class:`Corrector`): it converges when the discrepancy changes less than the pose does
between passes; the caller keeps the best pass.
Line directions and plane normals are properties of the goal, not of the effector, and stay.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..blender.model_space import ModelSpace, model_space
from ..measure.residuals import MeasuredResidual, evaluated_bone_matrix
from ..rig.goals import ConstraintSpec

if TYPE_CHECKING:
    from bpy.types import Depsgraph

    from ..rig.build import Rig


def _blender_frame(
    rig: Rig, spec: ConstraintSpec, measured: MeasuredResidual, depsgraph: Depsgraph
) -> tuple[np.ndarray, np.ndarray]:
    """Blender's effector point (3,) and bone axes (3, 3) in the model's world."""
    m = evaluated_bone_matrix(rig.obj, spec.bone, depsgraph)[:3, :3]
    axes = m / np.linalg.norm(m, axis=0)
    space = model_space(np.array(rig.obj.matrix_world, dtype=float))
    return space.point(measured.effector.point), space.direction(axes)


def _in_model(space: ModelSpace, part: str, value: np.ndarray) -> np.ndarray:
    """A goal part read in the world (``point``, ``x``, ``y``, ``direction``, ``normal``)
    in the model's world."""
    if part == "point":
        return space.point(value)
    return space.normal(value) if part == "normal" else space.direction(value)


class Corrector:
    """Shifted goals for successive correction passes of one solve.

    The corrected parts of one goal (its point and its x / y directions) are stacked into
    one vector ``x`` that follows the plain map of the module doc, ``x -> G(x)``,
    accelerated by Broyden's method on ``R(x) = G(x) - x = 0``: the Jacobian estimate starts
    at ``-I``, so the first step is the plain map, and later steps use the secant
    information of the passes so far. Directions are normalised after each step. Stacking
    the parts of a goal keeps a position & orientation goal's point and axes on one
    consistent step.
    """

    def __init__(self) -> None:
        # (spec name, binding index) -> (last x (n,), last R (n,), Jacobian estimate (n, n))
        self._state: dict[tuple[str, int], tuple[np.ndarray, np.ndarray, np.ndarray]] = {}

    def _step(self, key: tuple[str, int], x: np.ndarray, target: np.ndarray) -> np.ndarray:
        """Next stacked goal from the current one ``x`` (n,) and the plain map's ``target``."""
        r = target - x
        identity = np.eye(len(x))
        state = self._state.get(key)
        jacobian = -identity
        if state is not None and len(state[0]) == len(x):
            x_old, r_old, jacobian = state
            dx, dr = x - x_old, r - r_old
            step = float(dx @ dx)
            if step > 0.0:
                jacobian = jacobian + np.outer(dr - jacobian @ dx, dx) / step
        try:
            new = x - np.linalg.solve(jacobian, r)
        except np.linalg.LinAlgError:
            jacobian, new = -identity, target
        self._state[key] = (x, r, jacobian)
        return new

    def retarget(
        self,
        rig: Rig,
        spec: ConstraintSpec,
        measured: MeasuredResidual,
        model_frame: np.ndarray,
        depsgraph: Depsgraph,
    ) -> None:
        """Set the goals of ``spec`` to the shifted goals of the next pass (see module doc).

        Args:
            rig: the :class:`..rig.build.Rig` (its pose is the one Blender evaluated).
            spec: the constraint to correct; goals carried by a bone are left as they are.
            measured: its residual on Blender's pose (carries the evaluated effector).
            model_frame: (4, 4) the effector segment's world frame in the model at the solution
                (``figure.forward(result.x)[spec.effector_segment]``).
            depsgraph: the evaluated depsgraph the pose was measured on.
        """
        p_blender, r_blender = _blender_frame(rig, spec, measured, depsgraph)
        p_model = model_frame[:3, :3] @ spec.point + model_frame[:3, 3]
        turn = model_frame[:3, :3] @ np.linalg.inv(r_blender)
        space = model_space(np.array(rig.obj.matrix_world, dtype=float))
        for index, binding in enumerate(spec.bindings):
            if binding.carrier is not None:
                continue
            parts, current, plain = [], [], []
            for part, value in binding.world_values(depsgraph).items():
                if value is None:
                    continue
                g = _in_model(space, part, value)
                if part == "point" and binding.item_kind == "AIM":
                    target = p_model + turn @ (g - p_blender)
                elif part == "point":
                    target = g + (p_model - p_blender)
                elif part in ("x", "y"):
                    target = turn @ g
                else:  # a line direction or plane normal belongs to the goal
                    setattr(binding.goal, part, g)
                    continue
                parts.append(part)
                current.append(np.array(getattr(binding.goal, part), dtype=float))
                plain.append(target)
            if not parts:
                continue
            new = self._step((spec.name, index), np.concatenate(current), np.concatenate(plain))
            for k, part in enumerate(parts):
                value = new[3 * k : 3 * k + 3]
                setattr(binding.goal, part, value if part == "point" else _unit(value))


def _unit(v: np.ndarray) -> np.ndarray:
    """``v`` normalised (a direction after a Broyden step)."""
    return v / np.linalg.norm(v)
