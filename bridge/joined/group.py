"""Which armatures one Solve or bake joins (:mod:`.figure`).

Armatures are joined when a Reach constraint of one targets a bone of another that has Reach
constraints of its own (its Target Bone, or an object hanging off the bone), either way round and
on through such links, or when the user asks for every selected armature. An armature joined
to no other is solved alone, as before.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from ...props.access import settings_of
from .figure import other_bone

if TYPE_CHECKING:
    import bpy


def _solvable(obj: bpy.types.Object) -> bool:
    """An armature object with at least one enabled Reach constraint."""
    return obj.type == "ARMATURE" and any(c.enabled for c in settings_of(obj).constraints)


def _linked(
    obj: bpy.types.Object, candidates: Iterable[bpy.types.Object]
) -> list[bpy.types.Object]:
    """The ``candidates`` whose bones ``obj``'s enabled Reach constraints target: with a
    Target Bone, or through an object hanging off one of their bones
    (:func:`.figure.other_bone`)."""
    items = [item for item in settings_of(obj).constraints if item.enabled]
    return [
        other
        for other in candidates
        if any(other_bone(obj, item.target, item.target_bone, other) for item in items)
    ]


def armature_group(
    active: bpy.types.Object,
    objects: Iterable[bpy.types.Object],
    selected: Iterable[bpy.types.Object] = (),
) -> list[bpy.types.Object]:
    """The armatures solved in one system with ``active``: ``active`` first, then the others in
    the order of ``objects``.

    Args:
        active: the active armature.
        objects: the objects a constraint may link to (the view layer's).
        selected: armatures joined whatever their constraints (with their own links); only
            those with enabled Reach constraints count.

    Returns:
        ``[active]`` when nothing links to it: a Solve of that armature alone.
    """
    candidates = [o for o in objects if _solvable(o)]
    keys = {o.as_pointer() for o in candidates}
    links: dict[int, set[int]] = {key: set() for key in keys}
    for obj in candidates:
        for target in _linked(obj, candidates):
            if target.as_pointer() in keys:
                links[obj.as_pointer()].add(target.as_pointer())
                links[target.as_pointer()].add(obj.as_pointer())
    start = [active.as_pointer()] + [o.as_pointer() for o in selected if _solvable(o)]
    group: set[int] = set()
    todo = [key for key in start if key in keys or key == active.as_pointer()]
    while todo:
        key = todo.pop()
        if key not in group:
            group.add(key)
            todo.extend(links.get(key, ()))
    others = [o for o in candidates if o.as_pointer() in group and o != active]
    return [active, *others]
