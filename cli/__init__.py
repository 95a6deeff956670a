"""Baking without a window: Blender's ``--command`` entries ``reach_bake``, ``reach_check``
and ``reach_merge`` (a shot, or a farm's chunks of it), registered by the extension.

``blender -b shot.blend --command reach_bake --frames 1-120 --save --report bake.json`` runs
:func:`.bake_command.run` on the loaded file; ``python -m <this package> shot.blend --command
reach_bake ...`` does the same where Blender is the ``bpy`` module (:mod:`.__main__`). Exit
codes: 0 every goal met, 1 some goal missed (keys written, the report says where), 2 error
(nothing written, the file untouched). Manual: docs/farm.md.

Nothing here imports ``bpy`` at module level: ``python -m`` imports this package first.
"""

from __future__ import annotations

from typing import Any

#: Blender command name -> module of its ``run(argv) -> int``. Blender takes only Python
#: identifiers as command names (``register_cli_command`` refuses "reach-bake").
COMMANDS = {"reach_bake": "bake_command", "reach_check": "check_command",
            "reach_merge": "merge_command"}  # fmt: skip

_handles: list[Any] = []


def run(command: str, argv: list[str]) -> int:
    """Run ``command`` (a :data:`COMMANDS` name) with its arguments; return its exit code."""
    import importlib

    module = importlib.import_module(f".{COMMANDS[command]}", __name__)
    return int(module.run(argv))


def register() -> None:
    """Register every :data:`COMMANDS` entry with ``bpy.utils.register_cli_command``."""
    import bpy

    for name in COMMANDS:
        _handles.append(bpy.utils.register_cli_command(name, lambda argv, n=name: run(n, argv)))


def unregister() -> None:
    """Remove the commands :func:`register` added."""
    import bpy

    while _handles:
        bpy.utils.unregister_cli_command(_handles.pop())
