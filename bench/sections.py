"""Sections of RESULTS.md written by their own runs (live update, methods), between markers.

A section is ``<!-- name: begin -->`` ... ``<!-- name: end -->``; rewriting the main report
keeps the sections the old file had (:func:`marked_sections`), and each run replaces only its
own (:func:`write_section`).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

_SECTION = re.compile(r"<!-- (?P<name>[\w.-]+): begin -->.*?<!-- (?P=name): end -->", re.S)


def markers(name: str) -> tuple[str, str]:
    """The begin and end markers of section ``name``."""
    return f"<!-- {name}: begin -->", f"<!-- {name}: end -->"


def write_section(path: Path, name: str, body: str) -> None:
    """Put ``body`` between the markers of ``name`` in ``path``: in place of the section
    already there, else at the end (the file is created when missing)."""
    begin, end = markers(name)
    text = f"{begin}\n{body.strip()}\n{end}"
    old = path.read_text() if path.exists() else ""
    if begin in old and end in old:
        head, rest = old.split(begin, 1)
        new = head + text + rest.split(end, 1)[1]
    else:
        new = old.rstrip("\n") + ("\n\n" if old.strip() else "") + text + "\n"
    path.write_text(new)


def command_line(program: str, argv: list[str] | None) -> str:
    """The command that ran a section: ``program`` (``"python -m bench.batch"``) and its
    arguments, ``argv`` or else the process's own."""
    return " ".join([program, *(sys.argv[1:] if argv is None else argv)])


def publish(folder: Path, name: str, text: str) -> None:
    """Write ``text`` as section ``name`` of ``folder``/RESULTS.md (the folder made when
    missing) and print it."""
    folder.mkdir(parents=True, exist_ok=True)
    write_section(folder / "RESULTS.md", name, text)
    print(text)


def marked_sections(path: Path) -> list[str]:
    """Every marked section of ``path`` with its markers, in file order ([] if no file)."""
    if not path.exists():
        return []
    return [m.group(0) for m in _SECTION.finditer(path.read_text())]
