"""``RigSession``: one armature's way from the scene to the solver and back.

Data flows scene -> bridge -> solver -> bridge -> scene: the session builds the rig from the
armature and its Reach settings, solves, writes the pose, lets Blender evaluate it, measures
every constraint on that evaluation (:mod:`..measure.residuals`), runs correction passes when
Blender's pose and the model disagree (:mod:`..solve.correction`; the steps of one frame are in
:mod:`..solve.frame_solve`), and returns a :class:`..measure.frame_report.FrameReport`
that only says "reached" for what was measured within tolerance. Operators call it and turn
its errors into reports; ``bpy`` is reached only through the objects passed in.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from ..bake import baking
from ..bake.baking import BakeReport
from ..edit import convert
from ..edit.convert import Conversion
from ..measure.frame_report import FrameReport
from ..solve.armature_solver import ArmatureSolver
from ..solve.frame_solve import FrameSolve

if TYPE_CHECKING:
    import bpy

    from ... import solver


class RigSession(ArmatureSolver):
    """Solve, bake, measure and report for one armature (built as :class:`ArmatureSolver`).

    Raises:
        RigError: the scene cannot be solved; the message names what to fix.
    """

    # ------------------------------------------------------------------ editing
    @staticmethod
    def convert_builtin_ik(context: bpy.types.Context, obj: bpy.types.Object) -> Conversion:
        """Turn ``obj``'s built-in IK constraints into Reach constraints (see :mod:`..edit.convert`;
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
        """Bake ``frames`` into keys on the solved channels (see :mod:`..bake.baking`), residuals
        measured on Blender's pose at every frame.

        ``progress(done, total)`` is called after every step. Any exception restores the
        scene and is raised as :class:`..bake.baking.BakeError`; nothing is written.
        """
        return baking.bake(self.obj, self.settings, frames, mode, progress, scene=self.scene,
                         only_selected=self.only_selected,
                         depsgraph=self.view_layer.depsgraph)  # fmt: skip

    # ------------------------------------------------------------------ one frame
    def frame_solve(self, insert_keys: bool = False, frame: float | None = None) -> FrameSolve:
        """A Solve at the current frame to run step by step
        (:class:`..solve.frame_solve.FrameSolve`: the modal Solve operator's way, cancellable
        between steps: the pose is recorded)."""
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
