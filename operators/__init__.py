"""Blender operators: read the scene, call the solver, write pose and keys."""


def register() -> None:
    """Register operator classes and properties."""


def unregister() -> None:
    """Unregister operator classes and properties."""
