"""Smoke test of the bench's batch section: correctness only, no timings.

A few iiwa7 targets through the batch, graded by the bench's own forward kinematics; the
section has its tables and is replaced in place in RESULTS.md.
"""

from __future__ import annotations

from datetime import datetime

from bench.batch import SECTION, BatchModel, FloorRow, Peer, RobotRow, batches, section
from bench.robots import robot_chain
from bench.sections import marked_sections, write_section
from bench.serial import sample_targets


def test_a_small_batch_is_graded_and_its_section_replaced_in_place(tmp_path):
    chain = robot_chain("iiwa7")
    targets = sample_targets(chain, 6, seed=1)
    model = BatchModel(chain)
    timing = batches(model, targets, 3, 6)
    assert timing.count == 6 and timing.violations == 0
    assert timing.solved == 6  # the first targets of the main bench: every one is met
    loop = Peer("loop", [1e-3], 1, cpu=[40.0 * timing.cpu / timing.count])
    row = RobotRow("iiwa7", timing, Peer("TRAC-IK", [], 0, note="not run"), loop)
    floor = [FloorRow(10, 20.0, 10.0, 5.0)]
    text = section(
        [row],
        [timing] * 5,
        [(7, timing, Peer("loop", [1e-3], 1))],
        floor,
        "test",
        datetime.now(),
        1.0,
    )
    assert "| iiwa7 | 100.0% (0 limit violations) |" in text
    assert "1/1 | " in text and "x, 40.00x |" in text  # the loop's wall and CPU ratios
    assert "| 10000 | 100.0% |" in text and "| chain-7 | 100.0% |" in text
    assert "| 10 | 20.00 | 10.00 | 5.00 |" in text
    results = tmp_path / "RESULTS.md"
    results.write_text("# Results\n")
    write_section(results, SECTION, text)
    write_section(results, SECTION, text.replace("test", "again"))
    (only,) = marked_sections(results)
    assert "again" in only and results.read_text().startswith("# Results")
