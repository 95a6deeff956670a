"""The batched bake's branch test (bridge/bake/batched.py, ``off_branch``): a frame that moved
from its interpolated start by more than its anchors differ plus the margin is solved again;
a sliding coordinate is measured in lengths of the rig, so the verdict does not depend on
the rig's units (a rig in centimetres and the same rig in metres)."""

from __future__ import annotations

import numpy as np

from tests.bridge_stubs import bridge_module

batched = bridge_module("bake.batched")


def _verdicts(scale: float) -> np.ndarray:
    """Two frames of a rig ``scale`` times the size of a 1-unit one: a hinge (radians) and a
    slide (scene units); the anchors agree, so only the margin lets a frame move."""
    unit = np.array([1.0, scale])  # per_kind(figure, 1.0, length) of a rig of size `scale`
    anchors = np.array([[0.3, 0.5 * scale], [0.3, 0.5 * scale]])
    starts = anchors.copy()
    solved = np.array([[0.3, 0.55 * scale], [0.3, 0.7 * scale]])  # slid 0.05 and 0.2 sizes
    return batched.off_branch(starts, solved, anchors, anchors, unit)


def test_a_frame_is_off_its_branch_by_the_same_rule_in_any_units() -> None:
    margin = batched.BRANCH_MARGIN
    assert 0.05 < margin < 0.2  # the frames straddle the margin
    for scale in (1.0, 100.0, 0.01):
        assert _verdicts(scale).tolist() == [False, True], scale


def test_a_frame_within_its_anchors_spread_stays_on_its_branch() -> None:
    unit = np.ones(2)
    before, after = np.array([[0.0, 0.0]]), np.array([[1.0, 0.0]])
    starts = 0.5 * (before + after)
    assert not batched.off_branch(starts, starts + np.array([[0.6, 0.0]]), before, after, unit)[0]
    assert batched.off_branch(starts, starts + np.array([[0.0, 1.2]]), before, after, unit)[0]
