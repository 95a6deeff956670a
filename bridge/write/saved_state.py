"""Everything a bake may change, captured before it starts and put back on failure or cancel.

A bake changes four things in the scene while it runs or when it finishes: the current
frame (it steps through the range), the mute flag of Blender's IK constraints on the solved
bones, the pose (``frame_set`` re-evaluates the animation, which overwrites un-keyed edits of
keyed channels) and, at the end, the action (keys written on the solved channels, possibly
after creating animation data, an action, a slot, F-curves and groups). :class:`SceneState`
records all of them; :meth:`SceneState.restore` puts every one back exactly (F-curves keyframe
by keyframe, all keyframe properties), and :meth:`SceneState.finish` does what a successful
bake needs (the frame, the constraints and every pose channel the bake did not key).
:func:`restore_all` and :func:`finish_all` do the same for several armatures baked together.

``bpy`` is used only through the objects passed in (and :mod:`..blender.compat`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from ..blender import compat
from .keys import KEYFRAME_PROPERTIES, bone_path, read_points, write_points

if TYPE_CHECKING:  # annotations only: bpy objects are passed in
    from bpy.types import Constraint, FCurve, Object, PoseBone, Scene

POSE_PROPERTIES = ("location", "rotation_quaternion", "rotation_euler", "rotation_axis_angle",
                   "scale")  # fmt: skip
#: Values per bone of each of :data:`POSE_PROPERTIES`.
POSE_WIDTHS = {"location": 3, "rotation_quaternion": 4, "rotation_euler": 3,
               "rotation_axis_angle": 4, "scale": 3}  # fmt: skip


@dataclass
class SavedCurve:
    """One F-curve's keys (every :data:`~.keys.KEYFRAME_PROPERTIES` array) or None if absent."""

    data_path: str
    index: int
    keys: dict[str, np.ndarray] | None


def _read_pose(obj: Object) -> dict[str, np.ndarray]:
    """Every :data:`POSE_PROPERTIES` channel of every pose bone: property -> (bones, width)
    float32, the values exactly as Blender stores them (one ``foreach_get`` per property)."""
    bones = obj.pose.bones
    out = {}
    for prop in POSE_PROPERTIES:
        values = np.empty(len(bones) * POSE_WIDTHS[prop], dtype=np.float32)
        # The stubs accept a buffer only through ``__buffer__`` (numpy declares it for Python
        # >= 3.12); Blender's Python 3.11 reads any buffer-protocol object, ndarray included.
        bones.foreach_get(prop, values)  # pyright: ignore[reportArgumentType]
        out[prop] = values.reshape(len(bones), POSE_WIDTHS[prop])
    return out


@dataclass(frozen=True)
class SavedPose:
    """Every pose channel of every bone of an armature, as captured.

    Attributes:
        bones: the pose bones, in ``pose.bones`` order.
        names: their names at capture.
        values: property (of :data:`POSE_PROPERTIES`) -> (bones, width) float32 values.
    """

    bones: list[PoseBone]
    names: list[str]
    values: dict[str, np.ndarray]

    @classmethod
    def capture(cls, obj: Object) -> SavedPose:
        """The pose of ``obj`` now."""
        bones = obj.pose.bones
        return cls(list(bones), list(bones.keys()), _read_pose(obj))

    def _changed(self, obj: Object) -> dict[str, np.ndarray]:
        """Property -> bool (bones,): whether that channel of the bone may differ from the
        capture. Every channel may when the bones are no longer the captured ones (renamed,
        added or deleted meanwhile, or the armature deleted); else exactly those whose stored
        values differ."""
        now: dict[str, np.ndarray] = {}
        try:
            if obj.pose.bones.keys() == self.names:
                now = _read_pose(obj)
        except ReferenceError:  # the armature deleted meanwhile: each write finds out
            pass
        if not now:
            return {prop: np.ones(len(self.bones), dtype=bool) for prop in self.values}
        return {prop: (now[prop] != saved).any(axis=1) for prop, saved in self.values.items()}

    def restore(self, obj: Object, keep: frozenset[str] = frozenset()) -> None:
        """Write the captured pose back, except channels whose RNA path is in ``keep``.

        Only channels that changed are written: a pose bone write tags the armature for
        re-evaluation and costs about 6 us, and a bake leaves most of the 5 channels of
        every bone as they were; a channel whose stored values are already the captured
        ones needs no write (and its evaluation already shows them).
        """
        for prop, changed in self._changed(obj).items():
            saved = self.values[prop]
            for index in np.flatnonzero(changed).tolist():
                name = self.names[index]
                if keep and bone_path(name, prop) in keep:
                    continue
                try:
                    setattr(self.bones[index], prop, saved[index].tolist())
                except ReferenceError:  # bone deleted meanwhile
                    continue


def _read_keys(fcurve: FCurve) -> dict[str, np.ndarray]:
    points = fcurve.keyframe_points
    out = {}
    for prop, dtype, width in KEYFRAME_PROPERTIES:
        values = np.empty(width * len(points), dtype=dtype)
        read_points(points, prop, values)
        out[prop] = values
    return out


