"""``RigSession``: one armature's way from the scene to the solver and back.

Data flows scene -> bridge -> solver -> bridge -> scene: the session builds the rig from the
armature and its Reach settings, solves, writes the pose, lets Blender evaluate it, measures
every constraint on that evaluation (:mod:`.measure`), runs correction passes when Blender's
pose and the model disagree (:mod:`.correction`; the steps of one frame are in
:mod:`.frame_solve`), and returns a :class:`.report.FrameReport`
that only says "reached" for what was measured within tolerance. Operators call it and turn
its errors into reports; ``bpy`` is reached only through the objects passed in.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from .. import solver
from . import bake, convert
from .bake import BakeReport
from .convert import Conversion
from .frame_solve import FrameSolve
from .report import FrameReport
from .rig import Rig, RigError, build_rig, solver_options
from .rig_goals import ConstraintPlan

if TYPE_CHECKING:
    import bpy

    from ..operators.properties import ReachSettings


class RigSession:
    """Solve, measure and report for one armature.

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
            self.rig.figure, self.rig.constraints, **solver_options(self.rig, settings),
            restarts=bake.RESTARTS,
        )  # fmt: skip
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
        ConstraintPlan(specs=rig.specs).check_aim(rig, RigError)
        self._fresh = True

    # ------------------------------------------------------------------ editing
    @staticmethod
    def convert_builtin_ik(context: bpy.types.Context, obj: bpy.types.Object) -> Conversion:
        """Turn ``obj``'s built-in IK constraints into Reach constraints (see :mod:`.convert`;
        ``context`` gives the file and scene where pole-plane helper empties are made).

        A static method: an armature with only built-in IK has no Reach constraint yet, so
        no session can be built for it before the conversion.
        """
        return convert.convert_builtin_ik(context, obj)

    # ------------------------------------------------------------------ a frame range
    def bake(
        self,
        frames: Sequence[int],
        mode: str = "REPLACE",
        progress: Callable[[int, int], None] | None = None,
    ) -> BakeReport:
        """Bake ``frames`` into keys on the solved channels (see :mod:`.bake`), residuals
        measured on Blender's pose at every frame.

        ``progress(done, total)`` is called after every step. Any exception restores the
        scene and is raised as :class:`.bake.BakeError`; nothing is written.
        """
        return bake.bake(self.obj, self.settings, frames, mode, progress, scene=self.scene,
                         only_selected=self.only_selected,
                         depsgraph=self.view_layer.depsgraph)  # fmt: skip

    # ------------------------------------------------------------------ one frame
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

    def frame_solve(self, insert_keys: bool = False, frame: float | None = None) -> FrameSolve:
        """A Solve at the current frame to run step by step (:class:`.frame_solve.FrameSolve`:
        the modal Solve operator's way, cancellable between steps: the pose is recorded)."""
        return FrameSolve(self, insert_keys, frame)

    def solve_frame(
        self,
        insert_keys: bool = False,
        frame: float | None = None,
        follow_hidden: bool = True,
        options: solver.Options | None = None,
    ) -> FrameReport:
        """Solve at the current frame, write the pose (and keys), measure, correct, report.

        Args:
            insert_keys: key the solved channels (only those) at ``frame``.
            frame: the frame keys go on (the scene's current frame).
            follow_hidden: follow targets Blender does not evaluate (disabled in viewports,
                excluded) for the time of the solve; False refuses them (live posing).

        Returns:
            The report; ``satisfied`` only when every constraint is within tolerance on
            Blender's evaluated pose.

        Raises:
            RigError: a target was deleted, is not finite or at infinity, an aim target
                sits on its effector; the armature is not evaluated by Blender (or, with
                ``follow_hidden`` False, a target is not).
            options: this solve's solver options (live posing's time limit); None: the
                session solver's own.
        """
        return FrameSolve(self, insert_keys, frame, restorable=False,
                          follow_hidden=follow_hidden, options=options).run()  # fmt: skip
