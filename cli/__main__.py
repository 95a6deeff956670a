"""``python -m`` entry where Blender is the ``bpy`` module: the same commands as
``blender -b FILE.blend --command NAME ...``, with the same arguments and exit codes.

Usage (the installed extension's folder on ``PYTHONPATH``, see docs/farm.md)::

    python -m reach_ik.cli shot.blend --command reach_bake --frames 1-120 --save

It imports ``bpy``, enables the Reach IK extension installed in that Blender's user folder
(by its module, ``bl_ext.<repository>.reach_ik``), opens the file, runs the command of the
*installed* extension and leaves the process with its exit code. Only the standard library is
imported before ``bpy``.
"""

from __future__ import annotations

import importlib
import os
import sys

EXTENSION_ID = "reach_ik"
ERROR = 2
USAGE = "usage: python -m reach_ik.cli [FILE.blend] --command NAME [arguments of NAME]"


def split(argv: list[str]) -> tuple[str | None, str, list[str]]:
    """``[FILE.blend] --command NAME args...`` -> (file or None, NAME, args); ValueError
    when there is no command or more than one file."""
    for flag in ("--command", "-c"):
        if flag in argv:
            at = argv.index(flag)
            break
    else:
        raise ValueError("no --command NAME")
    before, after = argv[:at], argv[at + 1 :]
    if not after:
        raise ValueError("--command needs a NAME")
    if len(before) > 1:
        raise ValueError(f"one .blend file before --command, got {before}")
    return (before[0] if before else None), after[0], after[1:]


def extension_module() -> str:
    """The module name of the installed Reach IK extension, enabled (``bl_ext.<repo>.<id>``).

    Raises:
        LookupError: no Reach IK in this Blender's extension repositories.
    """
    import addon_utils

    names = [m.__name__ for m in addon_utils.modules() if m.__name__.split(".")[-1] == EXTENSION_ID]
    if not names:
        raise LookupError(
            "Reach IK is not installed in this Blender's user folder (install the extension "
            "zip first: docs/farm.md)"
        )
    name = sorted(names)[0]
    if not addon_utils.check(name)[1]:
        addon_utils.enable(name, default_set=False)
    return name


def main(argv: list[str]) -> int:
    """Run the command line ``argv`` (without the program name); return the exit code."""
    try:
        blend, command, args = split(argv)
    except ValueError as exc:
        print(f"{USAGE}\nerror: {exc}", file=sys.stderr)
        return ERROR
    import bpy

    try:
        name = extension_module()
    except LookupError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return ERROR
    commands = importlib.import_module(f"{name}.cli")
    if command not in commands.COMMANDS:
        print(f"error: unknown command {command!r} (known: {', '.join(commands.COMMANDS)})",
              file=sys.stderr)  # fmt: skip
        return ERROR
    if blend is not None:
        if not os.path.isfile(blend):
            print(f"error: no file {blend}", file=sys.stderr)
            return ERROR
        bpy.ops.wm.open_mainfile(filepath=os.path.abspath(blend))
    return commands.run(command, args)


if __name__ == "__main__":
    code = main(sys.argv[1:])
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)  # past Blender's exit handlers, which crash or hang in some bpy versions
