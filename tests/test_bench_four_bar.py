"""The four-bar benchmark's rows: one revolution per row, correctness only (no timings)."""

from datetime import datetime

from bench.four_bar import CLOSURES, METHODS, STEPS, run, section


def test_one_revolution_per_row_stays_closed_and_on_its_branch() -> None:
    rows = run(revolutions=1, log=lambda _: None)
    assert [(r.closure, r.method) for r in rows] == [(c, m) for c in CLOSURES for m in METHODS]
    for row in rows:
        assert len(row.seconds) == len(row.cpu) == len(row.iterations) == STEPS
        assert row.failed == 0
        assert row.closure_max <= 1e-6
        assert row.step_share <= 1.05
        assert row.off_branch < 1e-4
    text = section(rows, "python -m bench.four_bar", datetime(2026, 11, 27))
    assert text.count("\n| ground |") == text.count("\n| rocker |") == len(METHODS)
