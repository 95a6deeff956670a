"""The bookkeeping of a smooth bake without Blender (:mod:`bridge.bake.smooth`); real Blender
bakes the Fig. 1 arm in ``tests/blender/test_bake_smooth.py``."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

from tests.bridge_stubs import bridge_module

bake_smooth = bridge_module("bake.smooth")
solver = bridge_module("rig.joints").solver


def _figure() -> object:
    """A hinge ``turn`` and a slide ``reach``."""
    fig = solver.Figure()
    fig.add_segment("base")
    fig.add_revolute("base", "z", name="turn")
    fig.add_segment("arm", parent="base", translation=(1.0, 0.0, 0.0))
    fig.add_prismatic("arm", "x", name="reach")
    return fig


def _result(x: list[float], distance: float, ok: bool) -> object:
    residual = solver.Residual("hand", distance, None, ok)
    return SimpleNamespace(x=np.array(x), residuals=(residual,))


def test_degrees_for_rotations_scene_units_for_locations() -> None:
    bound = bake_smooth.SmoothBound(_figure(), 10.0)
    assert bound.max_change(0) is None  # the first frame starts from the rest pose
    assert bound.max_change(1) == pytest.approx([math.radians(10.0), 10.0])


def test_held_frames_and_their_worst_residuals() -> None:
    """Frames whose change reaches the bound are held, reached or not; the report's lines
    count them and say which goals they missed."""
    bound = bake_smooth.SmoothBound(_figure(), 10.0)
    step = math.radians(10.0)
    start = np.zeros(2)
    bound.record(0, 1, start, _result([1.0, 30.0], 0.5, False))  # first frame: never held
    bound.record(1, 2, start, _result([step, 0.0], 0.2, False))
    bound.record(2, 3, start, _result([0.0, -10.0], 0.0, True))
    bound.record(3, 4, start, _result([0.5 * step, 9.0], 0.0, True))
    assert bound.held == [2, 3]
    summary = bound.summary(measured=False)
    assert summary.worst == {"hand": (0.2, None, False)}
    text = "\n".join(summary.lines())
    assert "each joint at most 10 degrees per frame (10 scene units for locations)" in text
    assert "2 frame(s) held by the bound (2, 3)" in text
    assert "hand: 2.00e-01 units (UNREACHED)" in text
    bound.measure(3, [solver.Residual("hand", 1e-7, None, True)])
    bound.measure(4, [solver.Residual("hand", 0.3, None, False)])  # not held: not folded
    assert bound.summary(measured=True).worst == {"hand": (1e-7, None, True)}


def test_no_held_frame_is_one_line_without_locations() -> None:
    fig = solver.Figure()
    fig.add_segment("base")
    fig.add_revolute("base", "z", name="turn")
    summary = bake_smooth.SmoothBound(fig, 5.0).summary(measured=True)
    assert summary.lines() == [
        "  smooth: each joint at most 5 degrees per frame; 0 frame(s) held by the bound"
    ]
