"""The batched bake (issue 21, ``bridge/bake/batched.py``) against the sequential one.

The frames after the first are solved in batches (anchors one after another, the frames
between them at once) where the rig allows it. Where a frame has one answer on its branch,
its keys are the sequential bake's within the solver's tolerance; on a redundant rig both
meet every goal on Blender's pose and neither jumps between branches more than the other;
a bake is a function of the shot; a failure restores the scene; a rig whose other inputs
move over the range is baked one frame after another, bit for bit as when asked for.
"""

from __future__ import annotations

import dataclasses
import math
from types import ModuleType

import bpy
import numpy as np
import pytest

from examples.blender_demo import build_scene
from tests.blender.bake_support import keyframes_of, modal_operator
from tests.blender.conftest import run_op
from tests.blender.reach_scenes import activate, add_constraint, add_empty, last_report, make_chain
from tests.blender.test_bake_restore import ESC, TIMER, _assert_unchanged, _snapshot

FRAMES = 48


def _keyed_path(obj: bpy.types.Object, path: object) -> None:
    for frame in range(1, FRAMES + 1):
        obj.location = path(frame)
        obj.keyframe_insert("location", frame=frame)


def _phase(frame: int) -> float:
    return 2.0 * math.pi * (frame - 1) / FRAMES


def _hinged_arm() -> bpy.types.Object:
    """Two bones hinged about X (``lock_ik_y``/``lock_ik_z``) reaching for a target moving in
    their plane: one answer per branch at every frame."""
    obj = make_chain(n=2)
    for pb in obj.pose.bones:
        pb.lock_ik_y = pb.lock_ik_z = True
    target = add_empty("T", (0.0, 0.0, 0.0))
    _keyed_path(target, lambda f: (0.0, 0.6 + 0.3 * math.cos(_phase(f)),
                                   1.2 + 0.3 * math.sin(_phase(f))))  # fmt: skip
    add_constraint(obj, "b1", target, "POSITION")
    return _ready(obj)


def _redundant_figure() -> bpy.types.Object:
    """A redundant 4-bone chain (an Euler bone among quaternion ones) with a moving hand and
    an aim: 12 DOF for 5 rows, like the demo's limbs."""
    obj = make_chain(n=4)
    obj.pose.bones["b1"].rotation_mode = "XYZ"
    hand = add_empty("T", (0.0, 0.0, 0.0))
    _keyed_path(hand, lambda f: (1.2 * math.cos(_phase(f)), 0.8 * math.sin(2 * _phase(f)), 2.6))
    look = add_empty("L", (0.0, 0.0, 0.0))
    _keyed_path(look, lambda f: (3.0 * math.sin(_phase(f)), -3.0, 4.0))
    add_constraint(obj, "b3", hand, "POSITION")
    add_constraint(obj, "b1", look, "AIM", effector="HEAD", aim_axis="Y", chain_mode="LENGTH",
                   chain_length=2)  # fmt: skip
    return _ready(obj)


def _ready(obj: bpy.types.Object) -> bpy.types.Object:
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, FRAMES
    scene.frame_set(1)
    activate(obj)
    return obj


def _values(obj: bpy.types.Object) -> dict[tuple[str, int], np.ndarray]:
    """Each keyed channel's values, frame by frame."""
    return {channel: data["co"][1::2] for channel, data in keyframes_of(obj).items()}


def _met(report: object) -> bool:
    """Whether every constraint met its goal at every frame (as the report measured it)."""
    return all(ok for _distance, _angle, ok in report.worst.values())


def _bake(obj: bpy.types.Object, batched: bool) -> dict[tuple[str, int], np.ndarray]:
    run_op(bpy.ops.reach.bake, batched=batched)
    report = last_report(obj)
    assert bool(report.batched) == batched, report.text()  # the path asked for is taken
    return _values(obj)


def _jumps(values: dict[tuple[str, int], np.ndarray]) -> int:
    """Frame-to-frame changes of a channel beyond 0.2 (a branch jump on these shots: the
    largest change of a smooth bake of them is below 0.1)."""
    return sum(int((np.abs(np.diff(v)) > 0.2).sum()) for v in values.values())


