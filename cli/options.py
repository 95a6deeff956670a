"""The command lines of ``reach_bake``, ``reach_check`` and ``reach_merge``: parsed, checked,
frozen. Pure Python (no ``bpy``), so the parsing is tested without Blender.
"""

from __future__ import annotations

import argparse
import re
from dataclasses import dataclass

TARGETS = ("CURRENT", "NEW_ACTION", "NEW_STRIP")
MODES = ("REPLACE", "LAYER")
#: Frames solved before a chunk's first frame and thrown away (see docs/farm.md).
LEAD_IN = 10

_RANGE = re.compile(r"^\s*(-?\d+)\s*(?:(?:-|\.\.)\s*(-?\d+))?\s*$")


class UsageError(ValueError):
    """A command line that cannot be run; the message says which argument and why."""


def frame_range(text: str) -> tuple[int, int]:
    """``"1-250"`` (or ``"1..250"``, or one frame ``"7"``) -> (first, last), inclusive.

    Raises:
        UsageError: not such a range, or ``last < first``.
    """
    match = _RANGE.match(text)
    if match is None:
        raise UsageError(f"--frames: expected FIRST-LAST (e.g. 1-250), got {text!r}")
    first = int(match.group(1))
    last = int(match.group(2)) if match.group(2) is not None else first
    if last < first:
        raise UsageError(f"--frames: the last frame {last} is before the first {first}")
    return first, last


class _Parser(argparse.ArgumentParser):
    """argparse that raises :class:`UsageError` instead of exiting the process."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(f"{self.prog}: {message}")


def _common(prog: str, description: str) -> _Parser:
    parser = _Parser(prog=prog, description=description, add_help=False)
    parser.add_argument("--armature", action="append", default=[], metavar="NAME",
                        help="an armature to work on (repeat for more); default: every "
                        "armature of the scene with Reach constraints")  # fmt: skip
    parser.add_argument("--frames", type=_checked_range, metavar="FIRST-LAST",
                        help="frames (inclusive); default: the scene's frame range")  # fmt: skip
    parser.add_argument("--report", metavar="FILE.json", help="write the report as JSON")
    parser.add_argument("--scene", metavar="NAME", help="the scene (default: the window's)")
    return parser


def _checked_range(text: str) -> tuple[int, int]:
    try:
        return frame_range(text)
    except UsageError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _missed_ok(parser: _Parser) -> None:
    parser.add_argument("--missed-ok", action="store_true",
                        help="exit 0 when goals are missed (the report still lists them), "
                        "for farm managers that fail a task on any other exit code")  # fmt: skip


def _save_options(parser: _Parser) -> None:
    save = parser.add_mutually_exclusive_group()
    save.add_argument("--save", action="store_true", help="save the file over itself")
    save.add_argument("--output", metavar="OTHER.blend", help="save to another file")


@dataclass(frozen=True)
class BakeOptions:
    """``reach_bake``'s arguments (see :func:`parse_bake`).

    Attributes:
        armatures: armature object names; empty: every armature with Reach constraints.
        frames: (first, last) inclusive, or None for the scene's range.
        target: where keys go, one of :data:`TARGETS`.
        mode: what happens to existing keys, one of :data:`MODES`.
        method: the solve method of this bake, or None for each armature's own.
        save: save the file over itself after the bake.
        output: save to this path instead (None: not at all, unless ``save``).
        report: write the JSON report here (None: print only).
        scene: the scene's name (None: the window's scene).
        chunk: write the keys of ``frames`` to this chunk file for ``reach_merge``,
            leaving the .blend alone (None: key the file).
        shot: a chunk's shot range (first, last): the lead-in never starts before it.
        lead_in: frames solved before a chunk's first frame and not kept.
        time_limit: wall-time budget of one frame's solve, seconds (None: the default).
        missed_ok: exit code 0 instead of 1 when goals are missed.
    """

    armatures: tuple[str, ...] = ()
    frames: tuple[int, int] | None = None
    target: str = "CURRENT"
    mode: str = "REPLACE"
    method: str | None = None
    save: bool = False
    output: str | None = None
    report: str | None = None
    scene: str | None = None
    chunk: str | None = None
    shot: tuple[int, int] | None = None
    lead_in: int = LEAD_IN
    time_limit: float | None = None
    missed_ok: bool = False


def parse_bake(argv: list[str]) -> BakeOptions:
    """``reach_bake``'s command line -> :class:`BakeOptions`; raises :class:`UsageError`."""
    parser = _common("reach_bake", "Bake the Reach constraints of armatures into keys.")
    parser.add_argument("--to", dest="target", choices=TARGETS, default="CURRENT",
                        help="the current action, a new action or a new NLA strip")  # fmt: skip
    parser.add_argument("--mode", choices=MODES, default="REPLACE")
    parser.add_argument("--method", help="solve method of this bake (default: the armature's)")
    parser.add_argument("--time-limit", type=float, metavar="SECONDS")
    parser.add_argument("--chunk", metavar="FILE.json",
                        help="bake --frames as one chunk of a shot into this file for "
                        "reach_merge; the .blend is not written")  # fmt: skip
    parser.add_argument(
        "--shot",
        type=_checked_range,
        metavar="FIRST-LAST",
        help="the whole shot a chunk belongs to (default: the scene's range)",
    )
    parser.add_argument("--lead-in", type=int, default=LEAD_IN, metavar="FRAMES")
    _missed_ok(parser)
    _save_options(parser)
    args = parser.parse_args(argv)
    if args.lead_in < 0:
        raise UsageError(f"reach_bake: --lead-in must be 0 or more, not {args.lead_in}")
    if args.chunk is not None and (args.save or args.output):
        raise UsageError("reach_bake: a --chunk bake writes the chunk file, not the .blend: "
                         "drop --save/--output (reach_merge saves)")  # fmt: skip
    if args.chunk is None and args.shot is not None:
        raise UsageError("reach_bake: --shot is for a --chunk bake")
    return BakeOptions(
        armatures=tuple(args.armature), frames=args.frames, target=args.target, mode=args.mode,
        method=args.method, save=args.save, output=args.output, report=args.report,
        scene=args.scene, chunk=args.chunk, shot=args.shot, lead_in=args.lead_in,
        time_limit=args.time_limit, missed_ok=args.missed_ok,
    )  # fmt: skip


