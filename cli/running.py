"""How every command ends: its report printed and written as JSON, the file saved when asked,
and the exit code (0 every goal met, 1 some goal missed, 2 error: nothing written).
"""

from __future__ import annotations

import json
import os
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Protocol, TypeVar

import bpy

from ..bridge.bake.report import describe
from ..bridge.errors import RigError
from .options import UsageError
from .report_json import ERROR, CommandReport
from .shot import CommandError

ParsedT = TypeVar("ParsedT", bound="Options")


def check_writable(path: str | None, what: str) -> None:
    """Make ``path``'s folder if it is missing (a farm job names a new folder for its chunks and
    reports); CommandError when it cannot be made, before any work is done."""
    if path is None:
        return
    try:
        Path(path).resolve().parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CommandError(f"{what}: cannot make the folder of '{path}': {exc}") from None


def save(save_over: bool, output: str | None) -> str | None:
    """Save the file over itself or to ``output`` (a copy; the session's file stays the
    loaded one); return the path written, or None."""
    if output is not None:
        path = str(Path(output).resolve())
        bpy.ops.wm.save_as_mainfile(filepath=path, copy=True)
        return path
    if save_over:
        if not bpy.data.filepath:
            raise CommandError("--save: the file has never been saved; use --output")
        bpy.ops.wm.save_mainfile()
        return bpy.data.filepath
    return None


def execute(command: str, report_path: str | None, work: Callable[[CommandReport], None],
            missed_ok: bool = False) -> int:  # fmt: skip
    """Run ``work(report)``, which fills ``report`` (and saves when asked, last); print the
    report, write it as JSON to ``report_path``; return the exit code.

    Any exception of ``work`` is the error of the report (exit code 2): ``work`` saves
    nothing before all its work succeeded, so the file on disk is untouched.
    """
    report = CommandReport(command, bpy.data.filepath, missed_ok=missed_ok)
    try:
        check_writable(report_path, "--report")
        work(report)
    except (RigError, UsageError) as exc:
        report.error = describe(exc)
    except Exception as exc:
        traceback.print_exc()
        report.error = f"{type(exc).__name__}: {exc}"
    print("\n".join(report.lines()), flush=True)
    if report_path is not None:
        try:
            text = json.dumps(report.to_json(bpy.app.version_string), indent=2)
            Path(report_path).write_text(text + os.linesep, encoding="utf-8")
        except OSError as exc:
            print(f"{command}: could not write the report {report_path}: {exc}", flush=True)
            return ERROR
    return report.exit_code


@contextmanager
def about(armature: str) -> Iterator[None]:
    """Name ``armature`` in any Reach error raised inside (a shot has several)."""
    try:
        yield
    except RigError as exc:
        raise CommandError(f"armature '{armature}': {describe(exc)}") from exc


class Options(Protocol):
    """What :func:`command` needs of a command's parsed options."""

    @property
    def report(self) -> str | None: ...
    @property
    def missed_ok(self) -> bool: ...


def command(name: str, argv: list[str], parse: Callable[[list[str]], ParsedT],
            work: Callable[[ParsedT, CommandReport], None]) -> int:  # fmt: skip
    """Parse ``argv`` with ``parse`` and :func:`execute` ``work(options, report)``; a bad
    command line prints its error and gives exit code 2."""
    try:
        options = parse(list(argv))
    except UsageError as exc:
        print(f"{name}: ERROR, nothing written: {exc}", flush=True)
        return ERROR
    return execute(name, options.report, lambda report: work(options, report), options.missed_ok)
