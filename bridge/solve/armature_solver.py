"""``ArmatureSolver``: one armature's rig and solver, kept between solves and re-read before each.

The rig is built once (:func:`..rig.build.build_rig`); before a solve only what changes without a
rebuild is read again (:meth:`ArmatureSolver.refresh`: the pose, the armature's placement,
the targets). :class:`..session.rig_session.RigSession` adds the jobs on top of it; a
:class:`.frame_solve.FrameSolve` runs one Solve on it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ... import solver
from ..rig.build import Rig, build_rig, solver_options

if TYPE_CHECKING:
    import bpy

    from ...props.groups import ReachSettings


class ArmatureSolver:
    """One armature's rig and solver, re-read from the scene before each solve.

    Args:
        obj: the armature object.
        settings: its Reach settings (``obj.reach_ik``).
        scene: the scene (``context.scene``): current frame, frame changes of a bake.
        view_layer: the view layer Blender evaluates the pose in (``context.view_layer``).
        only_selected: use only constraints whose Select box is ticked.

    Raises:
        RigError: the scene cannot be solved; the message names what to fix.
    """

    def __init__(
        self,
        obj: bpy.types.Object,
        settings: ReachSettings,
        scene: bpy.types.Scene,
        view_layer: bpy.types.ViewLayer,
        only_selected: bool = False,
    ) -> None:
        self.obj = obj
        self.settings = settings
        self.scene = scene
        self.view_layer = view_layer
        self.only_selected = only_selected
        self.rig: Rig = build_rig(obj, settings, only_selected)
        # Restarts bounded as in a bake: only near the current pose, so a Solve keeps the
        # pose's branch and an out-of-reach goal answers at once (the solver's default search
        # runs until its 1 s time limit whenever a goal is missed).
        self.solver = solver.Solver(
            self.rig.figure, self.rig.constraints, solver_options(self.rig, settings)
        )
        self._fresh = True  # the rig holds the scene as just read: no refresh before a solve

    def refresh(self) -> None:
        """Re-read what a solve starts from without rebuilding: the pose of every figure bone,
        the armature's placement and the targets (and check the aim goals again).

        :meth:`solve_frame` calls it, except right after the session was built.

        Raises:
            RigError: a target was deleted, is not finite, or sits on an aim effector.
        """
        rig = self.rig
        rig.read_pose(solved_too=True)
        rig.push_rest()
        rig.update_targets()
        rig.check_aim()
        self._fresh = True

    def prepare(self) -> None:
        """Re-read the scene before a solve (:meth:`refresh`), unless the session was just
        built or refreshed; the next call re-reads it again."""
        if not self._fresh:
            self.refresh()
        self._fresh = False

    def mark_stale(self) -> None:
        """The pose was changed behind the rig (a cancelled solve restored it): the next
        solve re-reads it."""
        self._fresh = False
