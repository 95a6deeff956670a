"""The worst residuals of a bake's frames (``bridge/bake/worst.py``): many frames folded at
once from a batch's arrays give what folding them one frame after another gives."""

from __future__ import annotations

import numpy as np

from tests.bridge_stubs import bridge_module, package_module

worst = bridge_module("bake.worst")
solver = package_module("solver")


def _residuals(names, distance, angle, satisfied):
    """One frame's residuals as a single solve reports them (None where a batch has NaN)."""
    return [
        solver.Residual(
            name, None if np.isnan(d) else float(d), None if np.isnan(a) else float(a), bool(ok)
        )
        for name, d, a, ok in zip(names, distance, angle, satisfied, strict=True)
    ]


def test_rows_folded_at_once_are_the_frames_folded_one_by_one():
    """Positions (distances), aims (angles), a goal with both, a frame whose distance is
    missing (NaN), misses on some frames, and an earlier fold to continue from."""
    rng = np.random.default_rng(7)
    names = ("Hand", "Look", "Palm", "Foot")
    frames = 30
    distance = rng.uniform(0.0, 1e-3, (frames, 4))
    angle = rng.uniform(0.0, 0.5, (frames, 4))
    distance[:, 1] = np.nan  # an aim: no distance
    angle[:, [0, 3]] = np.nan  # positions: no angle
    distance[4, 3] = np.nan
    satisfied = rng.uniform(size=(frames, 4)) > 0.1
    satisfied[:, 0] = True
    for before in ({}, {"Hand": (2e-3, None, True), "Look": (None, 0.1, False)}):
        one_by_one, at_once = dict(before), dict(before)
        for f in range(frames):
            worst.fold(one_by_one, _residuals(names, distance[f], angle[f], satisfied[f]))
        worst.fold_rows(at_once, names, distance, angle, satisfied)
        assert at_once == one_by_one
        assert list(at_once) == list(one_by_one)
    assert one_by_one["Hand"][2] and not one_by_one["Foot"][2]
    empty: dict = {}
    worst.fold_rows(empty, names, distance[:0], angle[:0], satisfied[:0])
    assert empty == {}
