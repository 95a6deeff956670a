"""Smoke test of the bench's methods section: correctness only, no timings.

Every registered solve method runs a few targets of the 7-DOF arm (single start and with
restarts) and a short figure-eight; every method gets its rows, the section is written
into RESULTS.md in place, and rewriting the main report keeps it.
"""

from __future__ import annotations

import pytest

from bench.methods import RESTARTED, SINGLE, peer_name, run_methods, section, write
from bench.sections import marked_sections, write_section
from solver.methods import METHODS


@pytest.fixture(scope="module")
def methods_run():
    return run_methods(count=2, frames=8, only={"arm-7 pose"}, log=lambda _: None)


def test_every_method_is_graded_single_start_and_with_restarts(methods_run):
    (case_run,) = methods_run.chains
    names = [peer_name(m, start) for m in METHODS for start in (RESTARTED, SINGLE)]
    assert [r.name for r in case_run.runs] == names
    for run in case_run.runs:
        assert run.unavailable is None
        assert [r.index for r in run.records] == [0, 1]
        assert all(r.outcome != "error" and r.iterations is not None for r in run.records)
        assert run.summary().max_violation <= 1e-7
    assert [t.peer for t in methods_run.tracks] == names
    for track in methods_run.tracks:
        assert track.frames == 8 and track.max_step is not None and track.max_step >= 0.0


def test_section_has_a_row_per_method_and_is_replaced_in_place(methods_run, tmp_path):
    text = section(methods_run)
    assert "Machine:" in text and "### arm-7 pose" in text and "figure-eight" in text
    for method in METHODS:
        assert f"| {method} | {SINGLE} |" in text and f"| {method} | {RESTARTED} |" in text
        assert f"| {peer_name(method, SINGLE)} |" in text
    results = tmp_path / "RESULTS.md"
    results.write_text("# R\n\nhead\n")
    write(methods_run, results)
    write_section(results, "other", "kept")
    write(methods_run, results)  # a second run replaces its own section only
    after = results.read_text()
    assert after.startswith("# R\n\nhead\n") and after.count("## Methods") == 1
    assert [s.split("\n", 1)[0] for s in marked_sections(results)] == [
        "<!-- methods: begin -->",
        "<!-- other: begin -->",
    ]


def test_rewriting_the_main_report_keeps_the_marked_sections(tmp_path):
    from bench.report import BenchRun, write_results

    results = tmp_path / "RESULTS.md"
    write_section(results, "methods", "## Methods\n\nrows")
    write_section(results, "live_update", "## Live posing\n\nfigures")
    write_results(BenchRun(chains=[], tasks=[], tracks=[], checks=[]), results)
    text = results.read_text()
    assert text.startswith("# Reach IK: how it compares")
    assert len(marked_sections(results)) == 2 and "rows" in text and "figures" in text