@dataclass(frozen=True)
class CheckOptions:
    """``reach_check``'s arguments: which armatures, frames, report file, scene, missed_ok."""

    armatures: tuple[str, ...] = ()
    frames: tuple[int, int] | None = None
    report: str | None = None
    scene: str | None = None
    missed_ok: bool = False


def parse_check(argv: list[str]) -> CheckOptions:
    """``reach_check``'s command line -> :class:`CheckOptions`; raises :class:`UsageError`."""
    parser = _common("reach_check", "Measure the residuals of what is baked; write nothing.")
    _missed_ok(parser)
    args = parser.parse_args(argv)
    return CheckOptions(tuple(args.armature), args.frames, args.report, args.scene,
                        args.missed_ok)  # fmt: skip


@dataclass(frozen=True)
class MergeOptions:
    """``reach_merge``'s arguments.

    Attributes:
        chunks: the chunk files ``reach_bake --chunk`` wrote, any order.
        target, mode: where the keys go and what happens to existing keys (as a bake).
        save, output, report, scene, missed_ok: as for :class:`BakeOptions`.
    """

    chunks: tuple[str, ...]
    target: str = "CURRENT"
    mode: str = "REPLACE"
    save: bool = False
    output: str | None = None
    report: str | None = None
    scene: str | None = None
    missed_ok: bool = False


def parse_merge(argv: list[str]) -> MergeOptions:
    """``reach_merge``'s command line -> :class:`MergeOptions`; raises :class:`UsageError`."""
    parser = _Parser(
        prog="reach_merge",
        add_help=False,
        description="Key a shot from the chunks reach_bake --chunk baked.",
    )
    parser.add_argument("chunks", nargs="+", metavar="CHUNK.json")
    parser.add_argument("--to", dest="target", choices=TARGETS, default="CURRENT")
    parser.add_argument("--mode", choices=MODES, default="REPLACE")
    parser.add_argument("--report", metavar="FILE.json")
    parser.add_argument("--scene", metavar="NAME")
    _missed_ok(parser)
    _save_options(parser)
    args = parser.parse_args(argv)
    return MergeOptions(tuple(args.chunks), args.target, args.mode, args.save, args.output,
                        args.report, args.scene, args.missed_ok)  # fmt: skip
