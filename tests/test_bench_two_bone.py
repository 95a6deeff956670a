"""The two-bone start benchmark runs and grades (a few targets; no timings asserted)."""

import numpy as np

from bench.two_bone_start import arm, figure_eight, hand_point, random_targets, run


def test_targets_are_reachable_hand_positions() -> None:
    fig = arm(limits=True)
    targets = random_targets(fig, 3, seed=1)
    assert targets.shape == (3, 3)
    path = figure_eight(fig, 12)
    assert path.shape == (12, 3)
    assert np.allclose(path[0], hand_point(fig, np.array([0.9, 0.0, 0.6, 1.2])))


def test_cold_and_tracking_rows_record_every_solve() -> None:
    fig = arm(limits=True)
    for analytic in (False, True):
        cold = run(True, analytic, 0, random_targets(fig, 4, seed=2), tracking=False)
        assert len(cold.solved) == len(cold.nit) == len(cold.cpu) == 4
        assert all(cold.solved)
        track = run(True, analytic, 0, figure_eight(fig, 8), tracking=True)
        assert all(track.solved)
        assert 0.0 < track.step < 0.5
    assert cold.nit == [0, 0, 0, 0]  # the analytic start alone reaches them
