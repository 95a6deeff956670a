"""What every bench section's command line ends with (:mod:`bench.sections`): the command
that ran it, and the section written into RESULTS.md and printed."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from bench.sections import command_line, marked_sections, publish


def test_the_command_line_is_the_program_and_its_arguments(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert command_line("python -m bench.x", ["--count", "3"]) == "python -m bench.x --count 3"
    assert command_line("python -m bench.x", []) == "python -m bench.x"
    monkeypatch.setattr(sys, "argv", ["bench/x.py", "--out", "here"])
    assert command_line("python -m bench.x", None) == "python -m bench.x --out here"


def test_publish_writes_the_section_into_a_new_folder_and_prints_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "made"
    publish(folder, "x", "## X\n\nfirst")
    publish(folder, "x", "## X\n\nsecond")  # replaces its own section only
    publish(folder, "y", "## Y")
    assert marked_sections(folder / "RESULTS.md") == [
        "<!-- x: begin -->\n## X\n\nsecond\n<!-- x: end -->",
        "<!-- y: begin -->\n## Y\n<!-- y: end -->",
    ]
    assert capsys.readouterr().out.splitlines()[-1] == "## Y"