def test_keys_equal_the_sequential_bake_where_a_frame_has_one_answer(
    clean_scene: bpy.types.Scene,
) -> None:
    obj = _hinged_arm()
    sequential = _bake(obj, batched=False)
    batched = _bake(obj, batched=True)
    assert batched.keys() == sequential.keys()
    for channel, values in sequential.items():
        assert np.allclose(batched[channel], values, atol=1e-4), channel
    assert _met(last_report(obj))


def test_a_redundant_rig_meets_every_goal_without_extra_jumps(
    clean_scene: bpy.types.Scene,
) -> None:
    obj = _redundant_figure()
    sequential = _bake(obj, batched=False)
    assert _met(last_report(obj))
    batched = _bake(obj, batched=True)
    report = last_report(obj)
    assert report.measured and _met(report), report.text()
    assert _jumps(batched) <= _jumps(sequential)
    # The redundant joints drift their own way in each bake (the paths differ: anchors 12
    # frames apart against one frame after another): up to 0.29 rad in b1's Euler X on this
    # shot, measured; a frame off its branch or out of order would be far more.
    for channel, values in sequential.items():
        assert np.abs(batched[channel] - values).max() < 0.5, channel


def test_a_batched_bake_is_a_function_of_the_shot(clean_scene: bpy.types.Scene) -> None:
    obj = _redundant_figure()
    first = _bake(obj, batched=True)
    clean_scene.frame_set(17)
    again = _bake(obj, batched=True)  # over its own keys, from another frame
    assert first.keys() == again.keys()
    for channel, values in first.items():
        assert np.array_equal(values, again[channel]), channel


def test_a_rig_whose_other_bones_move_is_baked_one_frame_after_another(
    clean_scene: bpy.types.Scene,
) -> None:
    """An unsolved bone animated over the range: the figure changes, so the bake goes back
    to the sequential path at the frame where it moves and writes its keys bit for bit."""
    obj = make_chain(n=4)
    target = add_empty("T", (0.0, 0.0, 0.0))
    _keyed_path(target, lambda f: (0.8 * math.cos(_phase(f)), 0.5, 2.2))
    add_constraint(obj, "b3", target, "POSITION", chain_mode="LENGTH", chain_length=2)
    b0 = obj.pose.bones["b0"]  # below the chain: not solved, part of the figure
    for frame, angle in ((1, 0.0), (20, 0.0), (FRAMES, 0.3)):
        b0.rotation_quaternion = (math.cos(angle / 2), math.sin(angle / 2), 0.0, 0.0)
        b0.keyframe_insert("rotation_quaternion", frame=frame)
    _ready(obj)
    solved = [c for c in _values(obj) if "b0" not in c[0]]
    assert not solved
    run_op(bpy.ops.reach.bake, batched=False)
    sequential = _values(obj)
    run_op(bpy.ops.reach.bake)
    assert not last_report(obj).batched
    assert _met(last_report(obj))
    batched = _values(obj)
    assert batched.keys() == sequential.keys()
    for channel, values in sequential.items():
        assert np.array_equal(values, batched[channel]), channel


@pytest.mark.parametrize("where", ["batch", "anchor"])
def test_a_failure_in_the_batched_solve_restores_everything(
    clean_scene: bpy.types.Scene, extension: ModuleType, monkeypatch: pytest.MonkeyPatch,
    where: str,
) -> None:  # fmt: skip
    obj = _redundant_figure()
    ik = obj.pose.bones["b2"].constraints.new("IK")  # the bake mutes it, then unmutes it
    ik.target = bpy.data.objects["L"]
    before = _snapshot(obj)
    owner = extension.solver.batch.BatchSolver if where == "batch" else extension.solver.Solver
    original = owner.solve
    calls = []

    def failing(*args: object, **kwargs: object) -> object:
        calls.append(1)
        if where == "batch" or len(calls) == 3:  # the batch, or the second anchor
            raise ZeroDivisionError("boom")
        return original(*args, **kwargs)

    monkeypatch.setattr(owner, "solve", failing)
    with pytest.raises(RuntimeError, match=f"frame {FRAMES}, nothing written: ZeroDivision"):
        bpy.ops.reach.bake()
    _assert_unchanged(obj, before, ik)


