"""Live posing's Blender-free parts on stand-in objects: holds of Reach jobs, the input
fingerprint, and when an unfinished solve continues."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pytest

from tests.bridge_stubs import bridge_module

busy = bridge_module("blender.busy_armatures")
live_inputs = bridge_module("live.inputs")
live_state = bridge_module("live.state")


@dataclass
class Armature:
    session_uid: int


def test_holds_nest_and_each_release_is_counted() -> None:
    a, b = Armature(1), Armature(2)
    busy.clear()
    busy.release(a)  # a release without a hold changes nothing
    assert busy.releases(a) == 0 and not busy.is_busy(a)
    busy.hold(a)
    with busy.holding(a):
        assert busy.is_busy(a) and not busy.is_busy(b)
    assert busy.is_busy(a) and busy.releases(a) == 1  # the outer hold is still there
    busy.release(a)
    assert not busy.is_busy(a) and busy.releases(a) == 2 and busy.releases(b) == 0
    with pytest.raises(RuntimeError), busy.holding(b):
        raise RuntimeError("a failing job")
    assert not busy.is_busy(b) and busy.releases(b) == 1  # released on the error too
    busy.clear()
    assert busy.releases(a) == 0


def test_plan_next_continues_a_moving_solve_and_grows_a_stuck_budget() -> None:
    state = live_state.LiveState()
    live_state.plan_next(state, stopped=True, moved=True)
    assert state.unfinished and state.budget_scale == 1
    scales = []
    while True:  # stopped without moving: 2, 4, ... up to the cap, then it gives up
        live_state.plan_next(state, stopped=True, moved=False)
        if not state.unfinished:
            break
        scales.append(state.budget_scale)
    assert scales == [2, 4, 8, 16, 32, 64] and state.budget_scale == 1
    state.budget_scale = 8
    live_state.plan_next(state, stopped=False, moved=True)  # finished: back to one budget
    assert not state.unfinished and state.budget_scale == 1


def test_fingerprints_compare_numbers_exactly_and_settings_by_value() -> None:
    make = live_inputs.Fingerprint
    base = make(np.array([1.0, 2.0, 3.0]), (("a", 1),))
    assert base.same_as(make(np.array([1.0, 2.0, 3.0]), (("a", 1),)))
    assert not base.same_as(None)
    assert not base.same_as(make(np.array([1.0, 2.0, 3.0 + 1e-12]), (("a", 1),)))
    assert not base.same_as(make(np.array([1.0, 2.0]), (("a", 1),)))
    assert not base.same_as(make(np.array([1.0, 2.0, 3.0]), (("a", 2),)))


@dataclass
class Prop:
    identifier: str
    type: str = "FLOAT"
    is_array: bool = False


@dataclass
class Rna:
    properties: list[Prop]


@dataclass
class Item:
    weight: float = 1.0
    select: bool = True
    bl_rna: Rna = field(
        default_factory=lambda: Rna([Prop("rna_type", "POINTER"), Prop("weight"), Prop("select")])
    )


@dataclass
class Settings:
    constraints: list[Item]
    tolerance: float = 1e-5
    live: bool = True
    target: Armature | None = None
    axis: tuple[float, float] = (0.0, 1.0)
    bl_rna: Rna = field(
        default_factory=lambda: Rna([
            Prop("constraints", "COLLECTION"), Prop("tolerance"), Prop("live", "BOOLEAN"),
            Prop("target", "POINTER"), Prop("axis", "FLOAT", is_array=True),
        ])
    )  # fmt: skip


def test_settings_values_skip_the_switches_and_read_pointers_as_ids() -> None:
    settings = Settings([Item(), Item(weight=2.0)], target=Armature(7))
    values = live_inputs.rna_values(settings)
    assert values == (((1.0,), (2.0,)), 1e-5, 7, (0.0, 1.0))
    settings.live, settings.constraints[0].select = False, False  # not inputs of the pose
    assert live_inputs.rna_values(settings) == values
    settings.constraints[0].weight = 3.0
    assert live_inputs.rna_values(settings) != values


@dataclass
class Switches:
    evaluate_on_frame_change: bool


@dataclass
class Rig:
    session_uid: int
    reach_ik: Switches
    type: str = "ARMATURE"


def test_frame_change_is_wanted_only_for_an_unheld_armature_with_the_switch_on() -> None:
    live = bridge_module("live.posing")
    off, on = Rig(1, Switches(False)), Rig(2, Switches(True))
    busy.clear()
    assert not live.frame_change_wanted([]) and not live.frame_change_wanted([off])
    assert live.frame_change_wanted([off, on])
    with busy.holding(on):  # a bake of the only such armature: its frames solve nothing
        assert not live.frame_change_wanted([off, on])
        assert live.frame_change_wanted([on, Rig(3, Switches(True))])
    assert not live.frame_change_wanted([Rig(4, Switches(True), type="MESH")])
