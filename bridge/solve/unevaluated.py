"""Objects Blender does not evaluate: the armature is refused, targets are followed.

Blender evaluates what its view layer's dependency graph holds. An object disabled in
viewports, in a collection excluded from the view layer or disabled in viewports, or in no
collection of the scene is left out, unless an evaluated object's constraint or parent needs
it; its animation then never plays and its ``matrix_world`` stays where it was last
evaluated. A goal read from such a target is stale at every other frame (a bake keyed the
frame-1 position and measured itself against it). Blender's own IK follows such a target:
its constraint makes the depsgraph evaluate the target (checked on 4.2 and 5.0; a muted
constraint does so too, and moves nothing). Reach's constraints are custom properties, which
give the target an evaluated copy whose animation never plays, so:

* a Solve (Solve & Key) and a bake follow such targets (:class:`FollowedTargets`): for the
  time of the job the armature carries one muted Copy Location object constraint per target,
  the targets' animation is evaluated at the current frame, and the constraints are removed
  at the end (finished, failed or cancelled);
* live posing refuses them (:func:`refuse_unevaluated_targets`): it runs inside Blender's
  update handlers, where changing the depsgraph's relations is not attempted (a pose written
  in an update that rebuilt the depsgraph crashes Blender, see :func:`..live.posing.on_update`);
* an armature that is itself not evaluated is refused by every job before anything is
  written (:func:`check_armature`): Blender never evaluates the pose written into it, so
  nothing could be measured (it is not the solver's model that is wrong). Its pose is not
  evaluated even under a visible mesh's Armature modifier (measured on 4.2 and 5.0).

``bpy`` is used only through the objects passed in.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, cast

from ..errors import RigError

if TYPE_CHECKING:
    from bpy.types import Collection, Constraint, CopyLocationConstraint, Object, ViewLayer

    from ..rig.goals import GoalBinding

#: Name of the muted constraint that makes the depsgraph evaluate a followed target.
FOLLOW_NAME = "Reach: evaluate target"


def is_evaluated(obj: Object, view_layer: ViewLayer) -> bool:
    """Whether ``view_layer`` evaluates ``obj`` for itself (its animation plays, its world
    matrix and pose are updated): it is enabled in viewports and in a collection that is
    neither excluded from the view layer nor disabled in viewports (hidden with the eye is
    evaluated).

    Not ``obj.evaluated_get(depsgraph).is_evaluated``: an object referenced from a custom
    property (a Reach constraint's target is) has an evaluated copy whose animation never
    plays (measured on 4.2 and 5.0).
    """
    return _Evaluation(view_layer).evaluates(obj)


class _Evaluation:
    """:func:`is_evaluated` for several objects of one view layer (its collections walked
    once, when an object needs it)."""

    def __init__(self, view_layer: ViewLayer) -> None:
        self.view_layer = view_layer
        self._enabled: set[Collection] | None = None

    def evaluates(self, obj: Object) -> bool:
        """Whether the view layer evaluates ``obj`` (see :func:`is_evaluated`)."""
        view_layer = self.view_layer
        if obj.visible_get(view_layer=view_layer):  # the common case, in one call
            return True
        if obj.hide_viewport or view_layer.objects.get(obj.name) != obj:
            return False
        if self._enabled is None:
            self._enabled = _enabled_collections(view_layer)
        return any(collection in self._enabled for collection in obj.users_collection)


def _enabled_collections(view_layer: ViewLayer) -> set[Collection]:
    """The collections whose objects ``view_layer`` evaluates: reached from the scene's
    collection through collections neither excluded nor disabled in viewports."""
    out = set()
    stack = [view_layer.layer_collection]
    while stack:
        layer = stack.pop()
        if layer.exclude or layer.collection.hide_viewport:
            continue
        out.add(layer.collection)
        stack += list(layer.children)
    return out


def why_not_evaluated(obj: Object, view_layer: ViewLayer) -> str:
    """Why ``view_layer`` does not evaluate ``obj``, in words ("it is disabled in viewports",
    ...)."""
    if obj.hide_viewport:
        return "it is disabled in viewports"
    if view_layer.objects.get(obj.name) != obj:
        return (
            f"its collections are excluded from view layer '{view_layer.name}', or it is in "
            "none of the scene's"
        )
    return "a collection holding it is disabled in viewports"


def _missing(objects: Iterable[Object], view_layer: ViewLayer) -> list[Object]:
    """The ``objects`` (each once, in order) that ``view_layer`` does not evaluate; a deleted
    one is left to the reading of the targets, which names its constraint."""
    out = []
    evaluation = _Evaluation(view_layer)
    for obj in objects:
        try:
            if obj not in out and not evaluation.evaluates(obj):
                out.append(obj)
        except ReferenceError:
            continue
    return out


def check_armature(obj: Object, view_layer: ViewLayer) -> None:
    """RigError naming the armature and the reason when ``view_layer`` does not evaluate it."""
    if _missing([obj], view_layer):
        raise RigError(
            f"Armature '{obj.name}' is not evaluated by Blender: "
            f"{why_not_evaluated(obj, view_layer)}, so the pose a solve writes is never "
            "evaluated or measured; enable it in the viewport first"
        )


def refuse_unevaluated_targets(
    obj: Object, bindings: Sequence[GoalBinding], view_layer: ViewLayer
) -> None:
    """RigError naming the first constraint whose target ``view_layer`` does not evaluate
    (a bone of the armature ``obj`` itself is the armature's concern, see
    :func:`check_armature`)."""
    missing = _missing((b.target for b in bindings if b.target != obj), view_layer)
    for binding in bindings:
        if any(binding.target == target for target in missing):
            raise RigError(
                f"Constraint '{binding.name}': target '{binding.target.name}' is not "
                f"evaluated by Blender ({why_not_evaluated(binding.target, view_layer)}), so "
                "it does not follow its animation here; enable it in the viewport, or use "
                "Solve or Bake, which follow it"
            )


class FollowedTargets:
    """Targets Blender does not evaluate, made evaluated for one job (see the module
    docstring); :meth:`release` undoes it.

    Args:
        obj: the armature (evaluated: :func:`check_armature`); it carries the muted
            constraints.
        targets: the target objects of its constraints (the armature itself is skipped).
        view_layer: the view layer the job evaluates.

    Attributes:
        objects: the targets followed (empty when every target was evaluated: nothing done).
        notes: one line per followed target, for the report.
    """

    def __init__(self, obj: Object, targets: Iterable[Object], view_layer: ViewLayer) -> None:
        self.obj = obj
        self.constraints: list[Constraint] = []
        self.objects = _missing((t for t in targets if t != obj), view_layer)
        self.notes = [
            f"target '{t.name}' is not evaluated by Blender ({why_not_evaluated(t, view_layer)}):"
            " Reach evaluated it for this job"
            for t in self.objects
        ]
        if not self.objects:
            return
        for target in self.objects:
            con = cast("CopyLocationConstraint", obj.constraints.new("COPY_LOCATION"))
            con.name = FOLLOW_NAME
            con.target = target
            con.mute = True  # evaluated by nothing: only the depsgraph relation counts
            con.show_expanded = False
            self.constraints.append(con)
        view_layer.update()  # the relations rebuilt: the targets are evaluated from now on
        # ... at the next frame change: their animation (and that of what they follow) is
        # evaluated at this frame now.
        evaluation = _Evaluation(view_layer)
        for other in _followed_by(self.objects):
            if not evaluation.evaluates(other):  # (never the armature: it is)
                other.update_tag(refresh={"TIME"})
        view_layer.update()

    def release(self) -> None:
        """Remove the muted constraints (idempotent; a deleted armature is skipped)."""
        constraints, self.constraints = self.constraints, []
        for con in constraints:
            try:
                self.obj.constraints.remove(con)
            except ReferenceError:  # the armature (or the constraint) is gone
                pass


def _followed_by(objects: Iterable[Object]) -> list[Object]:
    """``objects`` and every object they follow: parents and object-constraint targets, up
    the whole way (each once)."""
    out: dict[Object, None] = {}
    stack = list(objects)
    while stack:
        current = stack.pop()
        if current in out:
            continue
        out[current] = None
        if current.parent is not None:
            stack.append(current.parent)
        for con in current.constraints:
            targets = [getattr(con, "target", None)]
            targets += [t.target for t in getattr(con, "targets", ())]  # Armature constraint
            stack += [t for t in targets if t is not None]
    return list(out)
