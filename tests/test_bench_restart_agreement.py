"""The restart-agreement benchmark's targets and rows (a single target; no timings asserted)."""

import numpy as np

from bench.restart_agreement import full_search, issue_arm, reach_of, run_row, unreachable
from bench.serial import forward
from solver.search import restarts


def test_unreachable_targets_lie_beyond_the_reach() -> None:
    chain = issue_arm()
    assert reach_of(chain) == 1.15
    tips = [forward(chain, a)[0] for a in np.random.default_rng(0).uniform(-2.5, 2.5, (200, 7))]
    assert max(np.linalg.norm(t - chain.origins[0][:3, 3]) for t in tips) <= 1.15 + 1e-12
    for position, rotation in unreachable(chain, 20, seed=3):
        distance = np.linalg.norm(position - chain.origins[0][:3, 3])
        assert 1.2 * 1.15 <= distance <= 2.0 * 1.15
        assert np.allclose(rotation @ rotation.T, np.eye(3)) and np.linalg.det(rotation) > 0


def test_a_row_compares_the_default_answer_with_the_full_search() -> None:
    saved = restarts.AGREEING
    with full_search():
        assert restarts.AGREEING > 100
    assert restarts.AGREEING == saved
    row = run_row(issue_arm(), False, 1, log=lambda _: None)
    assert row.reachable[0].success and not row.default[0].success
    assert row.default[0].restarts == restarts.AGREEING  # out of reach: agreeing restarts end it
    assert row.full[0].restarts == 100
    assert row.differing() == []