def _write_keys(fcurve: FCurve, keys: dict[str, np.ndarray]) -> None:
    """Make ``fcurve``'s keys exactly ``keys`` (from :func:`_read_keys`)."""
    points = fcurve.keyframe_points
    current = _read_keys(fcurve)
    if all(np.array_equal(current[p], keys[p]) for p in keys):
        return
    points.clear()
    points.add(len(keys["co"]) // 2)
    for prop, _dtype, _width in KEYFRAME_PROPERTIES:
        write_points(points, prop, keys[prop])


@dataclass
class SceneState:
    """The parts of the scene a bake of ``obj`` may change, as they were at :meth:`capture`.

    Attributes:
        scene: the scene whose current frame the bake moves.
        obj: the armature object.
        frame: current frame (int) and subframe (float, 0 <= subframe < 1) at capture.
        pose: every pose channel of every bone.
        layout: the action's layout (:func:`..blender.compat.action_layout`).
        groups: names of the F-curve groups of the object's action at capture.
        curves: the keys of every channel the bake may write.
        muted: constraints the bake muted (unmuted again by :meth:`restore` / :meth:`finish`).
    """

    scene: Scene
    obj: Object
    frame: tuple[int, float]
    pose: SavedPose
    layout: tuple
    groups: set[str]
    curves: list[SavedCurve]
    muted: list[Constraint] = field(default_factory=list)

    @classmethod
    def capture(
        cls, scene: Scene, obj: Object, channels: Iterable[tuple[str, int]] = ()
    ) -> SceneState:
        """Record the frame, the pose and the keys of ``channels`` ((data_path, index) pairs)."""
        pose = SavedPose.capture(obj)
        container = compat.fcurve_container(obj)
        groups = set() if container is None else {g.name for g in container.groups}
        state = cls(scene, obj, (scene.frame_current, scene.frame_subframe), pose,
                    compat.action_layout(obj), groups, [])  # fmt: skip
        state.save_channels(channels)
        return state

    def save_channels(self, channels: Iterable[tuple[str, int]]) -> None:
        """Also record the keys of ``channels`` (before anything writes them)."""
        known = {(c.data_path, c.index) for c in self.curves}
        for data_path, index in channels:
            if (data_path, index) in known:
                continue
            fcurve = compat.find_fcurve(self.obj, data_path, index)
            keys = None if fcurve is None else _read_keys(fcurve)
            self.curves.append(SavedCurve(data_path, index, keys))
            known.add((data_path, index))

    def mute(self, constraints: Iterable[Constraint]) -> None:
        """Mute ``constraints`` until :meth:`restore` or :meth:`finish`."""
        for con in constraints:
            con.mute = True
            self.muted.append(con)

    def unmute(self) -> None:
        """Unmute the constraints :meth:`mute` muted (deleted ones are skipped)."""
        for con in self.muted:
            try:
                con.mute = False
            except ReferenceError:  # deleted meanwhile: nothing to restore
                pass
        self.muted.clear()

    def _restore_pose(self, keep: frozenset[str] = frozenset()) -> None:
        """Write the captured pose back, except channels whose RNA path is in ``keep``."""
        self.pose.restore(self.obj, keep)

    def _restore_keys(self) -> None:
        obj = self.obj
        for saved in self.curves:
            fcurve = compat.find_fcurve(obj, saved.data_path, saved.index)
            if saved.keys is None:
                if fcurve is not None:
                    compat.remove_fcurve(obj, fcurve)
                continue
            if fcurve is None:  # removed meanwhile: recreate (group is lost only then)
                fcurve = compat.ensure_fcurve(obj, saved.data_path, saved.index, "")
            _write_keys(fcurve, saved.keys)
        container = compat.fcurve_container(obj)
        if container is not None:
            for group in [g for g in container.groups if g.name not in self.groups]:
                if not group.channels:
                    container.groups.remove(group)
        compat.restore_action_layout(obj, self.layout)

    def _restore_frame(self) -> None:
        frame, subframe = self.frame
        self.scene.frame_set(frame, subframe=subframe)  # always: re-evaluates the animation

    def restore(self) -> None:
        """Put everything back as it was at :meth:`capture`: keys, action, constraints,
        frame, pose (in that order: the frame change re-evaluates the restored animation).

        Every part is attempted even if an earlier one fails (say, the armature's action was
        deleted meanwhile); the first failure is raised at the end.
        """
        failure = None
        for part in (self._restore_keys, self.unmute, self._restore_frame, self._restore_pose):
            try:
                part()
            except Exception as exc:  # restore the other parts first, then raise
                failure = failure or exc
        if failure is not None:
            raise failure

    def finish(self, written: Iterable[str]) -> None:
        """After a successful bake: unmute, go back to the frame, restore every pose channel
        except the keyed ones (RNA paths ``written``), which show the new keys."""
        self.unmute()
        self._restore_frame()
        self._restore_pose(frozenset(written))


def _run_all(parts: Iterable[Callable[[], None]]) -> None:
    """Run every part, even after one fails; raise the first failure at the end."""
    failure = None
    for part in parts:
        try:
            part()
        except Exception as exc:  # the other parts first, then raise
            failure = failure or exc
    if failure is not None:
        raise failure


def restore_all(states: Sequence[SceneState]) -> None:
    """:meth:`SceneState.restore` of several armatures captured at the same frame: every
    armature's keys and constraints, then the frame once, then every pose. (One armature's
    restore after another's would re-evaluate the animation at its frame change and play the
    other's keyed channels over the un-keyed edits just put back.)"""
    _run_all([
        *(s._restore_keys for s in states), *(s.unmute for s in states),
        *(s._restore_frame for s in states[:1]), *(s._restore_pose for s in states),
    ])  # fmt: skip


def finish_all(states: Sequence[SceneState], written: Sequence[Iterable[str]]) -> None:
    """:meth:`SceneState.finish` of several armatures captured at the same frame (``written``:
    each one's keyed RNA paths): unmute, the frame once, then every pose (see
    :func:`restore_all`)."""
    keep = [frozenset(paths) for paths in written]
    _run_all([
        *(s.unmute for s in states), *(s._restore_frame for s in states[:1]),
        *(lambda s=s, k=k: s._restore_pose(k) for s, k in zip(states, keep, strict=True)),
    ])  # fmt: skip
