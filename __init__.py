"""Reach IK: multi-constraint inverse kinematics for Blender armatures.

This file imports nothing from Blender at module level, so the pure-numpy
``solver`` package next to it stays importable (by pytest and by scripts)
without ``bpy``.
"""


def register() -> None:
    """Register the extension's properties, operators, panels and command-line commands."""
    from . import cli, operators, panels, props

    props.register()
    operators.register()
    panels.register()
    cli.register()


def unregister() -> None:
    """Remove everything :func:`register` added, in reverse order."""
    from . import cli, operators, panels, props

    cli.unregister()
    panels.unregister()
    operators.unregister()
    props.unregister()