def test_a_target_deleted_mid_bake_restores_everything(clean_scene: bpy.types.Scene) -> None:
    """The batched path reads targets frame by frame: a target gone at frame 9 stops it
    there (not when the batch runs), and everything is put back."""
    obj = _redundant_figure()
    ik = obj.pose.bones["b2"].constraints.new("IK")
    ik.target = bpy.data.objects["L"]
    before = _snapshot(obj)
    target = bpy.data.objects["T"]

    def delete(scene: bpy.types.Scene, *_args: object) -> None:
        if scene.frame_current == 9 and "T" in bpy.data.objects:
            bpy.data.objects.remove(target)

    bpy.app.handlers.frame_change_post.append(delete)
    try:
        with pytest.raises(RuntimeError, match=r"frame 9, nothing written: .*deleted"):
            bpy.ops.reach.bake()
    finally:
        bpy.app.handlers.frame_change_post.remove(delete)
    _assert_unchanged(obj, before, ik)


def test_a_goal_out_of_reach_gives_up_no_other_goal(clean_scene: bpy.types.Scene) -> None:
    """The demo with its left hand's target out of reach over frames 50-70: damped least
    squares' compromise over the batch gives up the feet and the other hand there; those
    frames are solved again by the bake's method from the frame before, so only "Hand L" is
    missed, as one frame after another."""
    rig = build_scene()
    hand = bpy.data.objects["hand_target.L"]
    for frame in range(50, 71):
        hand.location = (2.5, -0.3, 1.25)  # an arm is about 0.6 units long
        hand.keyframe_insert("location", frame=frame)
    bpy.context.scene.frame_set(1)
    bpy.context.view_layer.objects.active = rig
    for batched in (False, True):
        run_op(bpy.ops.reach.bake, batched=batched)
        report = last_report(rig)
        assert bool(report.batched) == batched
        missed = {name for name, (_d, _a, ok) in report.worst.items() if not ok}
        assert missed == {"Hand L"}, report.text()


@pytest.mark.parametrize("steps", [10, FRAMES + 3])
def test_esc_in_a_batched_modal_bake_restores_everything(
    clean_scene: bpy.types.Scene, extension: ModuleType, steps: int
) -> None:
    """ESC while the batched path reads targets (10 steps), or once the batch has solved
    and the keys are written (measuring): everything is put back."""
    obj = _redundant_figure()
    ik = obj.pose.bones["b2"].constraints.new("IK")
    ik.target = bpy.data.objects["L"]
    before = _snapshot(obj)
    op, context = modal_operator(extension, obj)
    assert op.invoke(context, None) == {"RUNNING_MODAL"}
    for _ in range(steps):
        assert op.modal(context, TIMER) == {"RUNNING_MODAL"}
    assert op.modal(context, ESC) == {"CANCELLED"}
    assert "nothing written" in op.reports[-1][1]
    _assert_unchanged(obj, before, ik)


def test_batched_frames_over_the_time_budget_are_listed_in_frame_order(
    clean_scene: bpy.types.Scene, extension: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    """*Time per Frame* is pooled over the batch: a batch whose share per frame reaches the
    budget lists each of its frames, merged in frame order with the frames solved alone
    (the first frame and the anchors) that reach it, as one frame after another lists them.
    The solves' times are made huge (their answers are untouched): first only the batch's,
    then every solve's."""
    obj = _hinged_arm()
    for owner in (extension.solver.batch.BatchSolver, extension.solver.Solver):
        original = owner.solve

        def slow(*args: object, _original: object = original, **kwargs: object) -> object:
            return dataclasses.replace(_original(*args, **kwargs), time=1e6)  # type: ignore[operator]

        monkeypatch.setattr(owner, "solve", slow)
        run_op(bpy.ops.reach.bake)
        report = last_report(obj)
        assert report.batched
        alone = {1, *range(13, FRAMES, 12), FRAMES}  # the first frame, every 12th, the last
        every = range(1, FRAMES + 1)
        slow_ones = (
            every if owner is extension.solver.Solver else [f for f in every if f not in alone]
        )
        assert list(report.time_limited) == list(slow_ones)
